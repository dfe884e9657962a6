import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { migrationsFolder } from '../../src/db/paths.js';
import { demoWhitelist, ensureDemoAccount } from '../../src/modules/tenancy/demo.js';
import { listAccounts, listWhitelist } from '../../src/modules/tenancy/tenancy.queries.js';
import { resolveApiKey } from '../../src/modules/tenancy/tenancy.service.js';
import { createTestDatabase } from '../support/database.js';
import { startTestGateway } from '../support/gateway.js';
import { temporaryDirectory } from '../support/leftovers.js';

/** What the first start on a database does: migrations with progress, the demo account, and errors that name the setting. */

const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
const migrationCount = journal.entries.length;

function expectProgress(messages: string[]) {
  expect(messages[0]).toBe(`applying ${migrationCount} migrations`);
  expect(messages[1]).toMatch(new RegExp(`^migration 1/${migrationCount} ${journal.entries[0].tag} applied in \\d+ ms$`));
  expect(messages.at(-2)).toMatch(new RegExp(`^migration ${migrationCount}/${migrationCount} ${journal.entries.at(-1)!.tag} applied in \\d+ ms$`));
  expect(messages.at(-1)).toMatch(/^migrations applied in \d+\.\d s$/);
  expect(messages).toHaveLength(migrationCount + 2);
}

describe('migrations at start', () => {
  it('name each migration they apply and how long it took, and say nothing when none is pending', { timeout: 60_000 }, async () => {
    const messages: string[] = [];
    const progress = (message: string) => void messages.push(message);
    if (process.env.TEST_DATABASE_URL) {
      // A new PostgreSQL database: every migration runs.
      // Made the slow way on a cluster too (not copied from the migrated template): every migration pending.
      const database = await createTestDatabase({ progress, distribute: false });
      expectProgress(messages);
      await database.close();
    } else {
      // In memory without the saved template, so every migration runs.
      const client = new PGlite();
      await applyMigrations(drizzle(client), progress);
      expectProgress(messages);
      messages.length = 0;
      await applyMigrations(drizzle(client), progress);
      expect(messages).toEqual([]);
      await client.close();
    }
  });
});

describe('an unreachable database', () => {
  it('is named by its setting, with the password hidden', async () => {
    const url = 'postgres://marquee:s3cret-word@127.0.0.1:1/nowhere';
    const failure = await openDatabase({ kind: 'postgres', url, readUrl: undefined, poolSize: 1 }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/^could not connect to the database at DATABASE_URL=postgres:\/\/marquee:\*\*\*@127\.0\.0\.1:1\/nowhere \(password hidden\): .*ECONNREFUSED/);
    expect(failure?.message).not.toContain('s3cret-word');
  });

  it('an embedded data directory that cannot be made names DATA_DIR', async () => {
    const file = path.join(temporaryDirectory('startup'), 'a-file');
    fs.writeFileSync(file, '');
    const failure = await openDatabase({ kind: 'pglite', dataDir: path.join(file, 'pglite') }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/could not open the embedded database in .*a-file\/pglite \(DATA_DIR\)/);
  });
});

describe('the demo account', () => {
  let database: DatabaseHandle;
  const dataDirs = [0, 1].map(() => temporaryDirectory('demo'));

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.close());

  it('is created once on an empty database, even by gateways starting together, and its key is shown again', async () => {
    const [first, second] = await Promise.all(dataDirs.map((dir) => ensureDemoAccount(database.db, dir)));
    const made = [first, second].filter((credentials) => credentials?.created);
    expect(made).toHaveLength(1);
    expect(await listAccounts(database.db)).toHaveLength(1);
    const demo = made[0]!;
    expect(await resolveApiKey(database.db, demo.apiKey)).toMatchObject({ kind: 'application', plan: 'enterprise' });

    const dir = first?.created ? dataDirs[0] : dataDirs[1];
    expect(await ensureDemoAccount(database.db, dir)).toEqual({ ...demo, created: false });
    // A key file from another database does not stop anything, and a database with accounts gets no new one.
    const stranger = temporaryDirectory('demo');
    fs.writeFileSync(path.join(stranger, 'demo-key.json'), JSON.stringify({ accountId: 9, applicationId: 9, apiKey: 'mq_from_elsewhere' }));
    expect(await ensureDemoAccount(database.db, stranger)).toBeUndefined();
    expect(await listAccounts(database.db)).toHaveLength(1);
  });
});

describe("the demo application's whitelist", () => {
  it('holds this machine outside production, so the sign-in page app/info advertises opens for a page here; nothing in production', { timeout: 60_000 }, async () => {
    expect(demoWhitelist('development')).toEqual(['localhost', '127.0.0.1']);
    expect(demoWhitelist('test')).toEqual(['localhost', '127.0.0.1']);
    expect(demoWhitelist('production')).toEqual([]);

    const database = await createTestDatabase();
    const t = await startTestGateway({}, database);
    try {
      const demo = (await ensureDemoAccount(database.db, temporaryDirectory('demo'), { whitelist: demoWhitelist('development') }))!;
      expect(await listWhitelist(database.db, demo.accountId, demo.applicationId)).toEqual(['127.0.0.1', 'localhost']);
      const info = (await t.rest(demo, 'GET', '/app/info')).json;
      expect(info.Whitelist).toEqual(['127.0.0.1', 'localhost']);
      const loginUrl = new URL(info.LoginURL);
      expect(loginUrl.pathname).toBe(`/framework/flow/${demo.applicationId}/login`);
      const page = await t.request({ url: `${loginUrl.pathname}?return=${encodeURIComponent('http://localhost:4000/')}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<form');
      // Another site's page is still refused: only this machine was added.
      expect((await t.request({ url: `${loginUrl.pathname}?return=${encodeURIComponent('https://example.com/')}` })).statusCode).toBe(403);
      // Only the account made at first start: a later start finds the key and changes nothing.
      await database.db.execute(sql`delete from whitelisted_domains`);
      expect(await ensureDemoAccount(database.db, temporaryDirectory('demo'), { whitelist: demoWhitelist('development') })).toBeUndefined();
      expect(await listWhitelist(database.db, demo.accountId, demo.applicationId)).toEqual([]);
    } finally {
      await t.close();
      await database.close();
    }
  });

  it('stays empty for a demo account made in production (DEMO_ACCOUNT=1)', async () => {
    const database = await createTestDatabase();
    try {
      const demo = (await ensureDemoAccount(database.db, temporaryDirectory('demo'), { whitelist: demoWhitelist('production') }))!;
      expect(demo.created).toBe(true);
      expect(await listWhitelist(database.db, demo.accountId, demo.applicationId)).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
