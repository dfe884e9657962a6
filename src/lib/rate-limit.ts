import type { Redis } from 'ioredis';
import { AppError } from '../core/errors.js';
import { budgetAddress, defaultIpv6PrefixLength } from './client-address.js';
import { limiterKey, limiterOf, openLimiterRedis, secondsBeforeNext, type LimiterLog } from './limiter-store.js';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Unknown API keys an address may present in a minute. A caller with a real key never sends an
 * unknown one, so this is only reached by misconfiguration or guessing; past it, the address is
 * refused until its minute is over before any key it sends is looked up, so made-up keys cost no
 * database work.
 */
export const unknownKeysPerMinute = 20;

/**
 * A fixed window of `perMinute` calls per API key (or per client address without one), and a budget
 * of unknown keys per address. In process by default; shared through Redis when configured, so
 * several gateways enforce one budget.
 */
export class RateLimiter {
  private constructor(
    private readonly perMinute: number,
    private readonly limiter: RateLimiterAbstract,
    private readonly unknownKeys: RateLimiterAbstract,
    private readonly ipv6PrefixLength: number,
    private readonly redis?: Redis,
  ) {}

  /** `ipv6PrefixLength` (IPV6_PREFIX_LENGTH): IPv6 clients' budgets are counted by that prefix (client-address.ts, budgetAddress). */
  static async create(perMinute: number, redisUrl?: string, log?: LimiterLog, ipv6PrefixLength = defaultIpv6PrefixLength): Promise<RateLimiter> {
    const calls = { points: perMinute, duration: 60, keyPrefix: 'marquee:rl' };
    const unknownKeys = { points: unknownKeysPerMinute, duration: 60, keyPrefix: 'marquee:rl:unknown' };
    const redis = redisUrl ? await openLimiterRedis(redisUrl, log) : undefined;
    return new RateLimiter(perMinute, limiterOf(calls, redis), limiterOf(unknownKeys, redis), ipv6PrefixLength, redis);
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

  /** The budget of calls made without a key: the client address's (an IPv6 address's prefix). */
  addressBudget(address: string): string {
    return `ip:${budgetAddress(address, this.ipv6PrefixLength)}`;
  }

  /** Seconds until the address may present keys again, when it has sent too many unknown ones; else 0. */
  async unknownKeysBlockedFor(address: string): Promise<number> {
    const state = await this.unknownKeys.get(limiterKey(budgetAddress(address, this.ipv6PrefixLength)));
    return state && state.consumedPoints >= unknownKeysPerMinute ? secondsBeforeNext(state) : 0;
  }

  /** Counts an unknown key against the address that sent it. */
  async countUnknownKey(address: string): Promise<void> {
    await this.unknownKeys.consume(limiterKey(budgetAddress(address, this.ipv6PrefixLength))).catch((rejection: unknown) => {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
    });
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => {});
  }

  private decision(allowed: boolean, result: RateLimiterRes): RateDecision {
    return {
      allowed,
      limit: this.perMinute,
      remaining: Math.max(0, result.remainingPoints),
      resetSeconds: secondsBeforeNext(result),
    };
  }
}

/** What a rate-limited answer says about its budget: the RateLimit-* headers, and Retry-After when refused. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
    ...(decision.allowed ? {} : { 'Retry-After': String(decision.resetSeconds) }),
  };
}

/** The refusal of a call over its budget (code 6). */
export function rateLimitExceeded(decision: RateDecision): AppError {
  return new AppError('RATE_LIMITED', `Rate limit of ${decision.limit} calls a minute exceeded; retry in ${decision.resetSeconds} s.`);
}
