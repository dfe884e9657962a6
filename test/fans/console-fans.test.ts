import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, members } from '../../src/db/schema/index.js';
import type { StaffRole } from '../../src/modules/staff/permissions.js';
import { consoleGraphql, signInStaff, type SignedInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok } from '../support/rest.js';

/**
 * The console's fan operations through /console/graphql as each role: what each role may do, the
 * refusals (FORBIDDEN, nothing written but the denial's entry), another account's fans not found,
 * bad input refused clearly.
 */

let t: TestGateway;
let app: Tenant;
let other: Tenant;
const staff = {} as Record<StaffRole, SignedInStaff>;

let counter = 0;
async function register(tenant: Tenant, extra: Record<string, string> = {}) {
  const email = `console${++counter}-${Date.now()}@example.com`;
  const data = (await ok(t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', firstname: 'Console', surname: `Fan${counter}`, ...extra })))[0].data;
  return { id: String(data.ID as number), email };
}

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('enterprise');
  other = await t.tenant('enterprise');
  for (const role of ['analyst', 'support', 'admin', 'owner'] as const) staff[role] = await signInStaff(t, { accountId: app.accountId, role });
});
afterAll(() => t?.close());

const operations = {
  fans: { query: 'query($s: String!) { fans(search: $s) { kind edges { matchedOn exact node { id displayName } } pageInfo { hasNextPage endCursor } } }', permission: 'fans.read' },
  fan: {
    query:
      'query($id: ID!) { fan(id: $id) { id displayName can { edit merge export erase sessions reset } services { network } optIns { kind } standing { points position } activity { nodes { id } } sessions { live } signIns { kind } emails { kind } } }',
    permission: 'fans.read',
  },
  updateFan: { query: 'mutation($id: ID!) { updateFan(id: $id, input: { city: "Lyon" }) { id city } }', permission: 'fans.edit' },
  endFanSessions: { query: 'mutation($id: ID!) { endFanSessions(id: $id) { id } }', permission: 'fans.sessions' },
  sendFanPasswordReset: { query: 'mutation($id: ID!) { sendFanPasswordReset(id: $id) }', permission: 'fans.reset' },
  mergePreview: { query: 'query($id: ID!, $other: ID!) { mergePreview(keepId: $id, otherId: $other) { moves { services } } }', permission: 'fans.merge' },
  mergeFans: { query: 'mutation($id: ID!, $other: ID!) { mergeFans(keepId: $id, otherId: $other) { id } }', permission: 'fans.merge' },
  eraseFan: { query: 'mutation($id: ID!, $email: String!) { eraseFan(id: $id, confirmEmail: $email) }', permission: 'fans.erase' },
  segments: { query: '{ segments { id name exportUrl } }', permission: 'segments.read' },
  stats: { query: '{ stats(days: 7) { registrations logins activeMembers days { date count } } }', permission: 'stats.read' },
} as const;

const allowed: Record<StaffRole, (keyof typeof operations)[]> = {
  analyst: ['segments', 'stats'],
  support: ['segments', 'stats', 'fans', 'fan', 'updateFan', 'endFanSessions', 'sendFanPasswordReset'],
  admin: ['segments', 'stats', 'fans', 'fan', 'updateFan', 'endFanSessions', 'sendFanPasswordReset', 'mergePreview', 'mergeFans', 'eraseFan'],
  owner: ['segments', 'stats', 'fans', 'fan', 'updateFan', 'endFanSessions', 'sendFanPasswordReset', 'mergePreview', 'mergeFans', 'eraseFan'],
};

async function entriesAbout(id: string) {
  return t.database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, app.accountId), eq(auditEvents.targetType, 'fan'), eq(auditEvents.targetId, id)));
}

describe.each(['analyst', 'support', 'admin', 'owner'] as const)('as %s', (role) => {
  for (const name of Object.keys(operations) as (keyof typeof operations)[]) {
    const operation = operations[name];
    const may = allowed[role].includes(name);
    it(`${may ? 'may' : 'may not'} ${name}`, async () => {
      const fan = await register(app);
      const second = await register(app);
      const [before] = await t.database.db
        .select()
        .from(members)
        .where(eq(members.id, Number(fan.id)));
      const answer = await consoleGraphql(t, staff[role], operation.query, { id: fan.id, other: second.id, s: 'console', email: fan.email.toUpperCase() });
      expect(answer.status).toBe(200);
      if (may) {
        expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
        return;
      }
      expect(answer.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
      expect(answer.body.errors?.[0].message).toContain(operation.permission);
      // Nothing happened to the fan, and the only entry is the denial (about the staff member).
      const [after] = await t.database.db
        .select()
        .from(members)
        .where(eq(members.id, Number(fan.id)));
      expect(after).toEqual(before);
      expect(await entriesAbout(fan.id)).toEqual([]);
      const denials = await t.database.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.accountId, app.accountId), eq(auditEvents.action, 'permission.denied'), eq(auditEvents.actorId, staff[role].staffId)));
      expect(denials.some((entry) => (entry.details as { permission?: string }).permission === operation.permission)).toBe(true);
    });
  }
});

describe('answers', () => {
  it("searches and opens a fan's page, recording fan.view, with the viewer's abilities", async () => {
    const fan = await register(app, { surname: 'Zebediah' });
    const found = await consoleGraphql(t, staff.support, operations.fans.query, { s: 'zebed' });
    expect(found.body.data.fans).toMatchObject({ kind: 'name', edges: [{ matchedOn: 'surname', exact: false, node: { id: fan.id, displayName: 'Console Zebediah' } }], pageInfo: { hasNextPage: false } });
    const page = await consoleGraphql(t, staff.support, operations.fan.query, { id: fan.id });
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.fan).toMatchObject({
      id: fan.id,
      displayName: 'Console Zebediah',
      can: { edit: true, merge: false, export: false, erase: false, sessions: true, reset: true },
      services: [{ network: 'email' }],
      standing: { points: 0, position: null },
      signIns: [{ kind: 'register' }],
    });
    expect((await entriesAbout(fan.id)).map((entry) => [entry.action, entry.actorId])).toEqual([['fan.view', staff.support.staffId]]);
    const asAdmin = await consoleGraphql(t, staff.admin, operations.fan.query, { id: fan.id });
    expect(asAdmin.body.data.fan.can).toEqual({ edit: true, merge: true, export: true, erase: true, sessions: true, reset: true });
  });

  it("never finds or touches another account's fans", async () => {
    const theirs = await register(other, { surname: 'Elsewhere' });
    expect((await consoleGraphql(t, staff.owner, operations.fans.query, { s: 'elsewhere' })).body.data.fans.edges).toEqual([]);
    expect((await consoleGraphql(t, staff.owner, operations.fans.query, { s: theirs.email })).body.data.fans.edges).toEqual([]);
    const mine = await register(app);
    for (const name of ['fan', 'updateFan', 'endFanSessions', 'sendFanPasswordReset', 'eraseFan'] as const) {
      const answer = await consoleGraphql(t, staff.owner, operations[name].query, { id: theirs.id, email: theirs.email });
      expect(answer.body.errors?.[0].extensions.code, name).toBe('NOT_FOUND');
    }
    for (const name of ['mergePreview', 'mergeFans'] as const) {
      const answer = await consoleGraphql(t, staff.owner, operations[name].query, { id: mine.id, other: theirs.id });
      expect(answer.body.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'otherId' });
    }
    const [row] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(theirs.id)));
    expect(row).toMatchObject({ city: null, mergedIntoId: null });
    const entries = await t.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, theirs.id));
    expect(entries).toEqual([]);
  });

  it('refuses bad input clearly, writing nothing', async () => {
    const fan = await register(app);
    const cases: [string, Record<string, unknown>, string][] = [
      [operations.fans.query, { s: 'x'.repeat(201) }, 'search'],
      [operations.fans.query, { s: '  ' }, 'search'],
      ['query { fans(search: "ada", first: 500) { kind } }', {}, 'first'],
      ['query { fans(search: "ada", after: "junk") { kind } }', {}, 'after'],
      [operations.fan.query, { id: 'abc' }, 'id'],
      ['mutation($id: ID!) { updateFan(id: $id, input: { country: "Atlantis" }) { id } }', { id: fan.id }, 'country'],
      ['mutation($id: ID!) { mergeFans(keepId: $id, otherId: $id) { id } }', { id: fan.id }, 'otherId'],
      ['query { stats(days: 1000) { records } }', {}, 'days'],
      [operations.eraseFan.query, { id: fan.id, email: 'someone-else@example.com' }, 'confirmEmail'],
    ];
    for (const [query, variables, param] of cases) {
      const answer = await consoleGraphql(t, staff.owner, query, variables);
      expect(answer.body.errors?.[0].extensions, query).toMatchObject({ code: 'INVALID_PARAMETER', param });
    }
    const [row] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(fan.id)));
    expect(row.country).toBeNull();
    // An empty confirmation is missing, not wrong.
    const empty = await consoleGraphql(t, staff.owner, operations.eraseFan.query, { id: fan.id, email: ' ' });
    expect(empty.body.errors?.[0].extensions).toMatchObject({ code: 'MISSING_PARAMETER', param: 'confirmEmail' });
    expect(await entriesAbout(fan.id)).toEqual([]);
  });

  it('erases a fan once their email is typed, any case, recording fan.erase without the address', async () => {
    const fan = await register(app);
    const answer = await consoleGraphql(t, staff.admin, operations.eraseFan.query, { id: fan.id, email: `  ${fan.email.toUpperCase()} ` });
    expect(answer.body.errors).toBeUndefined();
    expect(
      await t.database.db
        .select()
        .from(members)
        .where(eq(members.id, Number(fan.id))),
    ).toEqual([]);
    const [entry] = await entriesAbout(fan.id);
    expect(entry).toMatchObject({ action: 'fan.erase', actorId: staff.admin.staffId });
    expect(JSON.stringify(entry)).not.toContain(fan.email);
    expect((await consoleGraphql(t, staff.admin, operations.fan.query, { id: fan.id })).body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('refuses everything signed out', async () => {
    const answer = await consoleGraphql(t, null, operations.fans.query, { s: 'ada' });
    expect(answer.body.errors?.[0].extensions.code).toBe('STAFF_SESSION_REQUIRED');
  });
});
