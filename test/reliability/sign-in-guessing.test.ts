import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throttleRules } from '../../src/modules/identity/login-throttle.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { whitelist } from '../widget/support.js';

/**
 * Password guessing as a hostile client does it: through every door that checks a password
 * (login and registration, REST, GraphQL and the hosted pages), in bursts, from many tenants at
 * one address, and rotating the `ip` an application may name. With TEST_REDIS_URL the gateway
 * keeps its counters in Redis, as production does.
 */
let t: TestGateway;
let tenant: Tenant;
const password = 'correct horse battery';

beforeAll(async () => {
  // The call budget is not what these tests are about: high enough never to answer first.
  t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000', ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}) });
  tenant = await t.tenant('advanced');
  await whitelist(t, tenant, 'fans.example.com');
});
afterAll(() => t.close());

/**
 * An address of its own per test and run: the counters outlive a run in Redis (and account ids
 * repeat between test databases), so each test signs in from addresses no earlier run used.
 */
const freshAddress = () => `10.${randomByte()}.${randomByte()}.${randomByte()}`;
const randomByte = () => Math.floor(Math.random() * 250) + 1;
const freshEmail = () => `fan-${randomUUID()}@example.com`;

async function registered(owner = tenant): Promise<string> {
  const email = freshEmail();
  const response = await t.rest(owner, 'POST', '/member/register', { service: 'email', email, password }, { remoteAddress: freshAddress() });
  expect(response.status, response.body).toBe(200);
  return email;
}

/**
 * What one attempt answered: `signed in`, `checked` (the password was compared and refused), `refused` (code 6),
 * or anything else as its code or status (`code 5`, `status 500`).
 */
type Outcome = string;

interface Door {
  name: string;
  attempt(email: string, guess: string, remoteAddress: string): Promise<Outcome>;
}

const restDoor = (path: string): Door => ({
  name: `REST ${path}`,
  async attempt(email, guess, remoteAddress) {
    const response = await t.rest(tenant, 'POST', path, { service: 'email', email, password: guess }, { remoteAddress });
    if (response.status === 200) return 'signed in';
    const code = response.json.error.code;
    if (code === 6) return 'refused';
    // 18: wrong password (login); 17: registered already with another password (register).
    return code === 18 || code === 17 ? 'checked' : `code ${code}`;
  },
});

const graphqlDoor = (field: 'login' | 'registerMember'): Door => ({
  name: `GraphQL ${field}`,
  async attempt(email, guess, remoteAddress) {
    const response = await t.request({
      method: 'POST',
      url: '/graphql',
      remoteAddress,
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
      payload: {
        query: `mutation ($email: String!, $password: String!) {
          ${field}(input: { credentials: { network: "email", email: $email, password: $password } }) { member { id } }
        }`,
        variables: { email, password: guess },
      },
    });
    const body = response.json();
    if (!body.errors) return 'signed in';
    const { code } = body.errors[0].extensions;
    if (code === 'RATE_LIMITED') return 'refused';
    return code === 'WRONG_PASSWORD' || code === 'CONFLICT' ? 'checked' : code;
  },
});

/** The widget's embedded registration form: no key, no CSRF token, only a whitelisted Origin. */
const embeddedRegisterDoor: Door = {
  name: 'widget register/embedded',
  async attempt(email, guess, remoteAddress) {
    const response = await t.request({
      method: 'POST',
      url: `/framework/flow/${tenant.applicationId}/register/embedded`,
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://fans.example.com' },
      payload: new URLSearchParams({ email, password: guess, return: 'https://fans.example.com/' }).toString(),
    });
    if (response.statusCode === 303) return 'signed in';
    if (response.statusCode === 429) return 'refused';
    return response.statusCode === 400 ? 'checked' : `status ${response.statusCode}`;
  },
};

const doors = [restDoor('/member/login'), restDoor('/member/register'), graphqlDoor('login'), graphqlDoor('registerMember'), embeddedRegisterDoor];

/**
 * How many of a burst of wrong guesses the back-off may check: the free failures and the one the
 * first back-off admits, plus one for each later back-off that ended while the burst was still
 * being answered (blocks of 1, 2, 4… seconds; on a busy machine a burst can outlast the first).
 * The bound is generous (the blocks are counted from the burst's start, not from the failure that
 * began them); that a burst is not checked whole is what is tested.
 */
function mostChecked(elapsedMs: number): number {
  let admitted = throttleRules.freeFailures + 1;
  for (let block = throttleRules.firstBlockSeconds * 1000, ends = block; ends <= elapsedMs; block *= 2, ends += block) admitted += 1;
  return admitted;
}

/** Guesses sent at once, and how long they took to be answered. */
async function burst<T>(count: number, guess: (i: number) => Promise<T>): Promise<{ outcomes: T[]; elapsedMs: number }> {
  const started = performance.now();
  const outcomes = await Promise.all(Array.from({ length: count }, (_, i) => guess(i)));
  return { outcomes, elapsedMs: performance.now() - started };
}

/** At least the free failures and one more were checked, at most what the back-off admits in the time, the rest refused. */
function expectThrottled(outcomes: string[], elapsedMs: number) {
  const checked = outcomes.filter((outcome) => outcome === 'checked').length;
  expect(checked).toBeGreaterThanOrEqual(throttleRules.freeFailures + 1);
  expect(checked).toBeLessThanOrEqual(mostChecked(elapsedMs));
  expect(outcomes.filter((outcome) => outcome === 'refused')).toHaveLength(outcomes.length - checked);
}

describe('every door that checks a password backs off alike', () => {
  it.each(doors.map((door) => [door.name, door] as const))('%s: 20 wrong guesses, then the right password is refused with code 6', async (_name, door) => {
    const email = await registered();
    const address = freshAddress();
    // Sent at once, as a script would: the store admits them as it would one after another.
    const { outcomes: guesses, elapsedMs } = await burst(20, (i) => door.attempt(email, `wrong guess ${i}`, address));
    // Five free failures and the one the first back-off admits are checked; the rest are refused unchecked.
    expectThrottled(guesses, elapsedMs);
    expect(await door.attempt(email, password, address)).toBe('refused');
    // The same back-off, whichever door: login from elsewhere is refused too.
    expect(await restDoor('/member/login').attempt(email, password, freshAddress())).toBe('refused');
  });

  it('counts guesses through all doors together', async () => {
    const email = await registered();
    const address = freshAddress();
    const { outcomes, elapsedMs } = await burst(20, (i) => doors[i % doors.length].attempt(email, `wrong guess ${i}`, address));
    expectThrottled(outcomes, elapsedMs);
  });

  it('a right password through registration clears the count, as a login does', async () => {
    const email = await registered();
    const address = freshAddress();
    for (let i = 0; i < throttleRules.freeFailures; i += 1) expect(await restDoor('/member/login').attempt(email, `wrong ${i}`, address)).toBe('checked');
    expect(await embeddedRegisterDoor.attempt(email, password, address)).toBe('signed in');
    for (let i = 0; i < throttleRules.freeFailures + 1; i += 1) expect(await restDoor('/member/login').attempt(email, `wrong again ${i}`, address)).toBe('checked');
  });
});

describe('concurrent guesses', () => {
  it('100 at once for one identity: only the attempts the back-off admits are checked, the rest refused with code 6', async () => {
    const email = await registered();
    const address = freshAddress();
    const login = restDoor('/member/login');
    const { outcomes, elapsedMs } = await burst(100, (i) => login.attempt(email, `wrong guess ${i}`, address));
    // As many as the same guesses made one after another in that time: the free failures and what the back-off admits.
    expectThrottled(outcomes, elapsedMs);
    expect(await login.attempt(email, password, address)).toBe('refused');
  });

  it('100 at once through registration are throttled the same way', async () => {
    const email = await registered();
    const address = freshAddress();
    const register = restDoor('/member/register');
    const { outcomes, elapsedMs } = await burst(100, (i) => register.attempt(email, `wrong guess ${i}`, address));
    expectThrottled(outcomes, elapsedMs);
  });
});

describe('the address budget', () => {
  const login = (owner: Tenant, email: string, guess: string, remoteAddress: string, ip?: string) =>
    t.rest(owner, 'POST', '/member/login', { service: 'email', email, password: guess, ip }, { remoteAddress });

  it("belongs to the account: another tenant's failures from one address do not block this one's", async () => {
    const a = await t.tenant('advanced');
    const b = await t.tenant('advanced');
    const email = await registered(b);
    // Two tenants' servers behind one address, both naming the same fan address.
    const server = freshAddress();
    const fan = freshAddress();
    for (let i = 0; i <= throttleRules.failuresPerFanAddress; i += 1) await login(a, freshEmail(), 'wrong guess', server, fan);
    expect((await login(a, freshEmail(), 'wrong guess', server, fan)).json.error.code).toBe(6);
    const signedIn = await login(b, email, password, server, fan);
    expect(signedIn.status, signedIn.body).toBe(200);
  });

  it('a named ip adds the fan budget: 100 failures naming one address block that address in the account', async () => {
    const server = freshAddress();
    const fan = freshAddress();
    for (let i = 0; i < throttleRules.failuresPerFanAddress; i += 1) {
      expect((await login(tenant, freshEmail(), 'wrong guess', server, fan)).json.error.code).toBe(13);
    }
    const refused = await login(tenant, freshEmail(), 'wrong guess', server, fan);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 6, type: 'RATE_LIMITED' });
    // Another fan of the same server is not held up.
    expect((await login(tenant, freshEmail(), 'wrong guess', server, freshAddress())).json.error.code).toBe(13);
  });

  it("cannot be escaped by rotating the named ip: the server's own budget still runs out", async () => {
    const server = freshAddress();
    const email = await registered();
    const codes = new Map<number, number>();
    for (let i = 0; i < throttleRules.failuresPerServerAddress; i += 1) {
      const code = (await login(tenant, freshEmail(), 'wrong guess', server, freshAddress())).json.error.code as number;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    expect(Object.fromEntries(codes)).toEqual({ 13: throttleRules.failuresPerServerAddress });
    expect((await login(tenant, freshEmail(), 'wrong guess', server, freshAddress())).json.error.code).toBe(6);
    // Every sign-in from that server waits now, even a right password with a new ip.
    const blocked = await login(tenant, email, password, server, freshAddress());
    expect(blocked.status).toBe(429);
    // Other servers, and other applications' budgets, are untouched.
    expect((await login(tenant, email, password, freshAddress(), freshAddress())).status).toBe(200);
    // A thousand password checks, one after another: more than the default time on a busy machine.
  }, 180_000);
});

describe('the hosted pages', () => {
  it('are rate limited per address like calls without a key, with the RateLimit headers', async () => {
    const limited = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '3' }, t.database);
    try {
      const address = freshAddress();
      const script = () => limited.request({ url: `/framework/js/${tenant.applicationId}`, remoteAddress: address, headers: { referer: 'https://fans.example.com/page' } });
      const answers = [await script(), await script(), await script()];
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
      expect(answers.map((answer) => answer.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
      expect(answers[0].headers['ratelimit-limit']).toBe('3');
      const refused = await script();
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.json().error).toMatchObject({ code: 6, type: 'RATE_LIMITED' });
      // The embedded registration form shares the address's budget; the page says what happened.
      const form = await limited.request({
        method: 'POST',
        url: `/framework/flow/${tenant.applicationId}/register/embedded`,
        remoteAddress: address,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://fans.example.com' },
        payload: new URLSearchParams({ email: freshEmail(), password, return: 'https://fans.example.com/' }).toString(),
      });
      expect(form.statusCode).toBe(429);
      expect(form.headers['retry-after']).toBeDefined();
      expect(form.body).toContain('Error code 6');
      // Another address has its own budget.
      const other = await limited.request({ url: `/framework/js/${tenant.applicationId}`, remoteAddress: freshAddress(), headers: { referer: 'https://fans.example.com/page' } });
      expect(other.statusCode).toBe(200);
    } finally {
      await limited.gateway.close();
    }
  });
});
