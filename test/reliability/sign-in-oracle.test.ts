import { randomInt, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applications } from '../../src/db/schema/index.js';
import { noAccountRules } from '../../src/modules/identity/no-account-answers.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, whitelist } from '../widget/support.js';

/**
 * The on-page flow's distinct answers (13 no such account, 18 wrong password) are AE's contract, but
 * each 13 tells a client that an address is not a member: one address is told so at most
 * `noAccountRules.perAddress` times in the window, and an application may answer 18 for both.
 */
let t: TestGateway;
let app: Tenant;
let other: Tenant;
const origin = 'https://fans.example.com';
const page = `${origin}/club`;
const password = 'correct horse';
const proxy = '10.0.0.2';

beforeAll(async () => {
  t = await startTestGateway({ TRUST_PROXY: '1' });
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
  await whitelist(t, app, 'fans.example.com');
  await whitelist(t, other, 'fans.example.com');
});
afterAll(() => t?.close());

/** An address no earlier run used: counters outlive a run in a shared Redis. */
const freshAddress = () => `198.18.${randomInt(0, 255)}.${randomInt(1, 254)}`;
const freshEmail = () => `oracle-${randomUUID()}@example.com`;

function signIn(tenant: Tenant, address: string, email: string, guess = password, type = 'login') {
  return t.request({
    method: 'POST',
    url: `/framework/session/${tenant.applicationId}/email`,
    remoteAddress: proxy,
    headers: { origin, cookie: new CookieJar().header(), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    payload: new URLSearchParams({ type, email, password: guess, return: page }).toString(),
  });
}

async function registered(tenant: Tenant): Promise<string> {
  const email = freshEmail();
  const response = await signIn(tenant, freshAddress(), email, password, 'register');
  expect(response.statusCode, response.body).toBe(200);
  return email;
}

const codeOf = (response: { json: <T>() => T }) => response.json<{ error?: { code: number } }>().error?.code;

describe('"no such account" answers from one address', () => {
  it(`stop at ${noAccountRules.perAddress}: then every on-page sign-in from it is refused with code 6, known address or not`, async () => {
    const known = await registered(app);
    const address = freshAddress();
    const codes: (number | undefined)[] = [];
    for (let index = 0; index <= noAccountRules.perAddress; index += 1) codes.push(codeOf(await signIn(app, address, freshEmail())));
    expect(codes).toEqual([...Array(noAccountRules.perAddress).fill(13), 6]);

    const refused = await signIn(app, address, known);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ code: 6, type: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['access-control-allow-origin']).toBe(origin);

    // Another address, and another account from the same address, are not held up.
    expect(codeOf(await signIn(app, freshAddress(), freshEmail()))).toBe(13);
    expect((await signIn(app, freshAddress(), known)).statusCode).toBe(200);
    expect(codeOf(await signIn(other, address, freshEmail()))).toBe(13);
  });

  it('are no more than the budget when asked for at once', async () => {
    const address = freshAddress();
    const answers = await Promise.all(Array.from({ length: 20 }, () => signIn(app, address, freshEmail())));
    const codes = answers.map(codeOf);
    expect(codes.filter((code) => code === 13)).toHaveLength(noAccountRules.perAddress);
    expect(codes.filter((code) => code === 6)).toHaveLength(20 - noAccountRules.perAddress);
  });
});

describe('signInErrors: uniform', () => {
  const settingsOf = async (tenant: Tenant) => (await t.database.db.select().from(applications).where(eq(applications.id, tenant.applicationId)))[0].settings;

  it('answers an unknown address exactly as a wrong password, without counting it; other applications stay distinct', async () => {
    const uniform = await t.tenant('advanced');
    await whitelist(t, uniform, 'fans.example.com');
    const switched = await t.graphql(uniform.apiKey, 'mutation { setSignInErrors(mode: UNIFORM) { id signInErrors } }');
    expect(switched.body).toEqual({ data: { setSignInErrors: { id: String(uniform.applicationId), signInErrors: 'UNIFORM' } } });

    const known = await registered(uniform);
    const address = freshAddress();
    const wrong = await signIn(uniform, address, known, 'not the password');
    expect(wrong.statusCode).toBe(401);
    for (let index = 0; index <= noAccountRules.perAddress + 1; index += 1) {
      const unknown = await signIn(uniform, address, freshEmail(), 'not the password');
      expect(unknown.statusCode).toBe(401);
      expect(unknown.body).toBe(wrong.body);
    }
    // The right password still signs in from that address: nothing was counted against it.
    expect((await signIn(uniform, address, known)).statusCode).toBe(200);
    // Other applications keep AE's answers.
    expect(codeOf(await signIn(other, freshAddress(), freshEmail()))).toBe(13);
    expect(await settingsOf(other)).not.toHaveProperty('signInErrors');

    // And back.
    await t.graphql(uniform.apiKey, 'mutation { setSignInErrors(mode: DISTINCT) { id } }');
    expect(codeOf(await signIn(uniform, freshAddress(), freshEmail()))).toBe(13);
  });

  it('is switched through REST too, and bad input writes nothing', async () => {
    const tenant = await t.tenant('basic');
    const set = await t.rest(tenant, 'POST', '/app/sign-in-errors', { mode: 'uniform' });
    expect(set.status, set.body).toBe(200);
    expect(set.json).toEqual({ ID: String(tenant.applicationId), SignInErrors: 'uniform' });
    expect(await settingsOf(tenant)).toMatchObject({ signInErrors: 'uniform' });
    const info = await t.graphql(tenant.apiKey, '{ application { signInErrors } }');
    expect(info.body.data.application.signInErrors).toBe('UNIFORM');

    for (const mode of ['sometimes', '', 'UNIFORMS']) {
      const bad = await t.rest(tenant, 'POST', '/app/sign-in-errors', mode ? { mode } : {});
      expect(bad.status, mode).toBe(400);
      expect([3, 4]).toContain(bad.json.error.code);
    }
    const badGraphql = await t.graphql(tenant.apiKey, 'mutation { setSignInErrors(mode: SOMETIMES) { id } }');
    expect(badGraphql.body.errors?.[0]?.extensions).toMatchObject({ aeCode: 4 });
    expect(await settingsOf(tenant)).toMatchObject({ signInErrors: 'uniform' });
    // Only the key's own application changes: another tenant's is as it was.
    expect(await settingsOf(other)).not.toHaveProperty('signInErrors');
  });
});
