import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { executeRows } from '../../src/db/rows.js';
import { accounts, staffUsers } from '../../src/db/schema/index.js';
import { openDatabase } from '../../src/db/client.js';
import { exportAccountToFile, importAccountFromFile } from '../../src/modules/account-transfer/account-files.js';
import { exportAccount } from '../../src/modules/account-transfer/account-export.js';
import { importAccount, ImportRefused } from '../../src/modules/account-transfer/account-import.js';
import { transferTables } from '../../src/modules/account-transfer/transfer-tables.js';
import { systemOrigin } from '../../src/modules/audit/audit.js';
import { setRecordRetention } from '../../src/modules/retention/retention.js';
import { createApplication } from '../../src/modules/tenancy/tenancy.service.js';
import { signInStaff } from '../support/console.js';
import { createTestDatabase } from '../support/database.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { createActivity, daysAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { temporaryDirectory } from '../support/leftovers.js';

/**
 * One account moved between databases (docs/operations.md, "Moving an account"): exported from a
 * gateway's database, imported into another that already holds accounts (so the global ids
 * collide and are given again), and every answer of the account's API the same there, its key
 * working. A file cut short, a second import of the account or another migration changes nothing.
 */
let source: TestGateway;
let target: DatabaseHandle;
let label: Tenant;
let file: string;
const folder = temporaryDirectory('account-transfer');

/** The account's answers: what an integrator and a front end read. */
async function answers(t: TestGateway, tenant: Tenant, ids: { members: number[]; brand: number }) {
  const rest = async (route: string, params: Record<string, string | number> = {}) => (await t.rest(tenant, 'GET', route, params)).json;
  const graphql = async (query: string) => (await t.graphql(tenant.apiKey, query)).body;
  // The member token each member show issues names the account and application ids and the time:
  // compared apart (it is there, and names the member).
  const { jwt, ...member } = await rest(`/member/${ids.members[0]}`);
  expect(JSON.parse(Buffer.from(String(jwt).split('.')[1], 'base64url').toString()).sub).toBe(String(ids.members[0]));
  return {
    member,
    week: await rest('/members/active'),
    sixMonths: await rest('/members/active', { period: '6 months', totalmembercount: 1 }),
    brand: await rest(`/brand/${ids.brand}`),
    brandMembers: await rest(`/brand/${ids.brand}/members`),
    daily: await rest('/activities/count/daily'),
    feed: await rest('/activity/feed'),
    activities: await rest(`/member/${ids.members[1]}/activities`),
    segments: await rest(`/brand/${ids.brand}/segments`),
    page: await graphql('{ members(first: 10) { totalCount edges { node { id email firstName score { points activityCount } optins { brand { id name } } } } } }'),
  };
}

async function exportTo(db: DatabaseHandle['db'], accountId: number, to: string) {
  const gzip = zlib.createGzip();
  const written = pipeline(gzip, fs.createWriteStream(to, { mode: 0o600 }));
  const header = await exportAccount(db, accountId, gzip);
  gzip.end();
  await written;
  return header;
}

const importFrom = (from: string) => importAccount(target.db, fs.createReadStream(from).pipe(zlib.createGunzip()));
const rowsIn = async (db: DatabaseHandle['db']) => {
  const counts: Record<string, number> = {};
  for (const table of transferTables) counts[table.name] = Number((await executeRows<{ n: string }>(db, sql.raw(`select count(*)::text as n from "${table.name}"`)))[0].n);
  return counts;
};

let ids: { members: number[]; brand: number };
let before: Awaited<ReturnType<typeof answers>>;

beforeAll(async () => {
  source = await startTestGateway();
  label = await source.tenant('enterprise', `moving-label-${process.pid}`);
  const brand = await insertBrand(source, label, 'Moving Band');
  const listen = await createActivity(source, label, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2, brandid: brand });
  const follow = await createActivity(source, label, { name: 'Follow', type: 'Followed', points: 10, onetime: 1, brandid: brand });
  const members = await insertMembers(source, label, [{}, {}, {}]);
  await record(source, label, [
    { activityId: listen, memberId: members[0], completedAt: daysAgo(40) },
    { activityId: listen, memberId: members[1], completedAt: daysAgo(3) },
    { activityId: follow, memberId: members[1], completedAt: daysAgo(2) },
    { activityId: listen, memberId: members[2], completedAt: daysAgo(1), brandId: brand },
  ]);
  const segment = (await source.rest(label, 'POST', '/segment/create', { name: 'Superfans', brandid: brand })).json;
  expect(segment.ID).toBeDefined();
  expect((await source.rest(label, 'POST', `/brand/${brand}/optin`, { id: members[0] })).json.error).toBeUndefined();
  expect((await source.rest(label, 'POST', '/optin', { id: members[2], segmentid: segment.ID })).json.error).toBeUndefined();
  await setRecordRetention(source.database.db, label.accountId, 24, systemOrigin('test'));
  await signInStaff(source, { accountId: label.accountId, role: 'owner', email: `owner-${process.pid}@label.example` });
  await source.gateway.scoreWindows.pass();
  ids = { members, brand };
  before = await answers(source, label, ids);
  // Answers with something in them: a member opted in, a ranking, a segment.
  expect(before.member.optins).not.toEqual([]);
  expect(before.week[0].totalSize).toBe(2);
  expect(JSON.stringify(before.segments)).toContain('Superfans');
  file = path.join(folder, 'label.jsonl.gz');
  // The target already holds accounts: the account's, applications' and keys' ids are taken there.
  target = await createTestDatabase();
  for (const name of ['resident-a', 'resident-b']) await createApplication(target.db, { accountName: `${name}-${process.pid}`, name, plan: 'basic' });
}, 120_000);

afterAll(async () => {
  await source?.close();
  await target?.close();
});

describe('moving an account', () => {
  it('exports it and imports it into another database, where every answer is the same and its key works', async () => {
    const header = await exportTo(source.database.db, label.accountId, file);
    expect(header.account).toEqual({ id: label.accountId, name: `moving-label-${process.pid}` });
    expect(header.counts).toMatchObject({ accounts: 1, applications: 1, api_keys: 1, members: 3, activity_records: 4, staff_users: 1 });
    const other = (await rowsIn(target.db)).members;

    const summary = await importFrom(file);
    expect(summary).toMatchObject({ name: `moving-label-${process.pid}`, exportedId: label.accountId, rows: Object.values(header.counts).reduce((a, b) => a + b, 0) });
    expect(summary.accountId).not.toBe(label.accountId);
    expect((await rowsIn(target.db)).members).toBe(other + 3);

    const there = await startTestGateway({}, target);
    try {
      const moved = { ...label, accountId: summary.accountId };
      expect(await answers(there, moved, ids)).toEqual(before);
      // A new member there gets an id past the moved ones.
      const [fresh] = await insertMembers(there, moved, [{}]);
      expect(fresh).toBeGreaterThan(Math.max(...ids.members));
      const [setting] = await there.database.db.select({ months: accounts.recordRetentionMonths }).from(accounts).where(eq(accounts.id, summary.accountId));
      expect(setting.months).toBe(24);
    } finally {
      await there.close();
    }
  });

  it('refuses the account a second time, writing nothing', async () => {
    const counts = await rowsIn(target.db);
    await expect(importFrom(file)).rejects.toThrow(
      new ImportRefused(
        `this database already holds an account named "moving-label-${process.pid}" (id ${
          (
            await target.db
              .select()
              .from(accounts)
              .where(eq(accounts.name, `moving-label-${process.pid}`))
          )[0].id
        }): nothing was imported`,
      ),
    );
    expect(await rowsIn(target.db)).toEqual(counts);
  });

  it('imports nothing from a file cut short, or made at another migration', async () => {
    const other = await createTestDatabase();
    try {
      const counts = await rowsIn(other.db);
      const whole = fs.readFileSync(file);
      const cut = path.join(folder, 'cut.jsonl.gz');
      fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.7)));
      await expect(importAccount(other.db, fs.createReadStream(cut).pipe(zlib.createGunzip()))).rejects.toThrow(/unexpected end of file|incomplete/);
      expect(await rowsIn(other.db)).toEqual(counts);

      const lines = zlib.gunzipSync(whole).toString('utf8').split('\n');
      const header = JSON.parse(lines[0]) as { migration: number };
      const older = path.join(folder, 'older.jsonl.gz');
      fs.writeFileSync(older, zlib.gzipSync([JSON.stringify({ ...header, migration: header.migration - 1 }), ...lines.slice(1)].join('\n')));
      await expect(importAccount(other.db, fs.createReadStream(older).pipe(zlib.createGunzip()))).rejects.toThrow(/at another migration/);
      expect(await rowsIn(other.db)).toEqual(counts);
      // A row lost from the middle: the header's count and the last line's say so.
      const lossy = path.join(folder, 'lossy.jsonl.gz');
      fs.writeFileSync(lossy, zlib.gzipSync([...lines.slice(0, 5), ...lines.slice(6)].join('\n')));
      await expect(importAccount(other.db, fs.createReadStream(lossy).pipe(zlib.createGunzip()))).rejects.toThrow(/holds \d+: the file is damaged/);
      expect(await rowsIn(other.db)).toEqual(counts);
    } finally {
      await other.close();
    }
  });

  it('keeps a staff member who already signs in to the target as they are there', async () => {
    const other = await createTestDatabase();
    try {
      const [resident] = await other.db
        .insert(staffUsers)
        .values({ email: `OWNER-${process.pid}@label.example`, passwordHash: 'theirs' })
        .returning();
      const summary = await importAccount(other.db, fs.createReadStream(file).pipe(zlib.createGunzip()));
      expect(summary.remapped.staff_users).toBe(1);
      const users = await other.db.select().from(staffUsers);
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({ id: resident.id, passwordHash: 'theirs' });
      const [role] = await executeRows<{ staff_id: number }>(other.db, sql`select staff_id from staff_roles where account_id = ${summary.accountId}`);
      expect(Number(role.staff_id)).toBe(resident.id);
    } finally {
      await other.close();
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('moves an account from the embedded database to PostgreSQL, through the files the CLI writes and reads', async () => {
    const embedded = await startTestGateway({}, await openDatabase({ kind: 'pglite-memory' }));
    try {
      const tenant = await embedded.tenant('advanced', `embedded-label-${process.pid}`);
      const brand = await insertBrand(embedded, tenant, 'Embedded Band');
      const listen = await createActivity(embedded, tenant, { name: 'Listen', type: 'Listened', points: 3, brandid: brand });
      const members = await insertMembers(embedded, tenant, [{}, {}]);
      await record(embedded, tenant, [
        { activityId: listen, memberId: members[0], completedAt: daysAgo(2) },
        { activityId: listen, memberId: members[1], completedAt: daysAgo(1) },
      ]);
      await embedded.gateway.scoreWindows.pass();
      const expected = await answers(embedded, tenant, { members, brand });
      const exported = path.join(folder, 'embedded.jsonl.gz');
      await exportAccountToFile(embedded.database.db, tenant.accountId, exported, { origin: systemOrigin('test') });
      expect(fs.statSync(exported).mode & 0o777).toBe(0o600);
      const summary = await importAccountFromFile(target.db, exported, { origin: systemOrigin('test') });
      const there = await startTestGateway({}, target);
      try {
        expect(await answers(there, { ...tenant, accountId: summary.accountId }, { members, brand })).toEqual(expected);
        const logged = await executeRows<{ action: string }>(target.db, sql`select action from audit_events where account_id = ${summary.accountId} and action = 'account.import'`);
        expect(logged).toHaveLength(1);
      } finally {
        await there.close();
      }
    } finally {
      await embedded.close();
      await embedded.database.close();
    }
  });
});
