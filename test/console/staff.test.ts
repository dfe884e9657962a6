import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, auditEvents, staffInvites, staffRoles, staffSessions } from '../../src/db/schema/index.js';
import { staffRoles as roles, type StaffRole } from '../../src/modules/staff/permissions.js';
import { consoleGraphql, csrfHeaders, signInStaff, type SignedInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * The account's staff through /console/graphql: invitations and their one-time links, roles,
 * removal, sessions that end with them, what each role may do, and one account's staff kept from
 * another's.
 */
let t: TestGateway;
let tenant: Tenant;
const password = 'a long enough password';

const invite = (staff: SignedInStaff, email: string, role: StaffRole = 'support') =>
  consoleGraphql(t, staff, 'mutation($email: String!, $role: StaffRole!) { inviteStaff(email: $email, role: $role) { link expiresAt staff { id email role passwordSet } } }', { email, role });

function acceptLink(token: string, newPassword = password) {
  return t.request({ method: 'POST', url: '/console/invite', headers: csrfHeaders, payload: { token, password: newPassword } });
}

const viewerOf = async (staff: Pick<SignedInStaff, 'cookie'>) => (await consoleGraphql(t, staff, '{ viewer { id role } }')).body.data.viewer;
const rowsOf = (accountId: number) => t.database.db.select().from(staffRoles).where(eq(staffRoles.accountId, accountId));
const auditOf = (accountId: number, action: string) =>
  t.database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, accountId), eq(auditEvents.action, action)));

beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant();
});
afterAll(() => t?.close());

describe('inviting staff', () => {
  it('answers a one-time link; it sets the password and signs in once, and never again', async () => {
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const answer = await invite(owner, 'New.Person@example.com', 'admin');
    const { link, expiresAt, staff } = answer.body.data.inviteStaff;
    expect(staff).toMatchObject({ email: 'New.Person@example.com', role: 'admin', passwordSet: false });
    expect(link).toMatch(new RegExp(`^http://localhost:80/console/invite#${tenant.accountId}\\.[A-Za-z0-9_-]{43}$`));
    expect(new Date(expiresAt).getTime() - Date.now()).toBeGreaterThan(6.9 * 24 * 3600_000);
    const token = link.split('#')[1];

    // A bad password is refused and leaves the link unused.
    const short = await acceptLink(token, 'short');
    expect(short.json().error).toMatchObject({ type: 'INVALID_PARAMETER', param: 'password' });

    const accepted = await acceptLink(token);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toMatchObject({ staff: { id: staff.id, role: 'admin', account: { id: String(tenant.accountId) } }, secondFactorRequired: false });
    const cookie = { cookie: String(accepted.headers['set-cookie']).split(';', 1)[0] };
    expect(await viewerOf(cookie)).toEqual({ id: staff.id, role: 'admin' });

    const again = await acceptLink(token, 'another long password');
    expect(again.statusCode).toBe(401);
    expect(again.json().error).toMatchObject({ type: 'INVALID_TOKEN', param: 'token' });
    // The password chosen with the link signs in; the second attempt's does not.
    const signIn = (pass: string) => t.request({ method: 'POST', url: '/console/session', headers: csrfHeaders, payload: { email: 'new.person@example.com', password: pass } });
    expect((await signIn(password)).statusCode).toBe(200);
    expect((await signIn('another long password')).statusCode).toBe(401);
    expect((await auditOf(tenant.accountId, 'staff.add')).some((entry) => entry.targetId === staff.id && entry.actorId === owner.staffId)).toBe(true);
  });

  it('refuses an expired, unknown or malformed link', async () => {
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const token = (await invite(owner, 'late@example.com')).body.data.inviteStaff.link.split('#')[1];
    await t.database.db
      .update(staffInvites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(staffInvites.accountId, tenant.accountId));
    for (const candidate of [token, `${tenant.accountId}.${'A'.repeat(43)}`, 'nonsense', `${tenant.accountId + 1}.${token.split('.')[1]}`]) {
      const refused = await acceptLink(candidate);
      expect(refused.json().error, candidate).toMatchObject({ type: 'INVALID_TOKEN' });
    }
  });

  it('refuses a bad address, an unknown role, a person already on the staff, changing nothing', async () => {
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const before = await rowsOf(tenant.accountId);
    expect((await invite(owner, 'not an address')).body.errors![0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'email' });
    expect((await invite(owner, `${'x'.repeat(260)}@example.com`)).body.errors![0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'email' });
    expect((await invite(owner, owner.email.toUpperCase())).body.errors![0].extensions).toMatchObject({ code: 'CONFLICT', param: 'email' });
    const badRole = await consoleGraphql(t, owner, 'mutation { inviteStaff(email: "r@example.com", role: boss) { link } }');
    expect(badRole.status).toBe(400);
    expect(await rowsOf(tenant.accountId)).toHaveLength(before.length);
  });

  it("never hands out a link to another account's staff member: they gain the role and sign in with their own password", async () => {
    const other = await t.tenant();
    const elsewhere = await signInStaff(t, { accountId: other.accountId, role: 'analyst', password });
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const answer = (await invite(owner, elsewhere.email, 'support')).body.data.inviteStaff;
    expect(answer).toMatchObject({ link: null, expiresAt: null, staff: { role: 'support', passwordSet: true } });
    // They sign in to either account, by naming it.
    const signIn = (accountId: number) => t.request({ method: 'POST', url: '/console/session', headers: csrfHeaders, payload: { email: elsewhere.email, password, accountId } });
    expect((await signIn(tenant.accountId)).json().staff).toMatchObject({ role: 'support', account: { id: String(tenant.accountId) } });
    expect((await signIn(other.accountId)).json().staff).toMatchObject({ role: 'analyst', account: { id: String(other.accountId) } });
    expect((await signIn(999_999)).json().error).toMatchObject({ type: 'INVALID_PARAMETER', param: 'accountId' });

    // Someone invited elsewhere who has not chosen a password yet cannot be invited here meanwhile.
    const pending = (await invite(await signInStaff(t, { accountId: other.accountId, role: 'owner' }), 'pending@example.com')).body.data.inviteStaff;
    expect(pending.link).not.toBeNull();
    expect((await invite(owner, 'pending@example.com')).body.errors![0].extensions).toMatchObject({ code: 'CONFLICT', param: 'email' });
  });
});

describe('roles and removal', () => {
  it('a role change takes effect at once and ends the staff member’s sessions there', async () => {
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const member = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst' });
    const changed = await consoleGraphql(t, owner, 'mutation($id: ID!) { setStaffRole(staffId: $id, role: admin) { id role } }', { id: String(member.staffId) });
    expect(changed.body.data.setStaffRole).toEqual({ id: String(member.staffId), role: 'admin' });
    expect(await viewerOf(member)).toBeNull();
    expect((await auditOf(tenant.accountId, 'staff.role')).find((entry) => entry.targetId === String(member.staffId))?.details).toEqual({ from: 'analyst', to: 'admin' });
  });

  it('removal ends their sessions and links; the last owner can neither be removed nor step down', async () => {
    const account = await t.tenant();
    const owner = await signInStaff(t, { accountId: account.accountId, role: 'owner' });
    const member = await signInStaff(t, { accountId: account.accountId, role: 'support' });
    expect(await viewerOf(member)).toMatchObject({ role: 'support' });
    const removed = await consoleGraphql(t, owner, 'mutation($id: ID!) { removeStaff(staffId: $id) }', { id: String(member.staffId) });
    expect(removed.body.data).toEqual({ removeStaff: true });
    expect(await viewerOf(member)).toBeNull();
    expect(
      await t.database.db
        .select()
        .from(staffSessions)
        .where(and(eq(staffSessions.accountId, account.accountId), eq(staffSessions.staffId, member.staffId))),
    ).toEqual([]);

    for (const mutation of ['mutation($id: ID!) { removeStaff(staffId: $id) }', 'mutation($id: ID!) { setStaffRole(staffId: $id, role: admin) { id } }']) {
      const refused = await consoleGraphql(t, owner, mutation, { id: String(owner.staffId) });
      expect(refused.body.errors![0].extensions).toMatchObject({ code: 'CONFLICT', param: 'staffId' });
    }
    expect(await rowsOf(account.accountId)).toEqual([expect.objectContaining({ staffId: owner.staffId, role: 'owner' })]);
    for (const id of ['0', '-1', 'abc', '99999999999']) {
      const refused = await consoleGraphql(t, owner, 'mutation($id: ID!) { removeStaff(staffId: $id) }', { id });
      expect(refused.body.errors![0].extensions, id).toMatchObject({ code: 'INVALID_PARAMETER', param: 'staffId' });
    }
    expect((await consoleGraphql(t, owner, 'mutation { removeStaff(staffId: "123456") }')).body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'staffId' });
  });

  it('a password change ends the staff member’s other sessions, in every account, and keeps the one that made it', async () => {
    const other = await t.tenant();
    const here = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst', password });
    const second = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst', email: here.email });
    const there = await signInStaff(t, { accountId: other.accountId, role: 'admin', email: here.email });
    const change = (current: string, next: string) => consoleGraphql(t, here, 'mutation($c: String!, $n: String!) { changePassword(current: $c, next: $n) { id } }', { c: current, n: next });

    expect((await change('wrong password!!', 'a new long password')).body.errors![0].extensions).toMatchObject({ code: 'WRONG_PASSWORD', param: 'current' });
    expect((await change(password, 'short')).body.errors![0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'next' });
    expect(await viewerOf(second)).not.toBeNull();

    expect((await change(password, 'a new long password')).body.data.changePassword).toEqual({ id: String(here.staffId) });
    expect(await viewerOf(here)).toMatchObject({ id: String(here.staffId) });
    expect(await viewerOf(second)).toBeNull();
    expect(await viewerOf(there)).toBeNull();
    const signIn = (pass: string) => t.request({ method: 'POST', url: '/console/session', headers: csrfHeaders, payload: { email: here.email, password: pass } });
    expect((await signIn(password)).statusCode).toBe(401);
    expect((await signIn('a new long password')).statusCode).toBe(200);
  });
});

/** Each console operation of this slice, and the permission it needs (none: any signed-in staff member). */
const operations: { name: string; permission: 'staff.manage' | 'settings.manage' | null; query: (target: string) => string }[] = [
  { name: 'staff', permission: 'staff.manage', query: () => '{ staff { id } }' },
  { name: 'inviteStaff', permission: 'staff.manage', query: () => `mutation { inviteStaff(email: "matrix-${Math.random().toString(36).slice(2)}@example.com", role: analyst) { staff { id } } }` },
  { name: 'setStaffRole', permission: 'staff.manage', query: (target) => `mutation { setStaffRole(staffId: "${target}", role: support) { id } }` },
  { name: 'removeStaff', permission: 'staff.manage', query: (target) => `mutation { removeStaff(staffId: "${target}") }` },
  { name: 'requireTotp', permission: 'settings.manage', query: () => 'mutation { requireTotp(required: false) }' },
  { name: 'startTotpSetup', permission: null, query: () => 'mutation { startTotpSetup { uri } }' },
];

describe.each(roles)('the %s role', (role) => {
  it.each(operations)('$name: answered when the role holds the permission, FORBIDDEN otherwise, with nothing written and the denial audited', async ({ name, permission, query }) => {
    const account = await t.tenant();
    const actor = await signInStaff(t, { accountId: account.accountId, role, secondFactor: true });
    // Another owner, so the actor may act on a colleague without touching the last owner.
    await signInStaff(t, { accountId: account.accountId, role: 'owner' });
    const target = await signInStaff(t, { accountId: account.accountId, role: 'analyst' });
    const allowed = permission === null || role === 'owner';
    const before = { staff: await rowsOf(account.accountId), account: await t.database.db.select().from(accounts).where(eq(accounts.id, account.accountId)) };

    const answer = await consoleGraphql(t, actor, query(String(target.staffId)));
    if (allowed) {
      expect(answer.body.errors, name).toBeUndefined();
      expect(answer.body.data[name]).toBeDefined();
      return;
    }
    expect(answer.body.errors![0]).toMatchObject({ path: [name], extensions: { code: 'FORBIDDEN' } });
    expect(answer.body.errors![0].message).toBe(`Your role (${role}) does not allow this: it needs the ${permission} permission.`);
    expect(await rowsOf(account.accountId)).toEqual(before.staff);
    expect(await t.database.db.select().from(accounts).where(eq(accounts.id, account.accountId))).toEqual(before.account);
    expect(await viewerOf(target)).not.toBeNull();
    const [denied] = await auditOf(account.accountId, 'permission.denied');
    expect(denied).toMatchObject({ actorType: 'staff', actorId: actor.staffId, outcome: 'denied', details: { permission, role, field: expect.stringContaining(name) } });
  });
});

describe('isolation', () => {
  it("a staff member of one account sees and changes nothing of another account's staff", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const ownerA = await signInStaff(t, { accountId: a.accountId, role: 'owner' });
    const ownerB = await signInStaff(t, { accountId: b.accountId, role: 'owner' });
    const memberB = await signInStaff(t, { accountId: b.accountId, role: 'support' });
    const beforeB = await rowsOf(b.accountId);

    const listed = (await consoleGraphql(t, ownerA, '{ staff { id email } }')).body.data.staff;
    expect(listed).toEqual([{ id: String(ownerA.staffId), email: ownerA.email }]);
    for (const mutation of ['mutation($id: ID!) { removeStaff(staffId: $id) }', 'mutation($id: ID!) { setStaffRole(staffId: $id, role: owner) { id } }']) {
      for (const id of [memberB.staffId, ownerB.staffId]) {
        const refused = await consoleGraphql(t, ownerA, mutation, { id: String(id) });
        expect(refused.body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'staffId' });
        expect(refused.body.errors![0].message).not.toContain(memberB.email);
      }
    }
    expect(await rowsOf(b.accountId)).toEqual(beforeB);
    expect(await viewerOf(memberB)).toMatchObject({ role: 'support' });
    // A's session cookie names A: pointed at B's account, it is no session at all.
    const [name, value] = ownerA.cookie.split('=');
    const moved = `${name}=${b.accountId}.${value.split('.')[1]}`;
    expect(await viewerOf({ cookie: moved })).toBeNull();
    // A's setting is A's alone.
    await consoleGraphql(t, ownerA, 'mutation { requireTotp(required: true) }');
    expect((await consoleGraphql(t, ownerB, '{ viewer { secondFactorRequired } }')).body.data.viewer).toEqual({ secondFactorRequired: false });
  });
});
