import type { Redis } from 'ioredis';
import { RateLimiterRes, type IRateLimiterOptions, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { limiterKey, limiterOf, openLimiterRedis, secondsBeforeNext, type LimiterLog } from '../../lib/limiter-store.js';

/**
 * Emails a fan can cause, bounded so that nobody can make the gateway flood an inbox or an SMTP
 * server. Per hour, within one account:
 * - `perRecipient` (5) messages to one address, whether or not a member has it (so a refusal here
 *   tells nothing about the address);
 * - `perMember` (3) messages about one member, whatever addresses they went to: fewer than per
 *   address, so a member gets at most three while a caller asking for a registered address sees
 *   the same answers as for an unknown one until the address's own budget is spent;
 * - `perClient` (30) requests from one client address (a browser's connection, or the `ip` an
 *   application names), whatever addresses they name.
 * In process by default, shared through Redis when configured, as the login throttle is.
 */
export const emailRules = { perRecipient: 5, perMember: 3, perClient: 30, windowSeconds: 3600 } as const;

const rules = {
  recipient: { points: emailRules.perRecipient, duration: emailRules.windowSeconds, keyPrefix: 'marquee:mail:to' },
  member: { points: emailRules.perMember, duration: emailRules.windowSeconds, keyPrefix: 'marquee:mail:member' },
  client: { points: emailRules.perClient, duration: emailRules.windowSeconds, keyPrefix: 'marquee:mail:ip' },
} satisfies Record<string, IRateLimiterOptions>;

export type EmailBudget = keyof typeof rules;

export interface EmailDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export class EmailThrottle {
  private constructor(
    private readonly limiters: Record<EmailBudget, RateLimiterAbstract>,
    private readonly redis?: Redis,
  ) {}

  static async create(options: { redisUrl?: string; log?: LimiterLog } = {}): Promise<EmailThrottle> {
    const redis = options.redisUrl ? await openLimiterRedis(options.redisUrl, options.log) : undefined;
    const limiters = Object.fromEntries(Object.entries(rules).map(([name, budget]) => [name, limiterOf(budget, redis)])) as Record<EmailBudget, RateLimiterAbstract>;
    return new EmailThrottle(limiters, redis);
  }

  /** Takes one point of each budget named; refused (and nothing more taken) at the first one spent. */
  async take(budgets: [EmailBudget, string][]): Promise<EmailDecision> {
    for (const [budget, key] of budgets) {
      try {
        await this.limiters[budget].consume(limiterKey(key));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return { allowed: false, retryAfterSeconds: secondsBeforeNext(rejection) };
      }
    }
    return { allowed: true, retryAfterSeconds: 0 };
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => {});
  }
}
