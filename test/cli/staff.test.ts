import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { listAuditEvents } from '../../src/modules/audit/audit.js';
import { verifyPassword } from '../../src/modules/identity/passwords.js';
import { findStaffByEmail } from '../../src/modules/staff/staff.queries.js';
import { temporaryDirectory } from '../support/leftovers.js';

/**
 * `marquee staff add|list|remove` as operators call them (`npm run -s cli -- … --json`), against the
 * embedded database of a temporary DATA_DIR.
 */
const run = promisify(execFile);
const dataDir = temporaryDirectory('cli-staff');
const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent', PUBLIC_URL: 'https://fans.example.com' };

async function cli(...args: string[]) {
  const { stdout } = await run('npm', ['run', '-s', 'cli', '--', ...args, '--json'], { env, cwd: process.cwd() });
  return JSON.parse(stdout);
}

/** The CLI with `input` on its standard input. */
function cliWithInput(input: string, ...args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'cli', '--', ...args, '--json'], { env, cwd: process.cwd() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(Object.assign(new Error(stderr), { code, stderr }))));
    child.stdin.end(input);
  });
}

async function inDatabase<T>(work: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>): Promise<T> {
  const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

describe('npm run cli -- staff', { timeout: 180_000 }, () => {
  let accountId: number;

  it('staff add prints a one-time sign-in link on the public URL; with --password-stdin, sets the password instead', async () => {
    accountId = (await cli('account', 'create', '--name', 'Label Staff')).accountId;
    const invited = await cli('staff', 'add', '--account', 'Label Staff', '--email', 'Owner@Example.com', '--role', 'owner');
    expect(invited).toEqual({
      accountId,
      staffId: expect.any(Number),
      email: 'Owner@Example.com',
      role: 'owner',
      link: expect.stringMatching(new RegExp(`^https://fans\\.example\\.com/console/invite#${accountId}\\.[A-Za-z0-9_-]{43}$`)),
      linkExpiresAt: expect.any(String),
    });

    const added = await cliWithInput('correct horse battery\n', 'staff', 'add', '--account', String(accountId), '--email', 'analyst@example.com', '--role', 'analyst', '--password-stdin');
    expect(added).toMatchObject({ role: 'analyst', link: null, linkExpiresAt: null });
    const stored = await inDatabase((db) => findStaffByEmail(db, 'analyst@example.com'));
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await verifyPassword(stored.passwordHash!, 'correct horse battery')).ok).toBe(true);
  });

  it('staff list shows the account staff, never a password or a link', async () => {
    const listed = await cli('staff', 'list', '--account', 'Label Staff');
    expect(listed).toEqual([
      { staffId: expect.any(Number), email: 'analyst@example.com', role: 'analyst', addedAt: expect.any(String), passwordSet: true, secondFactorEnabled: false },
      { staffId: expect.any(Number), email: 'Owner@Example.com', role: 'owner', addedAt: expect.any(String), passwordSet: false, secondFactorEnabled: false },
    ]);
  });

  it('refuses bad input, a second add of the same person and removing the last owner, changing nothing', async () => {
    await expect(cli('staff', 'add', '--account', 'Label Staff', '--email', 'x@example.com', '--role', 'boss')).rejects.toMatchObject({ stderr: expect.stringMatching(/owner, admin, support or analyst/) });
    await expect(cli('staff', 'add', '--account', 'Label Staff', '--email', 'not an email', '--role', 'admin')).rejects.toMatchObject({ stderr: expect.stringMatching(/email/) });
    await expect(cli('staff', 'add', '--account', 'Label Staff', '--email', 'owner@example.com', '--role', 'admin')).rejects.toMatchObject({
      stderr: expect.stringMatching(/already on this account's staff/),
    });
    await expect(cliWithInput('short\n', 'staff', 'add', '--account', 'Label Staff', '--email', 'y@example.com', '--role', 'admin', '--password-stdin')).rejects.toMatchObject({
      stderr: expect.stringMatching(/at least 8 characters/),
    });
    await expect(cli('staff', 'add', '--account', 'No Such Label', '--email', 'z@example.com', '--role', 'admin')).rejects.toMatchObject({ stderr: expect.stringMatching(/No account No Such Label/) });
    await expect(cli('staff', 'remove', '--account', 'Label Staff', '--email', 'owner@example.com')).rejects.toMatchObject({ stderr: expect.stringMatching(/last owner/) });
    expect(await cli('staff', 'list', '--account', 'Label Staff')).toHaveLength(2);
  });

  it('staff remove takes the person off the account, recorded in the audit log as the CLI', async () => {
    expect(await cli('staff', 'remove', '--account', 'Label Staff', '--email', 'ANALYST@example.com')).toMatchObject({ accountId, email: 'analyst@example.com', removed: true });
    expect(await cli('staff', 'list', '--account', 'Label Staff')).toEqual([expect.objectContaining({ email: 'Owner@Example.com' })]);
    await expect(cli('staff', 'remove', '--account', 'Label Staff', '--email', 'analyst@example.com')).rejects.toMatchObject({ stderr: expect.stringMatching(/not found/) });
    const { events } = await inDatabase((db) => listAuditEvents(db, accountId, {}, { first: 10 }));
    expect(events.map((event) => [event.action, event.actorType, event.actorLabel])).toEqual([
      ['staff.remove', 'system', 'cli'],
      ['staff.password', 'system', 'cli'],
      ['staff.add', 'system', 'cli'],
      ['staff.add', 'system', 'cli'],
    ]);
  });
});
