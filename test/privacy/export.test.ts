import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { executeRows } from '../../src/db/rows.js';
import { activityRecords, loginEvents, widgetSessions } from '../../src/db/schema/index.js';
import { exportMember } from '../../src/modules/privacy/member-export.js';
import { exportPageSize } from '../../src/modules/privacy/privacy.queries.js';
import { systemOrigin } from '../../src/modules/audit/audit.js';
import { createActivity, hoursAgo, insertBrand, record } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * A fan's data export (GDPR articles 15 and 20): GET /v1.1/member/:id/export and GraphQL
 * memberExport answer one document with every part, never a secret, read in bounded statements,
 * and recorded in the audit log as fan.export.
 */
let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
let fan: { id: number; email: string; accessToken: string };
let listen: number;
let brand: number;

async function gql(tenant: Tenant, query: string, variables: Record<string, unknown> = {}) {
  const { body } = await t.graphql(tenant.apiKey, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

let n = 0;
async function registerFan(tenant: Tenant) {
  const email = `export${++n}-${tenant.accountId}@example.com`;
  const data = await gql(
    tenant,
    `mutation ($email: String!) {
      registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" }, profile: { firstName: "Ada", country: "GB" } }) { member { id accessToken } }
    }`,
    { email },
  );
  return { id: Number(data.registerMember.member.id), email, accessToken: data.registerMember.member.accessToken as string };
}

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  brand = await insertBrand(t, app, 'Export Records');
  listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brand, points: 2 });
  fan = await registerFan(app);
  const twin = await registerFan(app);
  await record(t, app, [{ activityId: listen, memberId: fan.id, completedAt: hoursAgo(2), content: { track: 'one' } }]);
  await gql(app, 'mutation ($into: ID!, $from: ID!, $token: String!) { mergeMembers(intoId: $into, fromId: $from, fromAccessToken: $token) { member { id } } }', {
    into: String(fan.id),
    from: String(twin.id),
    token: twin.accessToken,
  });
  await gql(app, 'mutation ($input: OptInInput!) { optIn(input: $input) { id } }', { input: { memberId: String(fan.id), brandId: String(brand) } });
  await gql(app, 'mutation ($id: ID!) { sendVerificationEmail(id: $id) }', { id: String(fan.id) });
  await gql(app, 'mutation ($id: ID!) { updateMember(id: $id, input: { surname: "Lovelace" }) { member { id } } }', { id: String(fan.id) });
  await t.database.db
    .insert(widgetSessions)
    .values({ accountId: app.accountId, applicationId: app.applicationId, memberId: fan.id, sessionHash: 'secret-digest', expiresAt: new Date(Date.now() + 3600_000) });
  await t.database.db.insert(loginEvents).values({ accountId: app.accountId, memberId: fan.id, kind: 'login', network: 'email', ip: '198.51.100.9' });
});

afterAll(() => t?.close());

describe("a fan's export", () => {
  it('answers every part over REST, without a secret, and records fan.export', async () => {
    const answer = await t.rest(app, 'GET', `/member/${fan.id}/export`);
    expect(answer.status).toBe(200);
    const document = answer.json;
    expect(document).toMatchObject({ schemaVersion: 1, accountId: app.accountId, memberId: fan.id, profile: { id: fan.id, email: fan.email, firstName: 'Ada', surname: 'Lovelace', country: 'GB' } });
    expect(Object.keys(document).sort()).toEqual(
      [
        'accountId',
        'activityRecords',
        'auditEvents',
        'domains',
        'emailLinks',
        'emails',
        'exportedAt',
        'loginEvents',
        'memberId',
        'mergedMemberIds',
        'optIns',
        'presaveResults',
        'profile',
        'schemaVersion',
        'segments',
        'services',
        'sessions',
        'signInTokens',
      ].sort(),
    );
    expect(document.mergedMemberIds).toHaveLength(1);
    expect(document.services.map((service: { network: string; uid: string }) => [service.network, service.uid]).sort()).toEqual(
      [
        ['email', fan.email],
        ['email', `export2-${app.accountId}@example.com`],
      ].sort(),
    );
    expect(document.optIns).toEqual([expect.objectContaining({ kind: 'brand', brandId: brand, optedOutAt: null, optedInAt: expect.any(String) })]);
    expect(document.activityRecords).toEqual([expect.objectContaining({ activityId: listen, brandId: brand, points: 2, content: { track: 'one' } })]);
    expect(document.loginEvents.map((event: { ip: string }) => event.ip)).toContain('198.51.100.9');
    expect(document.sessions).toHaveLength(1);
    expect(document.emails).toEqual([expect.objectContaining({ kind: 'verify-email', recipient: fan.email })]);
    expect(document.emailLinks).toEqual([expect.objectContaining({ purpose: 'verify', email: fan.email })]);
    expect(document.auditEvents.map((event: { action: string }) => event.action).sort()).toEqual(['fan.edit', 'fan.merge', 'fan.verification_sent']);
    // No secret of the gateway's: tokens, hashes, digests, the mail's body with its live link.
    const text = answer.body;
    for (const secret of ['passwordHash', 'tokenSealed', 'accessTokenHash', 'accessTokenSealed', 'sessionHash', 'secret-digest', 'secretHash', 'tokenHash', 'argon2', '"body"', fan.accessToken])
      expect(text).not.toContain(secret);
    const audit = await gql(app, 'query ($filter: AuditFilter) { auditEvents(filter: $filter) { nodes { action actor { type } } } }', { filter: { memberId: String(fan.id), action: 'fan.export' } });
    expect(audit.auditEvents.nodes).toEqual([{ action: 'fan.export', actor: { type: 'api_key' } }]);
  });

  it('answers the same document over GraphQL, by a merged id too', async () => {
    const [merged] = (await t.rest(app, 'GET', `/member/${fan.id}/export`)).json.mergedMemberIds;
    const data = await gql(app, 'query ($id: ID!) { memberExport(id: $id) }', { id: String(merged) });
    expect(data.memberExport).toMatchObject({ memberId: fan.id, profile: { email: fan.email } });
  });

  it('reads a fan with many records in pages of a bounded size, each once, in order', async () => {
    const total = exportPageSize * 2 + 7;
    const base = Date.now() - 10 * 86_400_000;
    await t.database.db.insert(activityRecords).values(
      Array.from({ length: total }, (_, i) => ({
        accountId: app.accountId,
        memberId: fan.id,
        activityId: listen,
        points: 1,
        // Pairs of records at the same instant: the keyset breaks the tie by id.
        completedAt: new Date(base + Math.floor(i / 2) * 1000),
      })),
    );
    const document = await exportMember(t.database.db, app.accountId, fan.id, systemOrigin('test'));
    const ids = document.activityRecords.map((row) => row.id);
    expect(ids).toHaveLength(total + 1);
    expect(new Set(ids).size).toBe(ids.length);
    const [{ n: stored }] = await executeRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from activity_records where account_id = ${app.accountId} and member_id = ${fan.id}`);
    expect(Number(stored)).toBe(total + 1);
    const times = document.activityRecords.map((row) => row.completedAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("answers another tenant's fan, an unknown id and a bad id as errors, and records nothing", async () => {
    const exports = async () => (await executeRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit_events where action = 'fan.export'`))[0].n;
    const before = await exports();
    const foreign = await t.rest(stranger, 'GET', `/member/${fan.id}/export`);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error).toMatchObject({ type: 'NOT_FOUND', param: 'id' });
    expect((await t.rest(app, 'GET', '/member/999999999/export')).status).toBe(404);
    const bad = await t.rest(app, 'GET', '/member/x1/export');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: 'INVALID_PARAMETER', param: 'id' });
    const { body } = await t.graphql(stranger.apiKey, 'query ($id: ID!) { memberExport(id: $id) }', { id: String(fan.id) });
    expect(body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
    expect(await exports()).toBe(before);
    expect((await t.rest(null, 'GET', `/member/${fan.id}/export`)).status).toBe(401);
  });
});
