import { hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type IRateLimiterOptions, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';

/**
 * What the rate limiter and the throttles (sign-ins, emails, "no such account" answers) share: how
 * they reach Redis, how they make a limiter there or in process, and how they name their keys.
 */

/**
 * A Redis client for rate-limiter-flexible, connected before it is used. Loaded only when
 * configured, so the embedded setup never pays for the client. Without an offline queue, calls made
 * before the connection is up would all go to the in-process fallback (insuranceLimiter); waiting
 * briefly for it makes shared counts real from the first call. After two seconds the fallback
 * covers the gap; this never rejects.
 */
export async function openLimiterRedis(url: string, log: LimiterLog = silentLog): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  reportOutagesOnce(redis, log);
  await connected(redis, 2000);
  return redis;
}

/**
 * A limiter of `rules`: in process without Redis, else in Redis with an in-process fallback
 * (insuranceLimiter) for while Redis is unreachable: the budget keeps being counted per gateway
 * instead of calls failing or going uncounted.
 */
export function limiterOf(rules: IRateLimiterOptions, redis: Redis | undefined): RateLimiterAbstract {
  return redis ? new RateLimiterRedis({ storeClient: redis, ...rules, insuranceLimiter: new RateLimiterMemory(rules) }) : new RateLimiterMemory(rules);
}

/** Whole seconds, at least one, until a spent budget has points again (a `Retry-After`). */
export function secondsBeforeNext(state: Pick<RateLimiterRes, 'msBeforeNext'>): number {
  return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
}

/** Where the store reports that Redis went away or came back: the gateway's logger. */
export interface LimiterLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

const silentLog: LimiterLog = { warn: () => {}, info: () => {} };

/**
 * ioredis emits an `error` event on every failed reconnection attempt, and prints "Unhandled error
 * event" for each one when nobody listens. The limiters keep working on their in-process fallback
 * meanwhile, so one warning when Redis goes away and one line when it is back say all there is.
 */
function reportOutagesOnce(redis: Redis, log: LimiterLog): void {
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    log.warn({ err: error }, 'Redis is unreachable; rate limits use the in-process fallback until it is back');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({}, 'Redis is reachable again; rate limits are shared again');
  });
}

function connected(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
  });
}

/**
 * Keys, identities and addresses are hashed before they become limiter keys, so Redis never holds
 * a usable key, an email address or a client address, and any value makes a key of the same shape.
 */
export function limiterKey(value: string): string {
  return hash('sha256', value, 'base64url');
}
