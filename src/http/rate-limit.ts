import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * A fixed window of `perMinute` calls per API key (or per client address without one). In process
 * by default; shared through Redis when configured, so several gateways enforce one budget.
 */
export class RateLimiter {
  private constructor(
    private readonly perMinute: number,
    private readonly limiter: RateLimiterAbstract,
    private readonly redis?: Redis,
  ) {}

  static async create(perMinute: number, redisUrl?: string): Promise<RateLimiter> {
    if (!redisUrl) return new RateLimiter(perMinute, new RateLimiterMemory({ points: perMinute, duration: 60 }));
    // Loaded only when configured: the embedded setup never pays for the Redis client.
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    // Without an offline queue, calls made before the connection is up would all go to the
    // in-process fallback; waiting (briefly) for it makes the shared budget real from the first call.
    await connected(redis, 2000);
    // Without Redis the limiter falls back to memory (insuranceLimiter) instead of failing calls.
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      points: perMinute,
      duration: 60,
      keyPrefix: 'marquee:rl',
      insuranceLimiter: new RateLimiterMemory({ points: perMinute, duration: 60 }),
    });
    return new RateLimiter(perMinute, limiter, redis);
  }

  /** Keys are hashed before they are used as limiter keys, so Redis never holds a usable key. */
  async consume(identity: string): Promise<RateDecision> {
    const key = createHash('sha256').update(identity).digest('base64url');
    try {
      const result = await this.limiter.consume(key);
      return this.decision(true, result);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return this.decision(false, rejection);
      throw rejection;
    }
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => {});
  }

  private decision(allowed: boolean, result: RateLimiterRes): RateDecision {
    return {
      allowed,
      limit: this.perMinute,
      remaining: Math.max(0, result.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
    };
  }
}

/** Resolves once connected, or after `timeoutMs` (the fallback limiter covers the gap); never rejects. */
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
