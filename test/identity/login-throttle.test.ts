import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LoginThrottle, backOffSeconds, throttleRules } from '../../src/modules/identity/login-throttle.js';

const redisUrl = process.env.TEST_REDIS_URL;

describe('backOffSeconds', () => {
  it('is free for five failures, then 1 s doubling, capped at 15 minutes', () => {
    expect([0, 1, 5].map(backOffSeconds)).toEqual([0, 0, 0]);
    expect([6, 7, 8, 9, 15].map(backOffSeconds)).toEqual([1, 2, 4, 8, 512]);
    expect([16, 17, 1000, Number.MAX_SAFE_INTEGER].map(backOffSeconds)).toEqual([900, 900, 900, 900]);
  });
});

describe('login throttle in process', () => {
  // The in-process store keeps time with Date.now and timers: faking them moves time without waiting.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets five failures pass, then refuses for a back-off that doubles up to 15 minutes', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 5; i += 1) {
      await throttle.recordFailure('email:ada@example.com', undefined);
      expect(await throttle.check('email:ada@example.com', undefined)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    }
    const waits: number[] = [];
    for (let failure = 6; failure <= 18; failure += 1) {
      await throttle.recordFailure('email:ada@example.com', undefined);
      const decision = await throttle.check('email:ada@example.com', undefined);
      expect(decision.allowed).toBe(false);
      waits.push(decision.retryAfterSeconds);
      vi.advanceTimersByTime(decision.retryAfterSeconds * 1000 - 1);
      expect((await throttle.check('email:ada@example.com', undefined)).allowed).toBe(false);
      vi.advanceTimersByTime(1);
      expect(await throttle.check('email:ada@example.com', undefined)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
    await throttle.close();
  });

  it('starts again from zero after a success', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 7; i += 1) await throttle.recordFailure('email:ada@example.com', undefined);
    expect(await throttle.check('email:ada@example.com', undefined)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    await throttle.recordSuccess('email:ada@example.com');
    expect(await throttle.check('email:ada@example.com', undefined)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    for (let i = 0; i < 5; i += 1) await throttle.recordFailure('email:ada@example.com', undefined);
    expect((await throttle.check('email:ada@example.com', undefined)).allowed).toBe(true);
    await throttle.recordFailure('email:ada@example.com', undefined);
    expect(await throttle.check('email:ada@example.com', undefined)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    await throttle.close();
  });

  it('forgets failures a day after the first', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 5; i += 1) await throttle.recordFailure('email:ada@example.com', undefined);
    vi.advanceTimersByTime(throttleRules.failureMemorySeconds * 1000);
    await throttle.recordFailure('email:ada@example.com', undefined);
    expect((await throttle.check('email:ada@example.com', undefined)).allowed).toBe(true);
    await throttle.close();
  });

  it('keeps identities apart', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 6; i += 1) await throttle.recordFailure('email:ada@example.com', '203.0.113.1');
    expect((await throttle.check('email:ada@example.com', '203.0.113.9')).allowed).toBe(false);
    expect((await throttle.check('email:grace@example.com', '203.0.113.1')).allowed).toBe(true);
    await throttle.close();
  });

  it('blocks an address for 15 minutes after 100 failures in 15 minutes, across identities', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 100; i += 1) await throttle.recordFailure(`email:guess-${i}@example.com`, '203.0.113.1');
    expect((await throttle.check('email:fresh@example.com', '203.0.113.1')).allowed).toBe(true);
    await throttle.recordFailure('email:guess-100@example.com', '203.0.113.1');
    expect(await throttle.check('email:fresh@example.com', '203.0.113.1')).toEqual({ allowed: false, retryAfterSeconds: 900 });
    expect((await throttle.check('email:fresh@example.com', '203.0.113.2')).allowed).toBe(true);
    expect((await throttle.check('email:fresh@example.com', undefined)).allowed).toBe(true);
    vi.advanceTimersByTime(900 * 1000);
    expect((await throttle.check('email:fresh@example.com', '203.0.113.1')).allowed).toBe(true);
    await throttle.close();
  });

  it('counts an address per window, so a slow trickle of failures is never blocked', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 150; i += 1) {
      await throttle.recordFailure(`email:guess-${i}@example.com`, '203.0.113.1');
      vi.advanceTimersByTime(10 * 1000); // 90 failures per 15 minutes
    }
    expect((await throttle.check('email:fresh@example.com', '203.0.113.1')).allowed).toBe(true);
    await throttle.close();
  });
});

describe.skipIf(!redisUrl)('login throttle through Redis', () => {
  it('shares the back-off between gateways, and stores no identity in the clear', async () => {
    const [a, b] = await Promise.all([LoginThrottle.create({ redisUrl }), LoginThrottle.create({ redisUrl })]);
    const identity = `email:${randomUUID()}@example.com`;
    for (let i = 0; i < 6; i += 1) await (i % 2 ? a : b).recordFailure(identity, undefined);
    expect(await a.check(identity, undefined)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await b.check(identity, undefined)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    await b.recordFailure(identity, undefined);
    expect(await a.check(identity, undefined)).toEqual({ allowed: false, retryAfterSeconds: 2 });

    const redis = new Redis(redisUrl!);
    try {
      expect(await redis.keys(`*${identity}*`)).toEqual([]);
      const hashed = createHash('sha256').update(identity).digest('base64url');
      expect(await redis.exists(`marquee:login:fail:${hashed}`)).toBe(1);
    } finally {
      await redis.quit();
    }

    await a.recordSuccess(identity);
    expect(await b.check(identity, undefined)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    await Promise.all([a.close(), b.close()]);
  });

  it('shares the address limit between gateways', async () => {
    const [a, b] = await Promise.all([LoginThrottle.create({ redisUrl }), LoginThrottle.create({ redisUrl })]);
    const ip = `test-address-${randomUUID()}`;
    for (let i = 0; i < 101; i += 1) await (i % 2 ? a : b).recordFailure(`email:${randomUUID()}@example.com`, ip);
    const decision = await a.check('email:fresh@example.com', ip);
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterSeconds).toBeGreaterThan(890);
    expect((await b.check('email:fresh@example.com', ip)).allowed).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });
});
