import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../src/db/schema/index.js';
import { createApplication, findAccountById } from '../../src/modules/tenancy/tenancy.service.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * Proving an address never hands the prover another member's account (issue 56, item 1). Before,
 * `member/[id]/verify` merged every member of the account verified with the same address into the
 * oldest: an application refused `member/[id]/reset` (basic plan) registered the address with a
 * password of its choosing, verified it, and that password then signed in as another
 * application's member. Now the verification is refused with code 1111 (EMAIL_IN_USE) and nothing
 * is written; a merge needs the other member's access token.
 */
let t: TestGateway;
/** The brand's own application, where the victim signed up. */
let brand: Tenant;
/** Another application of the same account, on the basic plan: the attacker. */
let attacker: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  brand = await t.tenant('advanced');
  const account = await findAccountById(t.database.db, brand.accountId);
  const created = await createApplication(t.database.db, { accountName: account.name, name: `attacker-${Date.now()}`, plan: 'basic' });
  attacker = { accountId: brand.accountId, applicationId: created.application.id, apiKey: created.apiKey };
});
afterAll(() => t.close());

let counter = 0;
const uniqueEmail = (name: string) => `${name}${++counter}-${process.pid}-${Date.now()}@example.com`;

async function memberRows(ids: number[]) {
  return t.database.db
    .select()
    .from(members)
    .where(and(eq(members.accountId, brand.accountId), inArray(members.id, ids)));
}

/** The refusal: 409, code 1111, naming the verified address, and never the other member. */
function expectEmailInUse(answer: { status: number; json: { error?: { message: string } }; body: string }, otherId: number) {
  expect(answer.status, answer.body).toBe(409);
  expect(answer.json).toEqual({ error: { code: 1111, type: 'EMAIL_IN_USE', message: expect.any(String), param: 'verified_email' } });
  expect(answer.json.error!.message).not.toContain(String(otherId));
}

describe('a verification through the API', () => {
  it("refuses an address another application's member verified (code 1111): nothing merged, the attacker's password signs in as the attacker only", async () => {
    const victimEmail = uniqueEmail('victim');
    // The victim signed up on the brand's application with a network, which verified the address.
    const [victim] = (await t.rest(brand, 'POST', '/member/register', { service: 'soundcloud', authtoken: 'sc', uid: `sc-victim-${counter}-${process.pid}`, email: victimEmail, firstname: 'Victim' })).json;
    const victimId = victim.data.ID as number;
    expect((await t.rest(brand, 'POST', `/member/${victimId}/verify`, { service: 'soundcloud', verified_email: victimEmail })).status).toBe(200);

    // The attacker's application registers the address with a password of its choosing, and verifies it.
    const refusedReset = await t.rest(attacker, 'POST', `/member/${victimId}/reset`, { email: victimEmail, password: 'attacker chosen', member_service_id: victim.services[0].ID });
    expect(refusedReset.json.error).toMatchObject({ code: 9 });
    const registered = await t.rest(attacker, 'POST', '/member/register', { service: 'email', email: victimEmail, password: 'attacker chosen' });
    expect(registered.status, registered.body).toBe(200);
    const attackerId = registered.json[0].data.ID as number;
    expect(attackerId).not.toBe(victimId);
    const verify = await t.rest(attacker, 'POST', `/member/${attackerId}/verify`, { service: 'email', verified_email: victimEmail });
    expectEmailInUse(verify, victimId);

    // Nothing written: both members as they were, the attacker's not verified.
    const rows = new Map((await memberRows([victimId, attackerId])).map((row) => [row.id, row]));
    expect(rows.get(attackerId)).toMatchObject({ mergedIntoId: null, verifiedEmail: null, emailVerifiedAt: null });
    expect(rows.get(victimId)).toMatchObject({ mergedIntoId: null, verifiedEmail: victimEmail });
    expect((await t.rest(brand, 'GET', `/member/${victimId}`)).json.services.map((service: { Service: string }) => service.Service)).toEqual(['soundcloud']);
    // The attacker's password signs in as the attacker's own member, never as the victim.
    const login = await t.rest(attacker, 'POST', '/member/login', { service: 'email', email: victimEmail, password: 'attacker chosen' });
    expect(login.status, login.body).toBe(200);
    expect(login.json.data.ID).toBe(attackerId);
    // GraphQL answers the same refusal.
    const graphql = await t.graphql(attacker.apiKey, 'mutation($id: ID!, $email: String!) { verifyEmail(id: $id, input: { network: "email", verifiedEmail: $email }) { member { id } } }', {
      id: String(attackerId),
      email: victimEmail,
    });
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'EMAIL_IN_USE', aeCode: 1111, param: 'verifiedEmail' });
  });

  it('refuses an address another member signs in with, even unverified; the explicit merge with its access token still works', async () => {
    const victimEmail = uniqueEmail('signs-in');
    const [victim] = (await t.rest(brand, 'POST', '/member/register', { service: 'email', email: victimEmail, password: 'victim horse' })).json;
    const [prover] = (await t.rest(attacker, 'POST', '/member/register', { service: 'email', email: uniqueEmail('prover'), password: 'prover horse' })).json;
    const verify = await t.rest(attacker, 'POST', `/member/${prover.data.ID}/verify`, { service: 'email', verified_email: victimEmail.toUpperCase() });
    expectEmailInUse(verify, victim.data.ID);
    const [row] = await memberRows([prover.data.ID]);
    expect(row).toMatchObject({ mergedIntoId: null, verifiedEmail: null });

    // The merge the 1111 answer starts: signed in to the other account, the client merges with the merged member's token.
    const merged = await t.rest(brand, 'POST', `/member/${victim.data.ID}/merge`, { from: prover.data.ID, accesstoken: prover.data.AccessToken });
    expect(merged.status, merged.body).toBe(200);
    expect(merged.json.data.ID).toBe(victim.data.ID);
    // Its own address verifies once the other member holds it no more (here: it is the survivor's own).
    const own = await t.rest(brand, 'POST', `/member/${victim.data.ID}/verify`, { service: 'email', verified_email: victimEmail });
    expect(own.status, own.body).toBe(200);
    expect(own.json.data).toMatchObject({ ID: victim.data.ID, VerifiedEmail: victimEmail });
  });

  it('two members verifying one address at the same time: one succeeds, the other is refused with 1111 (10 rounds)', async () => {
    for (let round = 0; round < 10; round += 1) {
      const shared = uniqueEmail('raced');
      const pair = await Promise.all(
        ['a', 'b'].map(async (name) => (await t.rest(brand, 'POST', '/member/register', { service: 'email', email: uniqueEmail(`racer-${name}`), password: 'correct horse' })).json[0].data.ID as number),
      );
      const answers = await Promise.all(pair.map((id) => t.rest(brand, 'POST', `/member/${id}/verify`, { service: 'email', verified_email: shared })));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses, answers.map((answer) => answer.body).join(' / ')).toEqual([200, 409]);
      const lost = answers.find((answer) => answer.status === 409)!;
      expect(lost.json.error).toMatchObject({ code: 1111, type: 'EMAIL_IN_USE' });
      const rows = await memberRows(pair);
      expect(rows.every((row) => row.mergedIntoId === null)).toBe(true);
      expect(rows.filter((row) => row.verifiedEmail === shared)).toHaveLength(1);
    }
  }, 60_000);
});
