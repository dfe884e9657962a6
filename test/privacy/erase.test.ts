import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { is, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../src/db/rows.js';
import * as schema from '../../src/db/schema/index.js';
import { activityQueue, emailOutbox, loginEvents, signInTokens, widgetSessions } from '../../src/db/schema/index.js';
import { brandMemberTotal, settleBrandMembers } from '../../src/modules/brands/brand-members.queries.js';
import { createEmailHasher } from '../../src/modules/audit/audit-keys.js';
import { coverUntil } from '../../src/modules/scoring/score-windows.worker.js';
import { createActivity, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { startTestGateway, testSecretKey, type Tenant, type TestGateway } from '../support/gateway.js';
import { expectGroupsExact, keptDaysExact, keptTotalsExact } from '../support/kept-structures.js';

/**
 * Erasing a fan (GDPR article 17) through POST /v1.1/member/:id/delete and GraphQL deleteMember:
 * afterwards no table holds a row of theirs or their address, the audit log holds the erasure with
 * a keyed hash of the address only, and statistics and rankings answer as the brute force over
 * what remains, as if the fan had never been.
 */
let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
let brand: number;
let listen: number;
let others: number[];
let strangerFan: number;

const sixMonths = { period: { amount: 6, unit: 'MONTH' } };

async function gql(tenant: Tenant, query: string, variables: Record<string, unknown> = {}) {
  const { body } = await t.graphql(tenant.apiKey, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

let n = 0;
async function registerFan(tenant: Tenant): Promise<{ id: number; email: string; accessToken: string }> {
  const email = `Erase.Me${++n}-${tenant.accountId}@Example.com`;
  const data = await gql(
    tenant,
    `mutation ($email: String!) {
      registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" }, profile: { firstName: "Zelda", surname: "Quartz" } }) {
        member { id accessToken }
      }
    }`,
    { email },
  );
  return { id: Number(data.registerMember.member.id), email: email.toLowerCase(), accessToken: data.registerMember.member.accessToken };
}

/** Everything a fan comes to have: records, opt-ins, sessions, tokens, mails, logins, a merged twin, a queued record. */
async function livedFan(tenant: Tenant, activityId: number, brandId: number) {
  const fan = await registerFan(tenant);
  const twin = await registerFan(tenant);
  await record(t, tenant, [
    { activityId, memberId: twin.id, completedAt: hoursAgo(50) },
    ...[3, 5, 30, 70].map((hours) => ({ activityId, memberId: fan.id, completedAt: hoursAgo(hours), content: { note: fan.email } })),
  ]);
  await gql(tenant, 'mutation ($into: ID!, $from: ID!, $token: String!) { mergeMembers(intoId: $into, fromId: $from, fromAccessToken: $token) { member { id } } }', {
    into: String(fan.id),
    from: String(twin.id),
    token: twin.accessToken,
  });
  await gql(tenant, 'mutation ($input: OptInInput!) { optIn(input: $input) { id } }', { input: { memberId: String(fan.id), brandId: String(brandId) } });
  await gql(tenant, 'mutation ($id: ID!) { sendVerificationEmail(id: $id) }', { id: String(fan.id) });
  await gql(tenant, 'mutation ($email: String!) { requestPasswordReset(email: $email) }', { email: fan.email });
  const db = t.database.db;
  const future = new Date(Date.now() + 3600_000);
  await db.insert(widgetSessions).values({ accountId: tenant.accountId, applicationId: tenant.applicationId, memberId: fan.id, sessionHash: `h-${fan.id}`, expiresAt: future });
  await db.insert(signInTokens).values({ accountId: tenant.accountId, applicationId: tenant.applicationId, memberId: fan.id, tokenHash: `t-${fan.id}`, expiresAt: future });
  await db.insert(loginEvents).values({ accountId: tenant.accountId, memberId: fan.id, kind: 'login', network: 'email', ip: '198.51.100.7', userAgent: 'Fan browser' });
  // A mail from before the outbox kept the member, and a record accepted with async=1 not stored yet.
  await db.insert(emailOutbox).values({ accountId: tenant.accountId, kind: 'verify-email', recipient: fan.email.toUpperCase(), subject: 'Old', body: `Hello ${fan.email}` });
  await db.insert(activityQueue).values({ accountId: tenant.accountId, applicationId: tenant.applicationId, payload: { activityId: String(activityId), memberId: String(fan.id) } });
  return { ...fan, twin: twin.id };
}

/** The account's ranking over six months: member ids and scores, best first. */
async function ranking(tenant: Tenant) {
  const data = await gql(tenant, 'query ($window: WindowInput) { members(first: 100, window: $window) { edges { node { id score { points } } } } }', { window: sixMonths });
  return (data.members.edges as { node: { id: string; score: { points: number } } }[]).map(({ node }) => [Number(node.id), node.score.points]);
}

/** The same ranking from the raw records: points per member, ties by id descending as the listing orders them. */
async function bruteRanking(tenant: Tenant) {
  const rows = await executeRows<{ id: number; score: number }>(
    t.database.db,
    sql`select m.id, coalesce(sum(r.points) filter (where r.completed_at >= now() - interval '6 months' and not r.one_time), 0)::int as score
      from members m left join activity_records r on r.account_id = m.account_id and r.member_id = m.id
      where m.account_id = ${tenant.accountId} and m.merged_into_id is null group by m.id`,
  );
  return rows.map((row) => [Number(row.id), Number(row.score)]).filter(([, score]) => score > 0);
}

async function brandReport(tenant: Tenant, brandId: number) {
  const data = await gql(tenant, 'query ($id: ID!, $window: WindowInput) { brandStats(brandId: $id) { members { totalMembers } activity(window: $window) { totalCount totalMembers } } }', {
    id: String(brandId),
    window: sixMonths,
  });
  return data.brandStats;
}

/** The brand's records and their distinct members over six months, from the raw records. */
async function bruteBrandActivity(tenant: Tenant, brandId: number) {
  const [row] = await executeRows<{ records: number; members: number }>(
    t.database.db,
    sql`select count(*)::int as records, count(distinct member_id)::int as members from activity_records
      where account_id = ${tenant.accountId} and brand_id = ${brandId} and completed_at >= now() - interval '6 months'`,
  );
  return { totalCount: Number(row.records), totalMembers: Number(row.members) };
}

beforeAll(async () => {
  t = await startTestGateway();
  // The queued record stays queued until the erasure: no worker stores it meanwhile.
  await t.gateway.activityQueue.stop();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  brand = await insertBrand(t, app, 'Erasure Records');
  listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brand, points: 3 });
  others = await insertMembers(t, app, [{ country: 'GB' }, { country: 'US' }, { country: 'US' }]);
  await record(t, app, [...others.map((memberId, i) => ({ activityId: listen, memberId, completedAt: hoursAgo(4 + i) })), { activityId: listen, memberId: others[0], completedAt: hoursAgo(40) }]);
  const strangerBrand = await insertBrand(t, stranger, 'Their Records');
  const strangerListen = await createActivity(t, stranger, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: strangerBrand, points: 3 });
  strangerFan = (await livedFan(stranger, strangerListen, strangerBrand)).id;
});

afterAll(() => t?.close());

/** Every table's member-id columns and text columns, from the schema, as scripts/tenancy reads it. */
function tablesToWalk() {
  return (Object.values(schema) as unknown[])
    .filter((value): value is PgTable => is(value, PgTable))
    .map((table) => getTableConfig(table))
    .map((config) => ({
      name: config.name,
      hasAccount: config.columns.some((column) => column.name === 'account_id'),
      memberColumns: config.columns.map((column) => column.name).filter((name) => /(^|_)member_id$|^merged_into_id$/.test(name) || (config.name === 'members' && name === 'id')),
      textColumns: config.columns.filter((column) => ['string', 'json'].includes(column.dataType)).map((column) => column.name),
    }));
}

async function traces(accountId: number, ids: readonly number[], email: string): Promise<string[]> {
  const found: string[] = [];
  for (const table of tablesToWalk()) {
    const scope = table.hasAccount ? sql`account_id = ${accountId}` : sql`true`;
    for (const column of table.memberColumns) {
      const [row] = await executeRows<{ n: number }>(
        t.database.db,
        sql`select count(*)::int as n from ${sql.identifier(table.name)} where ${scope} and ${sql.identifier(column)} = any(${`{${ids.join(',')}}`}::int[])`,
      );
      if (Number(row.n)) found.push(`${table.name}.${column}`);
    }
    for (const column of table.textColumns) {
      const [row] = await executeRows<{ n: number }>(
        t.database.db,
        sql`select count(*)::int as n from ${sql.identifier(table.name)} where ${scope} and lower(${sql.identifier(column)}::text) like ${`%${email}%`}`,
      );
      if (Number(row.n)) found.push(`${table.name}.${column} (address)`);
    }
  }
  const [queued] = await executeRows<{ n: number }>(
    t.database.db,
    sql`select count(*)::int as n from activity_queue where account_id = ${accountId} and payload->>'memberId' = any(${`{${ids.join(',')}}`}::text[])`,
  );
  if (Number(queued.n)) found.push('activity_queue.payload');
  return found;
}

describe('erasing a fan', () => {
  it('leaves nothing of theirs in any table, statistics and rankings as if they had never been', async () => {
    const fan = await livedFan(app, listen, brand);
    await coverUntil(t.database.db, app.accountId, new Date(Date.now() - 60_000));
    // Before: the fan is everywhere the walk looks, and counts in the reports.
    expect(await traces(app.accountId, [fan.id, fan.twin], fan.email)).toEqual(
      expect.arrayContaining([
        'members.id',
        'activity_records.member_id',
        'optins.member_id',
        'email_outbox.member_id',
        'widget_sessions.member_id',
        'members.merged_into_id',
        'email_outbox.recipient (address)',
        'activity_queue.payload',
      ]),
    );
    const before = { ranking: await ranking(app), report: await brandReport(app, brand) };
    expect(before.report.activity).toEqual(await bruteBrandActivity(app, brand));
    expect(before.ranking.map(([id]) => id)).toContain(fan.id);

    const answer = await t.rest(app, 'POST', `/member/${fan.id}/delete`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ Result: true });

    expect(await traces(app.accountId, [fan.id, fan.twin], fan.email)).toEqual([]);
    // Rankings and reports: the others exactly as before, and each equal to the brute force over what remains.
    expect(await ranking(app)).toEqual(before.ranking.filter(([id]) => id !== fan.id));
    expect((await ranking(app)).sort()).toEqual((await bruteRanking(app)).sort());
    const after = await brandReport(app, brand);
    expect(after.members.totalMembers).toBe(before.report.members.totalMembers - 1);
    expect(after.activity).toEqual(await bruteBrandActivity(app, brand));
    expect(after.activity.totalMembers).toBe(before.report.activity.totalMembers - 1);
    expect(await brandMemberTotal(t.database.db, app.accountId, brand)).toBe(others.length);
    await keptTotalsExact(t.database.db, app.accountId);
    await expectGroupsExact(t.database.db, app.accountId);
    await keptDaysExact(t.database.db, app.accountId);
    // Settling later finds nothing of the fan's to do.
    await settleBrandMembers(t.database.db, app.accountId);
    expect(await brandMemberTotal(t.database.db, app.accountId, brand)).toBe(others.length);

    // The audit log: the erasure, by the key, naming the member id and a keyed hash of the address only.
    const log = await gql(app, 'query ($filter: AuditFilter) { auditEvents(filter: $filter) { nodes { action actor { type } target { id } details } } }', {
      filter: { action: 'fan.erase' },
    });
    expect(log.auditEvents.nodes).toEqual([{ action: 'fan.erase', actor: { type: 'api_key' }, target: { id: String(fan.id) }, details: { emailHmac: createEmailHasher(testSecretKey)(fan.email) } }]);
    // The fan's id answers as not found afterwards, as does the merged twin's.
    for (const id of [fan.id, fan.twin]) expect((await t.rest(app, 'GET', `/member/${id}`)).status).toBe(404);
  });

  it('is the same operation through GraphQL, answering true', async () => {
    const fan = await registerFan(app);
    expect(await gql(app, 'mutation ($id: ID!) { deleteMember(id: $id) }', { id: String(fan.id) })).toEqual({ deleteMember: true });
    expect(await traces(app.accountId, [fan.id], fan.email)).toEqual([]);
  });

  it("answers another tenant's fan, an unknown id and a bad id as errors, and erases nothing", async () => {
    const count = async () => (await executeRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from members`))[0].n;
    const audits = async () => (await executeRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit_events where action = 'fan.erase'`))[0].n;
    const [members, erasures] = [await count(), await audits()];
    const foreign = await t.rest(app, 'POST', `/member/${strangerFan}/delete`);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error).toMatchObject({ type: 'NOT_FOUND', param: 'id' });
    expect((await t.rest(app, 'POST', '/member/999999999/delete')).status).toBe(404);
    const bad = await t.rest(app, 'POST', '/member/abc/delete');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: 'INVALID_PARAMETER', param: 'id' });
    const { body } = await t.graphql(app.apiKey, 'mutation { deleteMember(id: "-3") }');
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'id' });
    expect([await count(), await audits()]).toEqual([members, erasures]);
    // The stranger's fan is whole.
    expect((await t.rest(stranger, 'GET', `/member/${strangerFan}`)).status).toBe(200);
  });
});
