import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Brute-force protection for sign-in, with back-off and no permanent lockout:
 * - per identity (account + network + user), the first `freeFailures` failures cost nothing; each
 *   further one blocks the identity for twice as long as the last (1 s, 2 s, 4 s … at most 15
 *   minutes). A success clears the count; the count itself is forgotten after a day of quiet.
 * - per client address, at most `failuresPerAddress` failures in 15 minutes, then 15 minutes out,
 *   which slows one machine trying many identities.
 */
export const throttleRules = {
  freeFailures: 5,
  maxBlockSeconds: 15 * 60,
  failureMemorySeconds: 24 * 60 * 60,
  failuresPerAddress: 100,
  addressWindowSeconds: 15 * 60,
} as const;

export interface ThrottleDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export class LoginThrottle {
  private constructor(
    private readonly failures: RateLimiterAbstract,
    private readonly blocks: RateLimiterAbstract,
    private readonly addresses: RateLimiterAbstract,
    private readonly redis?: Redis,
  ) {}

  static async create(options: { redisUrl?: string } = {}): Promise<LoginThrottle> {
    const rules = {
      failures: { points: Number.MAX_SAFE_INTEGER, duration: throttleRules.failureMemorySeconds, keyPrefix: 'marquee:login:fail' },
      blocks: { points: 1, duration: throttleRules.maxBlockSeconds, keyPrefix: 'marquee:login:block' },
      addresses: {
        points: throttleRules.failuresPerAddress,
        duration: throttleRules.addressWindowSeconds,
        blockDuration: throttleRules.addressWindowSeconds,
        keyPrefix: 'marquee:login:ip',
      },
    };
    if (!options.redisUrl) {
      return new LoginThrottle(new RateLimiterMemory(rules.failures), new RateLimiterMemory(rules.blocks), new RateLimiterMemory(rules.addresses));
    }
    const { Redis } = await import('ioredis');
    const redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      redis.once('ready', () => (clearTimeout(timer), resolve()));
    });
    const shared = (rule: (typeof rules)[keyof typeof rules]) =>
      new RateLimiterRedis({ storeClient: redis, ...rule, insuranceLimiter: new RateLimiterMemory(rule) });
    return new LoginThrottle(shared(rules.failures), shared(rules.blocks), shared(rules.addresses), redis);
  }

  async check(identity: string, ip: string | undefined): Promise<ThrottleDecision> {
    const [blocked, address] = await Promise.all([this.blocks.get(key(identity)), ip ? this.addresses.get(key(ip)) : null]);
    const waits = [
      blocked && blocked.consumedPoints >= 1 ? blocked.msBeforeNext : 0,
      address && address.consumedPoints > throttleRules.failuresPerAddress ? address.msBeforeNext : 0,
    ];
    const wait = Math.max(...waits);
    return { allowed: wait <= 0, retryAfterSeconds: Math.ceil(wait / 1000) };
  }

  async recordFailure(identity: string, ip: string | undefined): Promise<void> {
    const counted = await this.failures.penalty(key(identity), 1);
    const beyond = counted.consumedPoints - throttleRules.freeFailures;
    if (beyond > 0) {
      const seconds = Math.min(2 ** (beyond - 1), throttleRules.maxBlockSeconds);
      await this.blocks.block(key(identity), seconds);
    }
    if (ip) await this.addresses.consume(key(ip)).catch((rejection: unknown) => {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
    });
  }

  async recordSuccess(identity: string): Promise<void> {
    await Promise.all([this.failures.delete(key(identity)), this.blocks.delete(key(identity))]);
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => {});
  }
}

/** Identities and addresses are hashed before they become limiter keys (Redis never sees them). */
function key(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}
