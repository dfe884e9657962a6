import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * What the rate limiter and the login throttle share: how they reach Redis, and how they name
 * their keys there.
 */

/**
 * A Redis client for rate-limiter-flexible, connected before it is used. Loaded only when
 * configured, so the embedded setup never pays for the client. Without an offline queue, calls made
 * before the connection is up would all go to the in-process fallback (insuranceLimiter); waiting
 * briefly for it makes shared counts real from the first call. After two seconds the fallback
 * covers the gap; this never rejects.
 */
export async function openLimiterRedis(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  await connected(redis, 2000);
  return redis;
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
  return createHash('sha256').update(value).digest('base64url');
}
