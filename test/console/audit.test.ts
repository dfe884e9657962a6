import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit, systemOrigin } from '../../src/modules/audit/audit.js';
import { consoleGraphql, signInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/** The console's auditEvents: the session's account only, for roles with audit.read, its filter checked. */
let t: TestGateway;
let tenant: Tenant;
let other: Tenant;

const query = `query($filter: AuditFilter, $first: Int, $after: String) {
  auditEvents(filter: $filter, first: $first, after: $after) { nodes { id action actor { type label } target { type id } } pageInfo { hasNextPage endCursor } }
}`;

beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant();
  other = await t.tenant();
  const db = t.database.db;
  for (const id of ['11', '12', '13']) await recordAudit(db, tenant.accountId, systemOrigin('cli'), { action: 'fan.edit', target: { type: 'fan', id } });
  await recordAudit(db, tenant.accountId, systemOrigin('cli'), { action: 'fan.erase', target: { type: 'fan', id: '12' } });
  await recordAudit(db, other.accountId, systemOrigin('cli'), { action: 'fan.erase', target: { type: 'fan', id: '99' } });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('auditEvents on /console/graphql', () => {
  it("answers the session's account's entries, newest first, filtered and paged", async () => {
    const admin = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const all = await consoleGraphql(t, admin, query, {});
    expect(all.body.errors).toBeUndefined();
    expect(all.body.data.auditEvents.nodes.map((node: { action: string }) => node.action)).toEqual(['fan.erase', 'fan.edit', 'fan.edit', 'fan.edit']);

    const aboutFan = await consoleGraphql(t, admin, query, { filter: { memberId: '12' } });
    expect(aboutFan.body.data.auditEvents.nodes.map((node: { action: string }) => node.action)).toEqual(['fan.erase', 'fan.edit']);
    const erased = await consoleGraphql(t, admin, query, { filter: { action: 'fan.erase' } });
    expect(erased.body.data.auditEvents.nodes).toHaveLength(1);

    const first = await consoleGraphql(t, admin, query, { first: 3 });
    expect(first.body.data.auditEvents.pageInfo.hasNextPage).toBe(true);
    const rest = await consoleGraphql(t, admin, query, { first: 3, after: first.body.data.auditEvents.pageInfo.endCursor });
    expect(rest.body.data.auditEvents.nodes).toHaveLength(1);
  });

  it("never shows another account's entries, even by its fan's id", async () => {
    const admin = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const answer = await consoleGraphql(t, admin, query, { filter: { memberId: '99' } });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.auditEvents.nodes).toEqual([]);
    const theirs = await signInStaff(t, { accountId: other.accountId, role: 'owner' });
    const own = await consoleGraphql(t, theirs, query, {});
    expect(own.body.data.auditEvents.nodes.map((node: { target: { id: string } }) => node.target.id)).toEqual(['99']);
  });

  it('refuses a bad filter by naming the field, and roles without audit.read', async () => {
    const admin = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const bad = await consoleGraphql(t, admin, query, { filter: { actorId: 'not-an-id' } });
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'actorId' });
    const both = await consoleGraphql(t, admin, query, { filter: { memberId: '12', targetType: 'fan' } });
    expect(both.body.errors?.[0].extensions.param).toBe('memberId');
    for (const role of ['support', 'analyst'] as const) {
      const staff = await signInStaff(t, { accountId: tenant.accountId, role });
      const refused = await consoleGraphql(t, staff, query, {});
      expect(refused.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
      expect(refused.body.data ?? null).toBeNull();
    }
    expect((await consoleGraphql(t, null, query, {})).body.errors?.[0].extensions.code).toBe('STAFF_SESSION_REQUIRED');
  });
});
