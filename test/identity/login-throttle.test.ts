import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LoginThrottle, backOffSeconds, throttleRules, type AddressBudget } from '../../src/modules/identity/login-throttle.js';

const redisUrl = process.env.TEST_REDIS_URL;

describe('backOffSeconds', () => {
  it('is free for five failures, then 1 s doubling, capped at 15 minutes', () => {
    expect([0, 1, 5].map(backOffSeconds)).toEqual([0, 0, 0]);
    expect([6, 7, 8, 9, 15].map(backOffSeconds)).toEqual([1, 2, 4, 8, 512]);
    expect([16, 17, 1000, Number.MAX_SAFE_INTEGER].map(backOffSeconds)).toEqual([900, 900, 900, 900]);
  });
});

const ada = 'email:ada@example.com';
const fan = (key: string): AddressBudget => ({ kind: 'fan', key });
const allowed = { allowed: true, retryAfterSeconds: 0 };

/** A failed attempt: reserved, then its check failed. Answers the reservation. */
async function fail(throttle: LoginThrottle, identity: string, addresses: AddressBudget[] = []) {
  const reservation = await throttle.reserve(identity, addresses);
  if (reservation.allowed) await throttle.failed(identity, reservation);
  return reservation;
}

describe('login throttle in process', () => {
  // The in-process store keeps time with Date.now and timers: faking them moves time without waiting.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets five failures pass, then admits one attempt per back-off, doubling up to 15 minutes', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 6; i += 1) expect(await fail(throttle, ada)).toMatchObject(allowed);
    const waits: number[] = [];
    for (let failure = 7; failure <= 19; failure += 1) {
      const refused = await throttle.reserve(ada, []);
      expect(refused.allowed).toBe(false);
      waits.push(refused.retryAfterSeconds);
      vi.advanceTimersByTime(refused.retryAfterSeconds * 1000 - 1);
      expect((await throttle.reserve(ada, [])).allowed).toBe(false);
      vi.advanceTimersByTime(1);
      expect(await fail(throttle, ada)).toMatchObject(allowed);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
    await throttle.close();
  });

  it('counts nothing for a refused attempt', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 6; i += 1) await fail(throttle, ada);
    // Blocked for 1 s after the 6th failure; knocking meanwhile does not make it longer or count.
    for (let i = 0; i < 50; i += 1) expect(await throttle.reserve(ada, [])).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    vi.advanceTimersByTime(1000);
    expect(await fail(throttle, ada)).toMatchObject(allowed);
    expect(await throttle.reserve(ada, [])).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    await throttle.close();
  });

  it('starts again from zero after a success', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 6; i += 1) await fail(throttle, ada);
    expect(await throttle.reserve(ada, [])).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    vi.advanceTimersByTime(1000);
    expect(await throttle.reserve(ada, [])).toMatchObject(allowed);
    await throttle.succeeded(ada, []);
    for (let i = 0; i < 6; i += 1) expect(await fail(throttle, ada)).toMatchObject(allowed);
    expect(await throttle.reserve(ada, [])).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    await throttle.close();
  });

  it('forgets failures a day after the first', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 10; i += 1) {
      expect(await fail(throttle, ada)).toMatchObject(allowed);
      vi.advanceTimersByTime(60 * 1000);
    }
    vi.advanceTimersByTime(throttleRules.failureMemorySeconds * 1000);
    for (let i = 0; i < 6; i += 1) expect(await fail(throttle, ada)).toMatchObject(allowed);
    expect(await throttle.reserve(ada, [])).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    await throttle.close();
  });

  it('keeps identities apart', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 6; i += 1) await fail(throttle, ada, [fan('203.0.113.1')]);
    expect((await throttle.reserve(ada, [fan('203.0.113.9')])).allowed).toBe(false);
    expect((await throttle.reserve('email:grace@example.com', [fan('203.0.113.1')])).allowed).toBe(true);
    await throttle.close();
  });

  it('blocks a fan address for 15 minutes after 100 failures in 15 minutes, across identities', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 100; i += 1) expect((await fail(throttle, `email:guess-${i}@example.com`, [fan('203.0.113.1')])).allowed).toBe(true);
    expect(await throttle.reserve('email:fresh@example.com', [fan('203.0.113.1')])).toMatchObject({ allowed: false, retryAfterSeconds: 900 });
    expect((await throttle.reserve('email:fresh@example.com', [fan('203.0.113.2')])).allowed).toBe(true);
    expect((await throttle.reserve('email:other@example.com', [])).allowed).toBe(true);
    vi.advanceTimersByTime(900 * 1000);
    expect((await throttle.reserve('email:fresh@example.com', [fan('203.0.113.1')])).allowed).toBe(true);
    await throttle.close();
  });

  it('gives a server address 1,000 failures, and every budget of an attempt must have room', async () => {
    const throttle = await LoginThrottle.create();
    const server: AddressBudget = { kind: 'server', key: 'app-server' };
    for (let i = 0; i < 1000; i += 1) {
      expect((await fail(throttle, `email:guess-${i}@example.com`, [server, fan(`198.51.100.${i % 250}`)])).allowed).toBe(true);
    }
    expect(await throttle.reserve('email:fresh@example.com', [server, fan('192.0.2.1')])).toMatchObject({ allowed: false, retryAfterSeconds: 900 });
    // The refused attempt took nothing from the fan's budget.
    for (let i = 0; i < 100; i += 1) expect((await fail(throttle, `email:other-${i}@example.com`, [fan('192.0.2.1')])).allowed).toBe(true);
    expect((await throttle.reserve('email:fresh@example.com', [fan('192.0.2.1')])).allowed).toBe(false);
    await throttle.close();
  });

  it('gives the addresses their point back on a success', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 500; i += 1) {
      const identity = `email:member-${i}@example.com`;
      expect((await throttle.reserve(identity, [fan('203.0.113.1')])).allowed).toBe(true);
      await throttle.succeeded(identity, [fan('203.0.113.1')]);
    }
    expect((await throttle.reserve('email:fresh@example.com', [fan('203.0.113.1')])).allowed).toBe(true);
    await throttle.close();
  });

  it('counts an address per window, so a slow trickle of failures is never blocked', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 150; i += 1) {
      expect((await fail(throttle, `email:guess-${i}@example.com`, [fan('203.0.113.1')])).allowed).toBe(true);
      vi.advanceTimersByTime(10 * 1000); // 90 failures per 15 minutes
    }
    await throttle.close();
  });
});

/** An attempt whose check takes a moment and ends as told; answers whether it was admitted. */
async function attempt(throttle: LoginThrottle, identity: string, addresses: AddressBudget[], right: boolean): Promise<boolean> {
  const reservation = await throttle.reserve(identity, addresses);
  if (!reservation.allowed) return false;
  await new Promise((resolve) => setTimeout(resolve, 20));
  await (right ? throttle.succeeded(identity, addresses) : throttle.failed(identity, reservation));
  return true;
}

describe('login throttle under concurrency', () => {
  it('checks concurrent wrong guesses no faster than the same guesses one after another', async () => {
    const throttle = await LoginThrottle.create();
    const admitted = await Promise.all(Array.from({ length: 100 }, () => attempt(throttle, ada, [fan('203.0.113.1')], false)));
    expect(admitted.filter(Boolean)).toHaveLength(throttleRules.freeFailures + 1);
    // The refused ones gave their address point back: 94 of the 100 are left.
    for (let i = 0; i < 94; i += 1) expect((await fail(throttle, `email:guess-${i}@example.com`, [fan('203.0.113.1')])).allowed).toBe(true);
    expect((await throttle.reserve('email:fresh@example.com', [fan('203.0.113.1')])).allowed).toBe(false);
    await throttle.close();
  });

  it("lets a member's own concurrent sign-ins all through", async () => {
    const throttle = await LoginThrottle.create();
    const admitted = await Promise.all(Array.from({ length: 50 }, () => attempt(throttle, ada, [fan('203.0.113.1')], true)));
    expect(admitted.every(Boolean)).toBe(true);
    await throttle.close();
  });
});

describe.skipIf(!redisUrl)('login throttle through Redis', () => {
  it('shares the back-off between gateways, and stores no identity in the clear', async () => {
    const [a, b] = await Promise.all([LoginThrottle.create({ redisUrl }), LoginThrottle.create({ redisUrl })]);
    const identity = `email:${randomUUID()}@example.com`;
    for (let i = 0; i < 6; i += 1) expect(await fail(i % 2 ? a : b, identity)).toMatchObject(allowed);
    expect(await a.reserve(identity, [])).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(await b.reserve(identity, [])).toMatchObject({ allowed: false, retryAfterSeconds: 1 });

    const redis = new Redis(redisUrl!);
    try {
      expect(await redis.keys(`*${identity}*`)).toEqual([]);
      const hashed = createHash('sha256').update(identity).digest('base64url');
      expect(await redis.exists(`marquee:login:fail:${hashed}`)).toBe(1);
    } finally {
      await redis.quit();
    }

    await a.succeeded(identity, []);
    expect(await b.reserve(identity, [])).toMatchObject(allowed);
    await Promise.all([a.close(), b.close()]);
  });

  it('shares the address limit between gateways', async () => {
    const [a, b] = await Promise.all([LoginThrottle.create({ redisUrl }), LoginThrottle.create({ redisUrl })]);
    const ip = fan(`test-address-${randomUUID()}`);
    for (let i = 0; i < 100; i += 1) expect((await fail(i % 2 ? a : b, `email:${randomUUID()}@example.com`, [ip])).allowed).toBe(true);
    const decision = await a.reserve('email:fresh@example.com', [ip]);
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterSeconds).toBeGreaterThan(890);
    expect((await b.reserve('email:fresh@example.com', [ip])).allowed).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it('admits concurrent attempts from two gateways as it would the same attempts one after another', async () => {
    const [a, b] = await Promise.all([LoginThrottle.create({ redisUrl }), LoginThrottle.create({ redisUrl })]);
    const identity = `email:${randomUUID()}@example.com`;
    const admitted = await Promise.all(Array.from({ length: 100 }, (_, i) => attempt(i % 2 ? a : b, identity, [], false)));
    expect(admitted.filter(Boolean)).toHaveLength(throttleRules.freeFailures + 1);
    const other = `email:${randomUUID()}@example.com`;
    expect((await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(i % 2 ? a : b, other, [], true)))).every(Boolean)).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });
});
