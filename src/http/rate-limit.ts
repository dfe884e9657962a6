import type { Redis } from 'ioredis';
import { limiterKey, openLimiterRedis } from '../lib/limiter-store.js';
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
    const redis = await openLimiterRedis(redisUrl);
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

  async consume(identity: string): Promise<RateDecision> {
    const key = limiterKey(identity);
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
