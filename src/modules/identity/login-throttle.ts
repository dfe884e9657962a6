import type { Redis } from 'ioredis';
import { limiterKey, openLimiterRedis, type LimiterLog } from '../../lib/limiter-store.js';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type IRateLimiterOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

/**
 * Brute-force protection for sign-in: back-off, never a permanent lockout (a lockout would let
 * anyone lock a member out for good by guessing wrong on purpose).
 *
 * Per identity (for example `email:ada@example.com` of one account):
 * - the first `freeFailures` (5) consecutive failures cost nothing, so a member who mistypes is
 *   never slowed down;
 * - each further failure blocks the identity for twice as long as the one before: 1 s, 2 s, 4 s …
 *   at most `maxBlockSeconds` (15 minutes, reached at the 16th failure), which keeps online
 *   guessing at about a hundred tries a day;
 * - a success clears the count; without one, the count is forgotten `failureMemorySeconds` (a day)
 *   after the first failure.
 *
 * Per client address: at most `failuresPerAddress` (100) failures in `addressWindowSeconds` (15
 * minutes); the next failure blocks the address for `addressBlockSeconds` (15 minutes). This slows
 * one machine trying one password on many identities, which the per-identity rule cannot see.
 */
export const throttleRules = {
  freeFailures: 5,
  firstBlockSeconds: 1,
  maxBlockSeconds: 15 * 60,
  failureMemorySeconds: 24 * 60 * 60,
  failuresPerAddress: 100,
  addressWindowSeconds: 15 * 60,
  addressBlockSeconds: 15 * 60,
} as const;

export interface ThrottleDecision {
  allowed: boolean;
  /** Whole seconds until a new attempt may be made; 0 when allowed. */
  retryAfterSeconds: number;
}

/** The three counters, each a rate-limiter-flexible limiter under its own key prefix. */
const limiterRules = {
  /** Failures per identity; a count with a long memory, never a limit in itself. */
  failures: { points: Number.MAX_SAFE_INTEGER, duration: throttleRules.failureMemorySeconds, keyPrefix: 'marquee:login:fail' },
  /** The identity's current back-off: present (blocked) or absent, with its own expiry. */
  blocks: { points: 1, duration: throttleRules.maxBlockSeconds, keyPrefix: 'marquee:login:block' },
  /** Failures per address, blocked past the limit. */
  addresses: {
    points: throttleRules.failuresPerAddress,
    duration: throttleRules.addressWindowSeconds,
    blockDuration: throttleRules.addressBlockSeconds,
    keyPrefix: 'marquee:login:ip',
  },
} satisfies Record<string, IRateLimiterOptions>;

/**
 * The login back-off, in process by default or shared through Redis so that every gateway sees the
 * same counts (an attacker spreading guesses over gateways gains nothing).
 *
 * Time is kept by the store (Redis expiries, or the in-process store's clock), not by this class.
 */
export class LoginThrottle {
  private constructor(
    private readonly failures: RateLimiterAbstract,
    private readonly blocks: RateLimiterAbstract,
    private readonly addresses: RateLimiterAbstract,
    private readonly redis?: Redis,
  ) {}

  static async create(options: { redisUrl?: string; log?: LimiterLog } = {}): Promise<LoginThrottle> {
    if (!options.redisUrl) {
      return new LoginThrottle(
        new RateLimiterMemory(limiterRules.failures),
        new RateLimiterMemory(limiterRules.blocks),
        new RateLimiterMemory(limiterRules.addresses),
      );
    }
    const redis = await openLimiterRedis(options.redisUrl, options.log);
    // While Redis is unreachable each limiter falls back to memory (insuranceLimiter): sign-ins keep
    // working and keep being throttled per gateway, instead of failing or going unthrottled.
    const shared = (rules: IRateLimiterOptions) =>
      new RateLimiterRedis({ storeClient: redis, ...rules, insuranceLimiter: new RateLimiterMemory(rules) });
    return new LoginThrottle(shared(limiterRules.failures), shared(limiterRules.blocks), shared(limiterRules.addresses), redis);
  }

  /** Whether an attempt may go ahead now: refused while the identity or the address is backing off. */
  async check(identity: string, ip: string | undefined): Promise<ThrottleDecision> {
    const [block, address] = await Promise.all([
      this.blocks.get(limiterKey(identity)),
      ip ? this.addresses.get(limiterKey(ip)) : null,
    ]);
    const waitMs = Math.max(
      block && block.consumedPoints > 0 ? block.msBeforeNext : 0,
      // The address is blocked once its count passes the limit (the store then holds the block).
      address && address.consumedPoints > throttleRules.failuresPerAddress ? address.msBeforeNext : 0,
    );
    return waitMs > 0 ? { allowed: false, retryAfterSeconds: Math.ceil(waitMs / 1000) } : { allowed: true, retryAfterSeconds: 0 };
  }

  /** Counts a failed attempt against the identity and the address, starting a back-off when due. */
  async recordFailure(identity: string, ip: string | undefined): Promise<void> {
    const key = limiterKey(identity);
    const counted = await this.failures.penalty(key, 1);
    const seconds = backOffSeconds(counted.consumedPoints);
    await Promise.all([
      seconds > 0 ? this.blocks.block(key, seconds) : undefined,
      ip ? this.addresses.consume(limiterKey(ip)).catch(overLimitIsExpected) : undefined,
    ]);
  }

  /** A successful sign-in clears the identity's count and back-off (the address keeps its count). */
  async recordSuccess(identity: string): Promise<void> {
    const key = limiterKey(identity);
    await Promise.all([this.failures.delete(key), this.blocks.delete(key)]);
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => {});
  }
}

/** The block after the `failures`-th consecutive failure: none, then 1 s doubling up to the cap. */
export function backOffSeconds(failures: number): number {
  const beyond = failures - throttleRules.freeFailures;
  if (beyond <= 0) return 0;
  // The exponent is clamped so a very long run of failures cannot overflow to Infinity.
  return Math.min(throttleRules.firstBlockSeconds * 2 ** Math.min(beyond - 1, 30), throttleRules.maxBlockSeconds);
}

/** Going over the address limit is what starts its block, so that rejection is no error here. */
function overLimitIsExpected(rejection: unknown): void {
  if (!(rejection instanceof RateLimiterRes)) throw rejection;
}
