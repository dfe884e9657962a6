import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { budgetAddress } from '../../src/lib/client-address.js';
import { emailRules } from '../../src/modules/email/email-throttle.js';
import { throttleRules } from '../../src/modules/identity/login-throttle.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { whitelist } from '../widget/support.js';

/**
 * Per-address budgets hold for IPv6: one subscriber holds a whole /64 and may send from any of its
 * 2^64 addresses, so every per-address budget (emails, sign-in failures, the call budget of
 * /framework and of /v1.1 without a key, unknown keys) counts an IPv6 client by its prefix
 * (IPV6_PREFIX_LENGTH, 64).
 */
let t: TestGateway;
let tenant: Tenant;
const origin = 'https://fans.example.com';

beforeAll(async () => {
  t = await startTestGateway({ TRUST_PROXY: '1' });
  tenant = await t.tenant('advanced');
  await whitelist(t, tenant, 'fans.example.com');
});
afterAll(() => t?.close());

const hex = () => randomInt(1, 0xffff).toString(16);
/** A /64 no earlier run used (budgets a shared Redis still holds do not interfere), and an address in it. */
const freshPrefix = () => `2001:db8:${hex()}:${hex()}`;
const inPrefix = (prefix: string) => `${prefix}:${hex()}:${hex()}:${hex()}:${hex()}`;
const proxy = '10.0.0.2';

/** The page's "forgot password" post, from `address` behind the trusted proxy. */
function askReset(gateway: TestGateway, app: Tenant, address: string) {
  return gateway.request({
    method: 'POST',
    url: `/framework/${app.applicationId}/reset-password`,
    remoteAddress: proxy,
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    payload: new URLSearchParams({ email: `fan-${randomUUID()}@example.com` }).toString(),
  });
}

async function statusesOf(count: number, ask: (index: number) => Promise<{ statusCode: number }>): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index += 1) statuses.push((await ask(index)).statusCode);
  return statuses;
}

describe('the budget key of an address', () => {
  it('is an IPv4 address as it is, a mapped one as its IPv4, an IPv6 one its prefix', () => {
    expect(budgetAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(budgetAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(budgetAddress('2001:db8:1:2:aaaa::1')).toBe(budgetAddress('2001:DB8:1:2:ffff:1:2:3'));
    expect(budgetAddress('2001:db8:1:2::1')).not.toBe(budgetAddress('2001:db8:1:3::1'));
    expect(budgetAddress('2001:db8:1:2::1', 48)).toBe(budgetAddress('2001:db8:1:3::1', 48));
    expect(budgetAddress('2001:db8:1:2::1', 128)).not.toBe(budgetAddress('2001:db8:1:2::2', 128));
    // A key already: the same key.
    expect(budgetAddress(budgetAddress('2001:db8:1:2::1'))).toBe(budgetAddress('2001:db8:1:2::1'));
  });

  it('counts by IPV6_PREFIX_LENGTH, 64 by default, between 32 and 128', () => {
    expect(loadConfig({}).ipv6PrefixLength).toBe(64);
    expect(loadConfig({ IPV6_PREFIX_LENGTH: '56' }).ipv6PrefixLength).toBe(56);
    for (const bad of ['16', '129', 'sixty-four', '64.5']) expect(() => loadConfig({ IPV6_PREFIX_LENGTH: bad }), bad).toThrow(ConfigError);
  });
});

describe('emails asked for from one /64', () => {
  it(`are refused past the client budget (${emailRules.perClient}), whichever address of the /64 asks; another /64 has its own`, async () => {
    const prefix = freshPrefix();
    const statuses = await statusesOf(60, () => askReset(t, tenant, inPrefix(prefix)));
    expect(statuses.slice(0, emailRules.perClient)).toEqual(Array(emailRules.perClient).fill(200));
    expect(statuses.slice(emailRules.perClient)).toEqual(Array(60 - emailRules.perClient).fill(429));
    const refused = await askReset(t, tenant, inPrefix(prefix));
    expect(refused.json().error).toMatchObject({ code: 6 });
    // Another /64, even next to it, and an IPv4 client are not held up.
    expect((await askReset(t, tenant, inPrefix(freshPrefix()))).statusCode).toBe(200);
    expect((await askReset(t, tenant, `198.51.100.${randomInt(1, 254)}`)).statusCode).toBe(200);
  });

  it('IPv4 addresses keep a budget each, an IPv4-mapped address sharing its IPv4 one', async () => {
    const address = `192.0.2.${randomInt(1, 254)}`;
    const statuses = await statusesOf(emailRules.perClient + 1, (index) => askReset(t, tenant, index % 2 ? `::ffff:${address}` : address));
    expect(statuses.at(-1)).toBe(429);
    expect((await askReset(t, tenant, `203.0.113.${randomInt(1, 254)}`)).statusCode).toBe(200);
  });

  it('with IPV6_PREFIX_LENGTH=48, two /64s of one /48 share a budget', async () => {
    const wide = await startTestGateway({ TRUST_PROXY: '1', IPV6_PREFIX_LENGTH: '48' }, t.database);
    try {
      const site = `2001:db8:${hex()}`;
      const statuses = await statusesOf(emailRules.perClient + 1, (index) => askReset(wide, tenant, inPrefix(`${site}:${index.toString(16)}`)));
      expect(statuses.slice(0, emailRules.perClient)).toEqual(Array(emailRules.perClient).fill(200));
      expect(statuses.at(-1)).toBe(429);
      expect((await askReset(wide, tenant, inPrefix(`2001:db8:${hex()}:1`))).statusCode).toBe(200);
    } finally {
      await wide.gateway.close();
    }
  });
});

describe('calls without a key from one /64', () => {
  it('share one call budget on /framework and /v1.1', async () => {
    const limited = await startTestGateway({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '4' }, t.database);
    try {
      const prefix = freshPrefix();
      const call = (index: number) =>
        limited.request({
          url: index % 2 ? `/framework/js/${tenant.applicationId}` : '/v1.1/app/info',
          remoteAddress: proxy,
          headers: { referer: `${origin}/page`, 'x-forwarded-for': inPrefix(prefix) },
        });
      const statuses = await statusesOf(6, call);
      expect(statuses.slice(4)).toEqual([429, 429]);
      const other = await limited.request({ url: '/v1.1/app/info', remoteAddress: proxy, headers: { 'x-forwarded-for': inPrefix(freshPrefix()) } });
      expect(other.statusCode).toBe(401);
    } finally {
      await limited.gateway.close();
    }
  });

  it('share one budget of unknown keys', async () => {
    const prefix = freshPrefix();
    const codes: number[] = [];
    for (let index = 0; index <= 20; index += 1) {
      const response = await t.request({ url: '/v1.1/app/info', remoteAddress: proxy, headers: { 'x-api-key': `mq_made-up-${index}`, 'x-forwarded-for': inPrefix(prefix) } });
      codes.push(response.json().error.code as number);
    }
    expect(codes.at(-1)).toBe(6);
  });
});

describe('sign-in failures naming fans of one /64', () => {
  it(`block the /64 past ${throttleRules.failuresPerFanAddress}`, async () => {
    const prefix = freshPrefix();
    const server = `198.51.100.${randomInt(1, 254)}`;
    const login = (ip: string) =>
      t.rest(tenant, 'POST', '/member/login', { service: 'email', email: `fan-${randomUUID()}@example.com`, password: 'wrong guess', ip }, { remoteAddress: proxy, headers: { 'x-forwarded-for': server } });
    for (let index = 0; index < throttleRules.failuresPerFanAddress; index += 1) expect((await login(inPrefix(prefix))).json.error.code).toBe(13);
    expect((await login(inPrefix(prefix))).json.error.code).toBe(6);
    expect((await login(inPrefix(freshPrefix()))).json.error.code).toBe(13);
  }, 120_000);
});
