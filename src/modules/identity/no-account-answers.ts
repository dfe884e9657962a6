import type { Redis } from 'ioredis';
import { RateLimiterRes, type IRateLimiterOptions, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { limiterKey, limiterOf, openLimiterRedis, secondsBeforeNext, type LimiterLog } from '../../lib/limiter-store.js';

/**
 * The on-page flow's "no such account" answers (code 13), bounded. AE's framework tells the page
 * whether an address is registered (13) or its password wrong (18), and the page shows it; but
 * each 13 also tells whoever asks that an address is not a member, so a client that asks for
 * address after address learns which are. Per account and client address (an IPv6 client by its
 * prefix), at most `perAddress` (10) such answers in `windowSeconds` (15 minutes): a fan mistyping
 * an address is never near it, a list being tried is stopped at its tenth. Past it every on-page
 * sign-in from that address is refused (code 6) until the window ends, known address or not:
 * refusing only the unknown ones would tell them apart still. In process by default, shared
 * through Redis when configured, as the login throttle is.
 */
export const noAccountRules = { perAddress: 10, windowSeconds: 15 * 60 } as const;

const rules: IRateLimiterOptions = { points: noAccountRules.perAddress, duration: noAccountRules.windowSeconds, keyPrefix: 'marquee:login:no-account' };

export class NoAccountAnswers {
  private constructor(
    private readonly limiter: RateLimiterAbstract,
    private readonly redis?: Redis,
  ) {}

  static async create(options: { redisUrl?: string; log?: LimiterLog } = {}): Promise<NoAccountAnswers> {
    const redis = options.redisUrl ? await openLimiterRedis(options.redisUrl, options.log) : undefined;
    return new NoAccountAnswers(limiterOf(rules, redis), redis);
  }

  /** Seconds until the budget of `key` (account and address) has answers again, when it is spent; else 0. */
  async spentFor(key: string): Promise<number> {
    const state = await this.limiter.get(limiterKey(key));
    return state && state.consumedPoints >= noAccountRules.perAddress ? secondsBeforeNext(state) : 0;
  }

  /**
   * Counts one "no such account" answer; 0 when it may be given, else the seconds until the budget
   * has answers again (the answer is then refused). Counting is one atomic step of the store, so
   * concurrent requests get no more answers than the budget holds.
   */
  async take(key: string): Promise<number> {
    try {
      await this.limiter.consume(limiterKey(key));
      return 0;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return secondsBeforeNext(rejection);
    }
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => {});
  }
}
