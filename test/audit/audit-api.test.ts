import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { executeRows } from '../../src/db/rows.js';
import { createApplication, createGlobalKey } from '../../src/modules/tenancy/tenancy.service.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * The audit log through the public API: changes made with a key are recorded (who, what, from
 * where, which request), reads are not, and GET /v1.1/account/audit and GraphQL auditEvents answer
 * the calling key's account only, filtered and paged, refusing bad parameters by name.
 */
let t: TestGateway;
let app: Tenant;
let sibling: Tenant;
let stranger: Tenant;
let fan: { id: string; email: string; jwt: string };
let keyId: string;

const log = `query ($filter: AuditFilter, $first: Int, $after: String) {
  auditEvents(filter: $filter, first: $first, after: $after) {
    nodes { id occurredAt actor { type id label } action target { type id } outcome details ip userAgent requestId }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function gql(tenant: Tenant, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const { body } = await t.graphql(tenant.apiKey, query, variables, { headers });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

const entries = async (tenant: Tenant, filter: Record<string, unknown> = {}) => (await gql(tenant, log, { filter, first: 200 })).auditEvents.nodes as Record<string, any>[];
const stored = async () => Number((await executeRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from audit_events`))[0].n);

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced', 'audit-label');
  const second = await createApplication(t.database.db, { accountName: 'audit-label', name: 'second app', plan: 'basic' });
  sibling = { accountId: second.account.id, applicationId: second.application.id, apiKey: second.apiKey };
  stranger = await t.tenant('advanced');
  const email = `audited-${Date.now()}@example.com`;
  const data = await gql(app, 'mutation ($email: String!) { registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" } }) { member { id } jwt } }', { email });
  fan = { id: data.registerMember.member.id, email, jwt: data.registerMember.jwt };
  // The stranger's own entries, which the app must never see.
  await gql(stranger, 'mutation { whitelistDomain(domain: "stranger.example.com") { id } }');
});

afterAll(() => t?.close());

describe('changes made with an API key', () => {
  it('are recorded with the key, the client and the request, never the values', async () => {
    const before = await stored();
    await gql(
      app,
      'mutation ($id: ID!) { updateMember(id: $id, input: { firstName: "Grace", country: "GB" }) { member { id } } }',
      { id: fan.id },
      { 'user-agent': 'Label CRM/2.1', 'x-request-id': 'crm-edit-1' },
    );
    await gql(app, 'mutation ($id: ID!) { revokeMemberSessions(id: $id) { member { id } } }', { id: fan.id });
    await gql(app, 'mutation ($email: String!) { requestPasswordReset(email: $email) }', { email: fan.email });
    await gql(app, 'mutation { whitelistDomain(domain: "label.example.com") { id } }');
    await gql(app, 'mutation { setSignInErrors(mode: UNIFORM) { id } }');
    expect(await stored()).toBe(before + 5);

    const [settingsErrors, whitelist, reset, sessions, edit] = await entries(app);
    expect(edit).toMatchObject({
      actor: { type: 'api_key', label: expect.any(String) },
      action: 'fan.edit',
      target: { type: 'fan', id: fan.id },
      outcome: 'success',
      userAgent: 'Label CRM/2.1',
      requestId: 'crm-edit-1',
      ip: expect.any(String),
    });
    expect(edit.details.fields).toEqual(expect.arrayContaining(['country', 'firstName']));
    expect(JSON.stringify(edit)).not.toContain('Grace');
    keyId = edit.actor.id;
    expect(keyId).toMatch(/^\d+$/);
    expect(sessions).toMatchObject({ action: 'fan.sessions_end', target: { type: 'fan', id: fan.id } });
    expect(reset).toMatchObject({ action: 'fan.reset_sent', target: { type: 'fan', id: fan.id } });
    expect(JSON.stringify(reset)).not.toContain(fan.email);
    expect(whitelist).toMatchObject({ action: 'application.settings', target: { type: 'application', id: String(app.applicationId) }, details: { setting: 'whitelist' } });
    expect(settingsErrors).toMatchObject({ action: 'application.settings', details: { setting: 'signInErrors' } });
  });

  it('are not recorded when refused, nor are reads, nor a reset asked for an address no fan has', async () => {
    const before = await stored();
    const { body } = await t.graphql(app.apiKey, 'mutation ($id: ID!) { updateMember(id: $id, input: { country: "Britain" }) { jwt } }', { id: fan.id });
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER' });
    await gql(app, 'query ($id: ID!) { member(lookup: { id: $id }) { id email } }', { id: fan.id });
    await gql(app, 'mutation { requestPasswordReset(email: "nobody-here@example.com") }');
    expect((await t.rest(app, 'GET', '/account/audit')).status).toBe(200);
    expect(await stored()).toBe(before);
  });
});

describe('GET /v1.1/account/audit', () => {
  it('answers the records of the calling key’s account, newest first, to any of its applications', async () => {
    const answer = await t.rest(app, 'GET', '/account/audit');
    expect(answer.status).toBe(200);
    const { items, totalSize, hasMore, nextCursor } = answer.json;
    expect(hasMore).toBe(false);
    expect(nextCursor).toBeNull();
    expect(totalSize).toBe(items.length);
    expect(items[0]).toEqual({
      ID: expect.stringMatching(/^\d+$/),
      Time: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      ActorType: 'api_key',
      ActorID: keyId,
      ActorLabel: expect.any(String),
      Action: 'application.settings',
      TargetType: 'application',
      TargetID: String(app.applicationId),
      Outcome: 'success',
      Details: { setting: 'signInErrors' },
      IP: expect.any(String),
      UserAgent: expect.any(String),
      RequestID: expect.any(String),
    });
    // Another application of the account reads the same log.
    expect((await t.rest(sibling, 'GET', '/account/audit')).json.items).toEqual(items);
  });

  it('filters by actor, action, member and time', async () => {
    const actions = async (params: Record<string, string>) => (await t.rest(app, 'GET', '/account/audit', params)).json.items.map((item: { Action: string }) => item.Action);
    expect(await actions({ member: fan.id })).toEqual(['fan.reset_sent', 'fan.sessions_end', 'fan.edit']);
    expect(await actions({ action: 'fan.edit' })).toEqual(['fan.edit']);
    expect(await actions({ actor: `api_key:${keyId}`, action: 'application.settings' })).toEqual(['application.settings', 'application.settings']);
    expect(await actions({ actor: 'system' })).toEqual([]);
    expect(await actions({ actor: 'api_key:999999' })).toEqual([]);
    expect(await actions({ to: '2000-01-01 00:00:00' })).toEqual([]);
    expect(await actions({ from: '2000-01-01', member: fan.id, action: 'fan.edit' })).toEqual(['fan.edit']);
  });

  it('pages by cursor, each entry once', async () => {
    const all = (await t.rest(app, 'GET', '/account/audit')).json.items.map((item: { ID: string }) => item.ID);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const { json } = await t.rest(app, 'GET', '/account/audit', { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(json.items.length).toBeLessThanOrEqual(2);
      seen.push(...json.items.map((item: { ID: string }) => item.ID));
      if (!json.hasMore) break;
      cursor = json.nextCursor;
    }
    expect(seen).toEqual(all);
    expect(all.length).toBeGreaterThan(2);
  });

  it.each([
    [{ actor: 'robot' }, 'actor'],
    [{ actor: 'system:3' }, 'actor'],
    [{ action: 'fan.delete' }, 'action'],
    [{ member: 'abc' }, 'member'],
    [{ member: '0' }, 'member'],
    [{ from: 'yesterday' }, 'from'],
    [{ from: '2030-01-01 00:00:00', to: '2020-01-01 00:00:00' }, 'from'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '5,10' }, 'limit'],
    [{ cursor: 'not-a-cursor' }, 'cursor'],
    [{ action: 'x'.repeat(500) }, 'action'],
  ])('refuses a bad parameter with the error body naming it, case %#', async (params, param) => {
    const answer = await t.rest(app, 'GET', '/account/audit', params);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: { code: 4, type: 'INVALID_PARAMETER', message: expect.any(String), param } });
  });

  it('cuts a page at 200 entries', async () => {
    const answer = await t.rest(app, 'GET', '/account/audit', { limit: 5000 });
    expect(answer.status).toBe(200);
    expect(answer.json.items.length).toBeLessThanOrEqual(200);
  });
});

describe('who reads the log', () => {
  it("never answers another account's entries", async () => {
    const theirs = await entries(stranger);
    expect(theirs.map((entry) => entry.details.setting)).toEqual(['whitelist']);
    expect((await t.rest(stranger, 'GET', '/account/audit', { member: fan.id })).json.items).toEqual([]);
    // The app's cursor read by the stranger gives the stranger's entries only.
    const { json } = await t.rest(app, 'GET', '/account/audit', { limit: 1 });
    const other = await t.rest(stranger, 'GET', '/account/audit', { cursor: json.nextCursor });
    expect(other.status).toBe(200);
    for (const item of other.json.items) expect(item.TargetID).not.toBe(fan.id);
  });

  it("refuses a member's token, the global key and no key", async () => {
    const asMember = await t.graphql(undefined, log, {}, { headers: { authorization: `Bearer ${fan.jwt}` } });
    expect(asMember.body.errors[0].extensions.code).toMatch(/WRONG_APPLICATION|MISSING_API_KEY|INVALID_TOKEN/);
    const { apiKey: globalKey } = await createGlobalKey(t.database.db, app.accountId);
    const asGlobal = await t.rest({ apiKey: globalKey }, 'GET', '/account/audit');
    expect(asGlobal.status).toBe(403);
    expect(asGlobal.json.error.type).toBe('WRONG_APPLICATION');
    expect((await t.rest(null, 'GET', '/account/audit')).status).toBe(401);
  });
});
