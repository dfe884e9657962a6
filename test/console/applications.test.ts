import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, auditEvents } from '../../src/db/schema/index.js';
import { createGlobalKey } from '../../src/modules/tenancy/tenancy.service.js';
import { consoleGraphql, signInStaff, type SignedInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * The account's applications and API keys through /console/graphql: owners list them, create a
 * key (answered once) and revoke one; other roles are refused; one account's ids name nothing of
 * another's.
 */
let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t?.close());

const listQuery = '{ applications { id name plan createdAt keys { id prefix createdAt revokedAt live } } globalApiKeys { id prefix live revokedAt } }';
const create = (staff: SignedInStaff, applicationId: string) => consoleGraphql(t, staff, 'mutation($id: ID!) { createApiKey(applicationId: $id) { id applicationId prefix key } }', { id: applicationId });
const revoke = (staff: SignedInStaff, keyId: string) => consoleGraphql(t, staff, 'mutation($id: ID!) { revokeApiKey(keyId: $id) }', { id: keyId });

const keysOf = (accountId: number) => t.database.db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(asc(apiKeys.id));
const auditOf = (accountId: number, action: string) =>
  t.database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, accountId), eq(auditEvents.action, action)));
/** Whether /graphql takes the key. */
const works = async (apiKey: string) => {
  const answer = await t.graphql(apiKey, '{ application { id } }');
  if (answer.body.errors) expect(answer.body.errors[0].extensions.code).toBe('INVALID_API_KEY');
  return !answer.body.errors;
};

describe('as an owner', () => {
  let tenant: Tenant;
  let owner: SignedInStaff;
  beforeAll(async () => {
    tenant = await t.tenant('enterprise');
    owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
  });

  it("lists the account's applications with their keys, never a key or its hash", async () => {
    const global = await createGlobalKey(t.database.db, tenant.accountId);
    const [first] = await keysOf(tenant.accountId);
    const answer = await consoleGraphql(t, owner, listQuery);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.applications).toEqual([
      {
        id: String(tenant.applicationId),
        name: expect.any(String),
        plan: 'enterprise',
        createdAt: expect.any(String),
        keys: [{ id: String(first.id), prefix: tenant.apiKey.slice(0, 9), createdAt: first.createdAt.toISOString(), revokedAt: null, live: true }],
      },
    ]);
    expect(answer.body.data.globalApiKeys).toEqual([{ id: String(global.keyId), prefix: global.apiKey.slice(0, 9), live: true, revokedAt: null }]);
    const text = JSON.stringify(answer.body);
    for (const row of await keysOf(tenant.accountId)) expect(text).not.toContain(row.keyHash);
    expect(text).not.toContain(tenant.apiKey);
  });

  it('creates a key that works at once, shown once, with its audit entry', async () => {
    const answer = await create(owner, String(tenant.applicationId));
    expect(answer.body.errors).toBeUndefined();
    const created = answer.body.data.createApiKey;
    expect(created).toMatchObject({ applicationId: String(tenant.applicationId), key: expect.stringMatching(/^mq_[A-Za-z0-9_-]{43}$/) });
    expect(created.prefix).toBe(created.key.slice(0, 9));
    expect(await works(created.key)).toBe(true);
    // The older key stays live.
    expect(await works(tenant.apiKey)).toBe(true);

    const listed = (await consoleGraphql(t, owner, listQuery)).body.data.applications[0].keys;
    expect(listed.map((key: { id: string }) => key.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    const [entry] = (await auditOf(tenant.accountId, 'key.create')).filter((row) => row.targetId === created.id);
    expect(entry).toMatchObject({ actorType: 'staff', actorId: owner.staffId, targetType: 'key', details: { applicationId: tenant.applicationId } });
  });

  it('revokes a key: refused at once on /graphql, listed as revoked, audited once', async () => {
    const created = (await create(owner, String(tenant.applicationId))).body.data.createApiKey;
    // The key is cached after a first use: revocation through this process clears it.
    expect(await works(created.key)).toBe(true);
    const answer = await revoke(owner, created.id);
    expect(answer.body).toEqual({ data: { revokeApiKey: true } });
    expect(await works(created.key)).toBe(false);
    expect(await works(tenant.apiKey)).toBe(true);

    const listed = (await consoleGraphql(t, owner, listQuery)).body.data.applications[0].keys.find((key: { id: string }) => key.id === created.id);
    expect(listed).toMatchObject({ live: false, revokedAt: expect.any(String) });

    // Again: nothing to revoke, nothing recorded twice.
    expect((await revoke(owner, created.id)).body).toEqual({ data: { revokeApiKey: false } });
    expect((await auditOf(tenant.accountId, 'key.revoke')).filter((row) => row.targetId === created.id)).toEqual([
      expect.objectContaining({ actorType: 'staff', actorId: owner.staffId, targetType: 'key', details: { applicationId: tenant.applicationId } }),
    ]);
  });

  it('refuses a malformed id clearly, and an unknown one as not found, writing nothing', async () => {
    const before = await keysOf(tenant.accountId);
    for (const bad of ['abc', '0', '-1', '1.5', '', '12345678901', '2147483648']) {
      const created = await create(owner, bad);
      expect(created.body.errors![0].extensions, bad).toMatchObject({ code: 'INVALID_PARAMETER', param: 'applicationId' });
      const revoked = await revoke(owner, bad);
      expect(revoked.body.errors![0].extensions, bad).toMatchObject({ code: 'INVALID_PARAMETER', param: 'keyId' });
    }
    expect((await create(owner, '2147483647')).body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'applicationId' });
    expect((await revoke(owner, '2147483647')).body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'keyId' });
    expect(await keysOf(tenant.accountId)).toEqual(before);
  });

  it('refuses a signed-out request', async () => {
    const answer = await consoleGraphql(t, null, listQuery);
    expect(answer.body.errors![0].extensions.code).toBe('STAFF_SESSION_REQUIRED');
  });
});

describe('isolation', () => {
  it("an owner of one account can neither see, key nor revoke another account's applications", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    await createGlobalKey(t.database.db, b.accountId);
    const ownerA = await signInStaff(t, { accountId: a.accountId, role: 'owner' });
    const beforeB = await keysOf(b.accountId);
    const beforeA = await keysOf(a.accountId);

    const listed = (await consoleGraphql(t, ownerA, listQuery)).body.data;
    expect(listed.applications.map((application: { id: string }) => application.id)).toEqual([String(a.applicationId)]);
    expect(listed.globalApiKeys).toEqual([]);

    const created = await create(ownerA, String(b.applicationId));
    expect(created.body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'applicationId' });
    expect(created.body.data).toBeNull();
    for (const key of beforeB) {
      const revoked = await revoke(ownerA, String(key.id));
      expect(revoked.body.errors![0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'keyId' });
    }
    expect(await keysOf(b.accountId)).toEqual(beforeB);
    expect(await keysOf(a.accountId)).toEqual(beforeA);
    expect(await works(b.apiKey)).toBe(true);
    expect(await auditOf(b.accountId, 'key.create')).toEqual([]);
    expect(await auditOf(b.accountId, 'key.revoke')).toEqual([]);
    expect(await auditOf(a.accountId, 'key.create')).toEqual([]);
    expect(await auditOf(a.accountId, 'key.revoke')).toEqual([]);
  });
});

describe.each(['admin', 'support', 'analyst'] as const)('the %s role', (role) => {
  it('is refused every operation, FORBIDDEN, with nothing written and the denial audited', async () => {
    const tenant = await t.tenant();
    const staff = await signInStaff(t, { accountId: tenant.accountId, role });
    const [key] = await keysOf(tenant.accountId);
    const before = await keysOf(tenant.accountId);
    const attempts = [
      { name: 'applications', answer: () => consoleGraphql(t, staff, '{ applications { id } }') },
      { name: 'globalApiKeys', answer: () => consoleGraphql(t, staff, '{ globalApiKeys { id } }') },
      { name: 'createApiKey', answer: () => create(staff, String(tenant.applicationId)) },
      { name: 'revokeApiKey', answer: () => revoke(staff, String(key.id)) },
    ];
    for (const { name, answer } of attempts) {
      const refused = await answer();
      expect(refused.body.errors![0], name).toMatchObject({ path: [name], extensions: { code: 'FORBIDDEN' } });
      expect(refused.body.errors![0].message).toBe(`Your role (${role}) does not allow this: it needs the applications.manage permission.`);
    }
    expect(await keysOf(tenant.accountId)).toEqual(before);
    expect(await works(tenant.apiKey)).toBe(true);
    expect(await auditOf(tenant.accountId, 'key.create')).toEqual([]);
    expect(await auditOf(tenant.accountId, 'key.revoke')).toEqual([]);
    const denied = await auditOf(tenant.accountId, 'permission.denied');
    expect(denied.map((entry) => entry.details.field).sort()).toEqual(['Mutation.createApiKey', 'Mutation.revokeApiKey', 'Query.applications', 'Query.globalApiKeys']);
    expect(denied.every((entry) => entry.actorId === staff.staffId && entry.details.permission === 'applications.manage')).toBe(true);
  });
});
