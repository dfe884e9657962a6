import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetAddress } from '../../src/lib/client-address.js';
import { limiterKey } from '../../src/lib/limiter-store.js';
import { unknownKeysPerMinute } from '../../src/lib/rate-limit.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * What a call's budget is counted against: a credential only opens a budget of its own once it is
 * known to be real, and the client address is the one the trusted proxies name, not one the client
 * writes into X-Forwarded-For itself.
 */
const limit = 20;
let database: TestGateway['database'];
let owner: TestGateway;
let tenant: Tenant;

beforeAll(async () => {
  owner = await startTestGateway();
  database = owner.database;
  tenant = await owner.tenant('advanced');
});
afterAll(() => owner.close());

/** A gateway over the shared database with its own budgets (a limit of 20 calls a minute). */
async function withGateway(env: Record<string, string>, run: (t: TestGateway) => Promise<void>) {
  const t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: String(limit), ...env }, database);
  try {
    await run(t);
  } finally {
    await t.gateway.close();
  }
}

/** A documentation address no earlier run used, so budgets a shared Redis still holds do not interfere. */
const freshAddress = () => `2001:db8:${randomInt(1, 0xffff).toString(16)}:${randomInt(1, 0xffff).toString(16)}::1`;
const madeUpJwt = (index: number) => `eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiIke${index}In0.c2lnbmF0dXJl${index}`;

async function madeUpBearers(t: TestGateway, count: number, remoteAddress: string) {
  const answers = [];
  for (let index = 0; index < count; index += 1) {
    const response = await t.request({ url: '/v1.1/app/info', remoteAddress, headers: { authorization: `Bearer ${madeUpJwt(index)}` } });
    answers.push({ status: response.statusCode, code: response.json().error?.code as number | undefined });
  }
  return answers;
}

describe('made-up credentials', () => {
  it('made-up bearer tokens share the address budget: the 21st of 40 is refused at a limit of 20', async () => {
    await withGateway({}, async (t) => {
      const answers = await madeUpBearers(t, 40, '203.0.113.10');
      expect(answers.slice(0, limit)).toEqual(Array(limit).fill({ status: 401, code: 15 }));
      expect(answers.slice(limit)).toEqual(Array(40 - limit).fill({ status: 429, code: 6 }));
      // Another address keeps its own budget, and a real key its own.
      expect((await t.rest(tenant, 'GET', '/app/info', {}, { key: 'header', remoteAddress: '203.0.113.11' })).status).toBe(200);
    });
  });

  it('a made-up token spends the address budget that anonymous calls spend, and a made-up key too', async () => {
    await withGateway({ RATE_LIMIT_PER_MINUTE: '3' }, async (t) => {
      const remoteAddress = '203.0.113.12';
      for (let index = 0; index < 3; index += 1) {
        const anonymous = await t.request({ url: '/v1.1/app/info', remoteAddress });
        expect(anonymous.json().error.code).toBe(1);
      }
      const token = await t.request({ url: '/v1.1/app/info', remoteAddress, headers: { authorization: `Bearer ${madeUpJwt(1)}` } });
      expect(token.statusCode).toBe(429);
      expect(token.headers['ratelimit-remaining']).toBe('0');
      const key = await t.request({ url: '/v1.1/app/info', remoteAddress, headers: { 'x-api-key': 'mq_made-up-key' } });
      expect(key.statusCode).toBe(429);
      // The real key is not the address's: it still has its whole budget.
      const real = await t.rest(tenant, 'GET', '/app/info', {}, { key: 'header', remoteAddress });
      expect(real.status).toBe(200);
      expect(real.headers['ratelimit-remaining']).toBe('2');
    });
  });

  it(`made-up tokens count as unknown keys: past ${unknownKeysPerMinute}, GraphQL refuses them with code 6 too`, async () => {
    await withGateway({ RATE_LIMIT_PER_MINUTE: '1000' }, async (t) => {
      const remoteAddress = '203.0.113.13';
      const viewer = (jwt: string) => t.request({ method: 'POST', url: '/graphql', remoteAddress, headers: { authorization: `Bearer ${jwt}` }, payload: { query: '{ viewer { id } }' } });
      for (let index = 0; index < unknownKeysPerMinute; index += 1) {
        expect((await viewer(madeUpJwt(index))).json().errors[0].extensions).toMatchObject({ aeCode: 15 });
      }
      const refused = await viewer(madeUpJwt(99));
      expect(refused.statusCode).toBe(429);
      expect(refused.json().errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', aeCode: 6 });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  // CI sets TEST_REDIS_URL; the keys made are only visible in a shared store.
  it.skipIf(!process.env.TEST_REDIS_URL)('made-up tokens and keys create no limiter key of their own in Redis', async () => {
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      await withGateway({ REDIS_URL: process.env.TEST_REDIS_URL! }, async (t) => {
        const remoteAddress = freshAddress();
        await madeUpBearers(t, 40, remoteAddress);
        for (let index = 0; index < 5; index += 1) {
          await t.request({ url: '/v1.1/app/info', remoteAddress, headers: { 'x-api-key': `mq_made-up-${index}` } });
        }
        const ownKeys = [...Array.from({ length: 40 }, (_, index) => madeUpJwt(index)), ...Array.from({ length: 5 }, (_, index) => `mq_made-up-${index}`)];
        const existing = await Promise.all(ownKeys.map((value) => redis.exists(`marquee:rl:${limiterKey(value)}`)));
        expect(existing.filter(Boolean)).toEqual([]);
        // What they spent is the address's (an IPv6 address's /64): its budget and its count of unknown keys.
        expect(Number(await redis.get(`marquee:rl:${limiterKey(`ip:${budgetAddress(remoteAddress)}`)}`))).toBeGreaterThanOrEqual(limit);
        expect(Number(await redis.get(`marquee:rl:unknown:${limiterKey(budgetAddress(remoteAddress))}`))).toBeGreaterThanOrEqual(unknownKeysPerMinute);
      });
    } finally {
      redis.disconnect();
    }
  });
});

describe('behind one trusted proxy (TRUST_PROXY=1)', () => {
  const proxy = '10.0.0.2';
  const through = (real: string, spoofed: string) => `${spoofed}, ${real}`;

  it('limits `X-Forwarded-For: spoofed, real` as the real address, whatever the spoofed one', async () => {
    await withGateway({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '3' }, async (t) => {
      const statuses = [];
      for (let index = 0; index < 5; index += 1) {
        const response = await t.request({ url: '/v1.1/app/info', remoteAddress: proxy, headers: { 'x-forwarded-for': through('203.0.113.20', `192.0.2.${index}`) } });
        statuses.push(response.statusCode);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      // Another real client behind the same proxy has its own budget.
      const other = await t.request({ url: '/v1.1/app/info', remoteAddress: proxy, headers: { 'x-forwarded-for': through('203.0.113.21', '192.0.2.1') } });
      expect(other.statusCode).toBe(401);
    });
  });

  it('keeps the unknown-key block on the real address when the spoofed one changes', async () => {
    await withGateway({ TRUST_PROXY: 'true', RATE_LIMIT_PER_MINUTE: '1000' }, async (t) => {
      const codes = [];
      for (let index = 0; index <= unknownKeysPerMinute; index += 1) {
        const response = await t.request({
          url: '/v1.1/app/info',
          remoteAddress: proxy,
          headers: { 'x-api-key': `mq_made-up-${index}`, 'x-forwarded-for': through('203.0.113.22', `192.0.2.${index}`) },
        });
        codes.push(response.json().error.code);
      }
      expect(codes).toEqual([...Array(unknownKeysPerMinute).fill(2), 6]);
    });
  });

  it('trusts listed proxies only: a client that connects directly is its own address', async () => {
    await withGateway({ TRUST_PROXY: '10.0.0.0/8', RATE_LIMIT_PER_MINUTE: '2' }, async (t) => {
      const direct = (spoofed: string) => t.request({ url: '/v1.1/app/info', remoteAddress: '203.0.113.30', headers: { 'x-forwarded-for': spoofed } });
      expect([(await direct('192.0.2.1')).statusCode, (await direct('192.0.2.2')).statusCode, (await direct('192.0.2.3')).statusCode]).toEqual([401, 401, 429]);
      // Through the listed proxy, the address it names counts.
      const proxied = await t.request({ url: '/v1.1/app/info', remoteAddress: proxy, headers: { 'x-forwarded-for': '192.0.2.9, 203.0.113.31' } });
      expect(proxied.statusCode).toBe(401);
    });
  });
});

describe('WebSocket connections behind one trusted proxy', () => {
  /** Opens /graphql as graphql-ws does, sends connection_init with the key, and answers the close code. */
  async function connectionClosedWith(port: number, forwardedFor: string, apiKey: string): Promise<number> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws', { headers: { 'x-forwarded-for': forwardedFor } });
    return new Promise((resolve, reject) => {
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { apiKey } })));
      socket.on('close', (code) => resolve(code));
      socket.on('error', reject);
    });
  }

  it('counts unknown keys against the real address, whatever the spoofed leftmost entry', async () => {
    await withGateway({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '1000' }, async (t) => {
      await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.gateway.app.server.address() as AddressInfo).port;
      const codes = [];
      for (let index = 0; index <= unknownKeysPerMinute; index += 1) {
        codes.push(await connectionClosedWith(port, `192.0.2.${index}, 203.0.113.40`, `mq_made-up-${index}`));
      }
      expect(codes).toEqual([...Array(unknownKeysPerMinute).fill(4403), 4429]);
      // Another real address behind the proxy is not blocked.
      expect(await connectionClosedWith(port, '192.0.2.1, 203.0.113.41', 'mq_made-up-other')).toBe(4403);
    });
  });
});
