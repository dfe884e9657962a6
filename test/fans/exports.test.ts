import { Writable } from 'node:stream';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, members, optins, segments } from '../../src/db/schema/index.js';
import { csvOf, exportRows, filterSource } from '../../src/modules/fans/fan-export.js';
import { signInStaff, type SignedInStaff } from '../support/console.js';
import { insertFans } from '../support/fans.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * The console's downloads: a CSV of 5,000 fans equal to the fans themselves and to x-total-rows,
 * formulas escaped, a segment's fans, a fan's JSON export, the roles, another account's ids, and a
 * download abandoned half way reading no further batches.
 */

let t: TestGateway;
let app: Tenant;
let other: Tenant;
let analyst: SignedInStaff;
let support: SignedInStaff;
let admin: SignedInStaff;
let ids: number[];
let segmentId: number;
let otherSegmentId: number;

async function download(staff: SignedInStaff | null, url: string, headers: Record<string, string> = { 'x-console-csrf': '1' }) {
  const response = await t.request({ method: 'GET', url, headers: { ...headers, ...(staff ? { cookie: staff.cookie } : {}) } });
  return response;
}

/** The CSV's records (a plain split: the test data has no quotes, commas or line breaks but where said). */
function records(body: string): string[][] {
  expect(body.startsWith('\uFEFF')).toBe(true);
  const lines = body.slice(1).split('\r\n');
  expect(lines.at(-1)).toBe('');
  return lines.slice(0, -1).map((line) => line.split(','));
}

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('enterprise');
  other = await t.tenant('enterprise');
  ids = await insertFans(
    t.database.db,
    app.accountId,
    Array.from({ length: 5000 }, (_, i) => ({ email: `export${i}@example.com`, firstName: i === 17 ? '=cmd|calc' : `Fan${i}`, surname: i === 18 ? '+SUM(A1)' : `S${i}` })),
  );
  await t.database.db
    .update(members)
    .set({ country: 'GB' })
    .where(and(eq(members.accountId, app.accountId), eq(members.id, ids[3])));
  // One merged away: never exported.
  await t.database.db
    .update(members)
    .set({ mergedIntoId: ids[0] })
    .where(and(eq(members.accountId, app.accountId), eq(members.id, ids[4])));
  const [segment] = await t.database.db.insert(segments).values({ accountId: app.accountId, name: 'Export list', kind: 'list' }).returning();
  segmentId = segment.id;
  await t.database.db.insert(optins).values(ids.slice(100, 400).map((memberId) => ({ accountId: app.accountId, memberId, kind: 'segment' as const, segmentId })));
  // A past opt-in: not a member of the list now.
  await t.database.db.insert(optins).values({ accountId: app.accountId, memberId: ids[10], kind: 'segment', segmentId, optedInAt: new Date(Date.now() - 86_400_000), optedOutAt: new Date() });
  const [theirs] = await t.database.db.insert(segments).values({ accountId: other.accountId, name: 'Theirs', kind: 'list' }).returning();
  otherSegmentId = theirs.id;
  await insertFans(t.database.db, other.accountId, [{ email: 'not-yours@example.com', firstName: 'Other' }]);
  analyst = await signInStaff(t, { accountId: app.accountId, role: 'analyst' });
  support = await signInStaff(t, { accountId: app.accountId, role: 'support' });
  admin = await signInStaff(t, { accountId: app.accountId, role: 'admin' });
});
afterAll(() => t?.close());

describe('GET /console/fans/export.csv', () => {
  it('lists every current fan of the account, as many as x-total-rows says, formulas escaped', async () => {
    const response = await download(analyst, '/console/fans/export.csv');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.headers['content-disposition']).toContain('attachment');
    const rows = records(response.body);
    expect(rows[0]).toEqual(['id', 'email', 'verified_email', 'first_name', 'surname', 'username', 'gender', 'birth_date', 'country', 'state', 'city', 'post_code', 'created_at', 'last_login_at']);
    const data = rows.slice(1);
    expect(data).toHaveLength(Number(response.headers['x-total-rows']));
    const expected = await t.database.db
      .select({ id: members.id, email: members.email })
      .from(members)
      .where(and(eq(members.accountId, app.accountId), isNull(members.mergedIntoId)))
      .orderBy(asc(members.id));
    expect(data.map((row) => [Number(row[0]), row[1]])).toEqual(expected.map((row) => [row.id, row.email]));
    expect(data).toHaveLength(4999);
    const formula = data.find((row) => Number(row[0]) === ids[17])!;
    expect(formula[3]).toBe("'=cmd|calc");
    expect(data.find((row) => Number(row[0]) === ids[18])![4]).toBe("'+SUM(A1)");
    const [entry] = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, app.accountId), eq(auditEvents.action, 'segment.export'), eq(auditEvents.actorId, analyst.staffId)));
    expect(entry.details).toEqual({ rows: 4999, filter: [] });
  });

  it('narrows by the /v1.1 filter parameters', async () => {
    const response = await download(analyst, '/console/fans/export.csv?country=gb');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-total-rows']).toBe('1');
    expect(
      records(response.body)
        .slice(1)
        .map((row) => Number(row[0])),
    ).toEqual([ids[3]]);
    const bad = await download(analyst, '/console/fans/export.csv?country=Narnia');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ param: 'countries' });
  });
});

describe('GET /console/segments/:id/export.csv', () => {
  it("lists the segment's current members", async () => {
    const response = await download(support, `/console/segments/${segmentId}/export.csv`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-total-rows']).toBe('300');
    expect(
      records(response.body)
        .slice(1)
        .map((row) => Number(row[0])),
    ).toEqual(ids.slice(100, 400));
  });

  it("finds no other account's segment, and refuses a bad id", async () => {
    expect((await download(admin, `/console/segments/${otherSegmentId}/export.csv`)).statusCode).toBe(404);
    expect((await download(admin, '/console/segments/abc/export.csv')).statusCode).toBe(400);
  });
});

describe('GET /console/fans/:id/export.json', () => {
  it('answers everything stored about the fan to a role with fans.export, recorded as fan.export', async () => {
    const response = await download(admin, `/console/fans/${ids[5]}/export.json`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toContain(`fan-${ids[5]}.json`);
    expect(response.json()).toMatchObject({ memberId: ids[5], accountId: app.accountId });
    const entries = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, app.accountId), eq(auditEvents.action, 'fan.export'), eq(auditEvents.targetId, String(ids[5]))));
    expect(entries).toHaveLength(1);
  });

  it('refuses roles without fans.export (FORBIDDEN, the denial recorded, no export), and other accounts’ fans', async () => {
    for (const staff of [analyst, support]) {
      const response = await download(staff, `/console/fans/${ids[6]}/export.json`);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.message).toContain('fans.export');
    }
    const exported = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, app.accountId), eq(auditEvents.action, 'fan.export'), eq(auditEvents.targetId, String(ids[6]))));
    expect(exported).toEqual([]);
    const denied = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, app.accountId), eq(auditEvents.action, 'permission.denied'), eq(auditEvents.actorId, support.staffId)));
    expect(denied.length).toBeGreaterThan(0);
    const [theirs] = await t.database.db.select().from(members).where(eq(members.accountId, other.accountId));
    expect((await download(admin, `/console/fans/${theirs.id}/export.json`)).statusCode).toBe(404);
    expect((await download(admin, '/console/fans/12ab/export.json')).statusCode).toBe(400);
  });
});

describe('every download', () => {
  it('needs a live session, and nothing else of the browser (a GET: a download link can be followed)', async () => {
    expect((await download(null, '/console/fans/export.csv')).statusCode).toBe(401);
    expect((await download({ ...analyst, cookie: 'mq_console=not-a-session' }, '/console/fans/export.csv')).statusCode).toBe(401);
    expect((await download(analyst, `/console/segments/${segmentId}/export.csv`, {})).statusCode).toBe(200);
  });

  it('stops reading batches when the client goes away', async () => {
    let batches = 0;
    const source = await filterSource(t.database.db, app.accountId, {}, undefined);
    const csv = csvOf(exportRows(t.database.db, source, { batchRows: 500, onBatch: () => (batches += 1) }), () => {});
    // A client that takes one chunk and hangs up.
    await new Promise<void>((resolve) => {
      const client = new Writable({
        highWaterMark: 1,
        write(_chunk, _encoding, callback) {
          csv.destroy();
          callback();
          resolve();
        },
      });
      csv.pipe(client);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Ten batches would list every fan; the stream read ahead at most one more than it sent.
    expect(batches).toBeGreaterThan(0);
    expect(batches).toBeLessThanOrEqual(2);
  });
});
