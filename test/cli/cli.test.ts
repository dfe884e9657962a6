import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { clearKeyCache, resolveApiKey } from '../../src/modules/tenancy/tenancy.service.js';
import { listAuditEvents } from '../../src/modules/audit/audit.js';
import { temporaryDirectory } from '../support/leftovers.js';

/**
 * The CLI exactly as operators and scripts call it: `npm run -s cli -- … --json`, one JSON value on
 * stdout, against the embedded database of a temporary DATA_DIR. (Without `-s`, npm prints its own
 * lines on stdout first: the last case.)
 */
const run = promisify(execFile);
const dataDir = temporaryDirectory('cli');
const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' };

async function cli(...args: string[]) {
  const { stdout } = await run('npm', ['run', '-s', 'cli', '--', ...args, '--json'], { env, cwd: process.cwd() });
  return JSON.parse(stdout);
}

async function callerOf(apiKey: string) {
  const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
  try {
    clearKeyCache();
    return await resolveApiKey(database.db, apiKey);
  } finally {
    await database.close();
  }
}

// Each call starts npm, Node and the embedded database: seconds on a loaded machine, so the
// ceiling is per process started, not the suite's default.
describe('npm run cli', { timeout: 180_000 }, () => {
  let created: { accountId: number; applicationId: number; apiKey: string };

  it('app create makes the account when needed and prints ids and the key once', async () => {
    created = await cli('app', 'create', '--account', 'Label One', '--name', 'Website', '--plan', 'advanced');
    expect(created).toEqual({ accountId: expect.any(Number), applicationId: expect.any(Number), apiKey: expect.stringMatching(/^mq_/) });
    expect(await callerOf(created.apiKey)).toMatchObject({ kind: 'application', accountId: created.accountId, applicationId: created.applicationId, plan: 'advanced' });

    const second = await cli('app', 'create', '--account', 'Label One', '--name', 'Shop', '--plan', 'basic');
    expect(second.accountId).toBe(created.accountId);
  });

  it('app network-verification switches how network tokens are trusted, and refuses an unknown mode', async () => {
    expect(await cli('app', 'network-verification', '--application', String(created.applicationId), '--mode', 'verify')).toEqual({
      applicationId: created.applicationId,
      networkVerification: 'verify',
    });
    expect(await callerOf(created.apiKey)).toMatchObject({ settings: { networkVerification: 'verify' } });
    await expect(cli('app', 'network-verification', '--application', String(created.applicationId), '--mode', 'sometimes')).rejects.toMatchObject({
      stderr: expect.stringMatching(/verify or trust/),
    });
    // Each call starts a CLI process and opens the embedded database: slow on a busy machine.
  }, 90_000);

  it('account retention shows and sets how long records are kept, and refuses too short a one, writing nothing', async () => {
    expect(await cli('account', 'retention', '--account', 'Label One')).toEqual({ accountId: created.accountId, months: null });
    await expect(cli('account', 'retention', '--account', 'Label One', '--months', '3')).rejects.toMatchObject({ stderr: expect.stringMatching(/at least 6/) });
    await expect(cli('account', 'retention', '--account', 'No Such Label', '--months', '9')).rejects.toMatchObject({ stderr: expect.stringMatching(/No account No Such Label/) });
    expect(await cli('account', 'retention', '--account', String(created.accountId), '--months', '9', '--now')).toEqual({ accountId: created.accountId, months: 9, removed: 0 });
    expect(await cli('account', 'retention', '--account', 'Label One', '--keep-all')).toEqual({ accountId: created.accountId, months: null });
  }, 120_000);

  it('account export and import move an account to another database, once', async () => {
    const file = path.join(temporaryDirectory('cli-export'), 'label-one.jsonl.gz');
    const exported = await cli('account', 'export', '--account', 'Label One', '--out', file);
    expect(exported).toMatchObject({ accountId: created.accountId, name: 'Label One', file, counts: { accounts: 1, api_keys: expect.any(Number) } });
    await expect(cli('account', 'export', '--account', 'Label One', '--out', file)).rejects.toMatchObject({ stderr: expect.stringMatching(/exists already/) });
    const elsewhere = { ...env, DATA_DIR: temporaryDirectory('cli-import') };
    const imported = JSON.parse((await run('npm', ['run', '-s', 'cli', '--', 'account', 'import', '--in', file, '--json'], { env: elsewhere, cwd: process.cwd() })).stdout);
    expect(imported).toMatchObject({ name: 'Label One', exportedId: created.accountId, rows: exported.rows });
    await expect(run('npm', ['run', '-s', 'cli', '--', 'account', 'import', '--in', file, '--json'], { env: elsewhere, cwd: process.cwd() })).rejects.toMatchObject({
      stderr: expect.stringMatching(/already holds an account named "Label One"/),
    });
  }, 180_000);

  it('app sign-in-errors switches how the on-page sign-in refuses, and refuses an unknown mode or application, writing nothing', async () => {
    const application = String(created.applicationId);
    expect(await cli('app', 'sign-in-errors', '--application', application, '--mode', 'uniform')).toEqual({ applicationId: created.applicationId, signInErrors: 'uniform' });
    expect(await callerOf(created.apiKey)).toMatchObject({ settings: { networkVerification: 'verify', signInErrors: 'uniform' } });
    await expect(cli('app', 'sign-in-errors', '--application', application, '--mode', 'sometimes')).rejects.toMatchObject({ stderr: expect.stringMatching(/distinct or uniform/) });
    await expect(cli('app', 'sign-in-errors', '--application', '999999', '--mode', 'distinct')).rejects.toMatchObject({ stderr: expect.stringMatching(/No application 999999/) });
    expect(await callerOf(created.apiKey)).toMatchObject({ settings: { signInErrors: 'uniform' } });
  }, 90_000);

  it('app brand-custom-fields switches custom brand fields on and off, keeping other settings, and refuses a wrong value', async () => {
    const application = String(created.applicationId);
    expect(await cli('app', 'brand-custom-fields', '--application', application, '--enabled', 'on')).toEqual({ applicationId: created.applicationId, brandCustomFields: true });
    expect(await callerOf(created.apiKey)).toMatchObject({ settings: { networkVerification: 'verify', features: ['brandCustomFields'] } });
    expect(await cli('app', 'brand-custom-fields', '--application', application, '--enabled', 'off')).toEqual({ applicationId: created.applicationId, brandCustomFields: false });
    expect(await callerOf(created.apiKey)).toMatchObject({ settings: { networkVerification: 'verify', features: [] } });
    await expect(cli('app', 'brand-custom-fields', '--application', application, '--enabled', 'maybe')).rejects.toMatchObject({ stderr: expect.stringMatching(/on or off/) });
  }, 90_000);

  it('key global prints an account-wide key; a new one replaces the old', async () => {
    const first = await cli('key', 'global', '--account', String(created.accountId));
    expect(Object.keys(first)).toEqual(['apiKey']);
    const second = await cli('key', 'global', '--account', String(created.accountId));
    expect(await callerOf(second.apiKey)).toMatchObject({ kind: 'account', accountId: created.accountId });
    expect(await callerOf(first.apiKey)).toBeNull();
  });

  it('key list shows prefixes, never keys, and key revoke ends a key', async () => {
    const listed: { keyId: number; applicationId: number | null; prefix: string; revokedAt: string | null }[] = await cli('key', 'list', '--account', 'Label One');
    expect(JSON.stringify(listed)).not.toContain(created.apiKey);
    const appKey = listed.find((row) => row.applicationId === created.applicationId)!;
    expect(created.apiKey.startsWith(appKey.prefix)).toBe(true);

    expect(await cli('key', 'revoke', String(appKey.keyId))).toEqual({ keyId: appKey.keyId, revoked: true });
    expect(await callerOf(created.apiKey)).toBeNull();
  });

  it("records each change in the account's audit log, by the actor system cli", async () => {
    const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
    try {
      const { events } = await listAuditEvents(database.db, created.accountId, { actorType: 'system' }, { first: 200 });
      expect(events.every((event) => event.actorLabel === 'cli' && event.actorId === null)).toBe(true);
      const seen = events.map((event) => [event.action, event.targetType, event.details.setting ?? null]);
      expect(seen).toEqual(
        expect.arrayContaining([
          ['application.create', 'application', null],
          ['key.create', 'key', null],
          ['application.settings', 'application', 'networkVerification'],
          ['application.settings', 'application', 'signInErrors'],
          ['application.settings', 'application', 'brandCustomFields'],
          ['key.revoke', 'key', null],
        ]),
      );
      // A refused change (an unknown mode) wrote nothing: each setting's entries are the changes made.
      expect(events.filter((event) => event.details.setting === 'signInErrors')).toHaveLength(1);
    } finally {
      await database.close();
    }
  });

  it('refuses bad input with a message and a failing exit status', async () => {
    await expect(cli('app', 'create', '--account', 'X', '--name', 'Y', '--plan', 'gold')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/plan/i),
    });
    await expect(cli('key', 'global', '--account', '999999')).rejects.toMatchObject({ stderr: expect.stringMatching(/999999/) });
  });

  it('without -s, npm prints its own lines first, and the CLI says how to get the JSON alone', async () => {
    const { stdout, stderr } = await run('npm', ['run', 'cli', '--', 'account', 'list', '--json'], { env, cwd: process.cwd() });
    expect(stdout).toMatch(/^\s*> marquee@/);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Label One' })]));
    expect(stderr).toContain('npm run -s cli');
  });
});
