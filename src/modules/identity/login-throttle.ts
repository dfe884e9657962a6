import type { Redis } from 'ioredis';
import { limiterKey, limiterOf, openLimiterRedis, type LimiterLog } from '../../lib/limiter-store.js';
import { RateLimiterRes, type IRateLimiterOptions, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Brute-force protection for sign-in: back-off, never a permanent lockout (a lockout would let
 * anyone lock a member out for good by guessing wrong on purpose).
 *
 * Every attempt is reserved before its credentials are checked, and counts as a failure unless it
 * succeeds: the reservation is one atomic step of the store (in Redis as in process), so a burst of
 * concurrent guesses is admitted exactly as the same guesses one after another would be. An
 * attempt past the free failures holds the identity while it is checked; its failure then starts
 * the back-off it earns.
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
 * Per address, within one account: at most `failuresPerFanAddress` (100) failures in
 * `addressWindowSeconds` (15 minutes) from a fan's address (a browser's connection, or the `ip` an
 * application names), and `failuresPerServerAddress` (1,000) from the address of an application's
 * server calling with its key, per application; the next attempt blocks the address for
 * `addressBlockSeconds` (15 minutes). This slows one machine trying one password on many
 * identities, which the per-identity rule cannot see. A success gives its address point back.
 */
export const throttleRules = {
  freeFailures: 5,
  firstBlockSeconds: 1,
  maxBlockSeconds: 15 * 60,
  failureMemorySeconds: 24 * 60 * 60,
  failuresPerFanAddress: 100,
  failuresPerServerAddress: 1000,
  addressWindowSeconds: 15 * 60,
  addressBlockSeconds: 15 * 60,
} as const;

export interface ThrottleDecision {
  allowed: boolean;
  /** Whole seconds until a new attempt may be made; 0 when allowed. */
  retryAfterSeconds: number;
}

/** An admitted attempt: what its failure costs the identity (0 for a free failure). */
export interface Reservation extends ThrottleDecision {
  /** The back-off its failure starts, in seconds; until then the attempt holds the identity. */
  backOffSeconds: number;
}

/**
 * An address budget an attempt draws from. `fan`: a fan's own address (a browser's connection, or
 * the `ip` an application names); `server`: the connection of an application's server, which signs
 * in many fans. The key says whose budget it is (account, application, address).
 */
export interface AddressBudget {
  kind: 'fan' | 'server';
  key: string;
}

const addressRules = (points: number, keyPrefix: string) => ({
  points,
  duration: throttleRules.addressWindowSeconds,
  blockDuration: throttleRules.addressBlockSeconds,
  keyPrefix,
});

/** The counters, each a rate-limiter-flexible limiter under its own key prefix. */
const limiterRules = {
  /** The free failures per identity: a reservation taken here needs no back-off. */
  free: { points: throttleRules.freeFailures, duration: throttleRules.failureMemorySeconds, keyPrefix: 'marquee:login:free' },
  /** Failures per identity past the free ones; a count with a long memory, never a limit in itself. */
  failures: { points: Number.MAX_SAFE_INTEGER, duration: throttleRules.failureMemorySeconds, keyPrefix: 'marquee:login:fail' },
  /**
   * The identity's current back-off: present (blocked) or absent, with its own expiry. Taking it
   * while absent is also what admits an attempt past the free ones, one at a time.
   */
  blocks: { points: 1, duration: throttleRules.maxBlockSeconds, keyPrefix: 'marquee:login:block' },
  /**
   * The attempt past the free failures being checked now: taking it while absent is atomic, so of
   * concurrent attempts one gets it. It ends with the check, or after `maxBlockSeconds` should the
   * check never end (a gateway stopped in the middle).
   */
  checks: { points: 1, duration: throttleRules.maxBlockSeconds, keyPrefix: 'marquee:login:check' },
  /** Failures per fan address, blocked past the limit. */
  fan: addressRules(throttleRules.failuresPerFanAddress, 'marquee:login:ip'),
  /** Failures per application server address, blocked past the limit. */
  server: addressRules(throttleRules.failuresPerServerAddress, 'marquee:login:server'),
} satisfies Record<string, IRateLimiterOptions>;

type Limiters = Record<keyof typeof limiterRules, RateLimiterAbstract>;

/**
 * The login back-off, in process by default or shared through Redis so that every gateway sees the
 * same counts (an attacker spreading guesses over gateways gains nothing).
 *
 * Time is kept by the store (Redis expiries, or the in-process store's clock), not by this class.
 */
export class LoginThrottle {
  private constructor(
    private readonly limiters: Limiters,
    private readonly redis?: Redis,
  ) {}

  static async create(options: { redisUrl?: string; log?: LimiterLog } = {}): Promise<LoginThrottle> {
    const redis = options.redisUrl ? await openLimiterRedis(options.redisUrl, options.log) : undefined;
    // While Redis is unreachable each limiter falls back to memory: sign-ins keep working and keep
    // being throttled per gateway, instead of failing or going unthrottled.
    return new LoginThrottle(
      limitersOf((rules) => limiterOf(rules, redis)),
      redis,
    );
  }

  /**
   * Reserves an attempt for the identity from these addresses, before its credentials are checked.
   * When allowed, the attempt is counted as a failure already: `failed` or `succeeded` must follow.
   * When refused, nothing is counted.
   *
   * While another attempt past the free failures is being checked, this one waits for its outcome
   * (at most `checkWaitMs`), as it would have come after it one at a time: a success lets it in, a
   * failure's back-off refuses it. So a member's own concurrent sign-ins (a double submit, a client
   * race) all go through, and concurrent guesses are checked no faster than one after another.
   */
  async reserve(identity: string, addresses: readonly AddressBudget[]): Promise<Reservation> {
    const key = limiterKey(identity);
    const deadline = Date.now() + checkWaitMs;
    for (;;) {
      const { result, failuresSeen } = await this.tryReserve(key, addresses);
      if (failuresSeen === undefined) return result;
      const outcome = await this.outcomeOfCheck(key, failuresSeen, deadline);
      // Behind a failure, this attempt is within the back-off that failure started.
      if (outcome === 'failed') return refused((await this.limiters.blocks.get(key))?.msBeforeNext || throttleRules.firstBlockSeconds * 1000);
      if (outcome === 'unfinished') return result;
    }
  }

  /**
   * Waits, reading only, for the end of the check being made: `failed` when the failure count grew
   * past the one it started from (a success clears it), `unfinished` past the deadline.
   */
  private async outcomeOfCheck(key: string, failuresSeen: number, deadline: number): Promise<'succeeded' | 'failed' | 'unfinished'> {
    const { checks, failures } = this.limiters;
    for (let pause = 5; Date.now() < deadline; pause = Math.min(pause * 2, 100)) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      if (await checks.get(key)) continue;
      return ((await failures.get(key))?.consumedPoints ?? 0) > failuresSeen ? 'failed' : 'succeeded';
    }
    return 'unfinished';
  }

  /** The attempt, or its refusal; `failuresSeen` when refused because another attempt is being checked. */
  private async tryReserve(key: string, addresses: readonly AddressBudget[]): Promise<{ result: Reservation; failuresSeen?: number }> {
    const taken = await Promise.all(addresses.map((address) => this.takeAddress(address)));
    const addressWait = Math.max(0, ...taken.map((outcome) => outcome.waitMs));
    const admitted = addresses.filter((_address, i) => taken[i].waitMs === 0);
    if (addressWait > 0) {
      await this.giveBack(admitted);
      return { result: refused(addressWait) };
    }
    const identityTaken = await this.takeIdentity(key);
    if (identityTaken.waitMs > 0) {
      await this.giveBack(admitted);
      return { result: refused(identityTaken.waitMs), failuresSeen: identityTaken.failuresSeen };
    }
    return { result: { allowed: true, retryAfterSeconds: 0, backOffSeconds: identityTaken.backOffSeconds } };
  }

  /** A reserved attempt failed: it stays counted, and the back-off it earned starts now. */
  async failed(identity: string, reservation: Reservation): Promise<void> {
    if (reservation.backOffSeconds === 0) return;
    const key = limiterKey(identity);
    const { failures, blocks, checks } = this.limiters;
    // Counted and backing off before the check ends, so whoever waited for it or takes it next sees both.
    await Promise.all([failures.penalty(key, 1), blocks.block(key, reservation.backOffSeconds)]);
    await checks.delete(key);
  }

  /** A reserved attempt succeeded: the identity's count and back-off are cleared, the addresses get their point back. */
  async succeeded(identity: string, addresses: readonly AddressBudget[]): Promise<void> {
    const key = limiterKey(identity);
    const { free, failures, blocks, checks } = this.limiters;
    await Promise.all([free.delete(key), failures.delete(key), blocks.delete(key), checks.delete(key), this.giveBack(addresses)]);
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => {});
  }

  /** One point of the address's budget; the wait when it is spent (the store then blocks the address). */
  private async takeAddress(address: AddressBudget): Promise<{ waitMs: number }> {
    const taken = await settled(this.limiters[address.kind].consume(limiterKey(address.key)));
    return { waitMs: taken.ok ? 0 : Math.max(1, taken.result.msBeforeNext) };
  }

  private async giveBack(addresses: readonly AddressBudget[]): Promise<void> {
    await Promise.all(addresses.map((address) => this.limiters[address.kind].reward(limiterKey(address.key))));
  }

  /**
   * A free failure when one is left; past them, the one attempt the back-off admits, alone: it
   * takes the identity's check (atomic, so of concurrent attempts one gets it), then looks for a
   * back-off, which a failed check sets before it ends.
   */
  private async takeIdentity(key: string): Promise<{ waitMs: number; backOffSeconds: number; failuresSeen?: number }> {
    const { free, failures, blocks, checks } = this.limiters;
    const freeTaken = await settled(free.consume(key));
    if (freeTaken.ok) {
      // A new run of free failures (the last one forgotten): the count past them starts again too.
      if (freeTaken.result.consumedPoints === 1) await failures.delete(key);
      return { waitMs: 0, backOffSeconds: 0 };
    }
    const check = await settled(checks.consume(key));
    if (!check.ok) {
      // The count before the check being made: its failure adds to it, a success clears it.
      const failuresSeen = (await failures.get(key))?.consumedPoints ?? 0;
      return { waitMs: throttleRules.firstBlockSeconds * 1000, backOffSeconds: 0, failuresSeen };
    }
    const block = await blocks.get(key);
    if (block && block.consumedPoints > 0 && block.msBeforeNext > 0) {
      await checks.delete(key);
      return { waitMs: block.msBeforeNext, backOffSeconds: 0 };
    }
    // Alone with the check, this attempt reads the count it would add to without a race.
    const counted = (await failures.get(key))?.consumedPoints ?? 0;
    return { waitMs: 0, backOffSeconds: backOffSeconds(throttleRules.freeFailures + counted + 1) };
  }
}

/** How long an attempt waits for the outcome of another being checked before it is refused. */
export const checkWaitMs = 10_000;

function limitersOf(make: (rules: IRateLimiterOptions) => RateLimiterAbstract): Limiters {
  const entries = Object.entries(limiterRules).map(([name, rules]) => [name, make(rules)]);
  return Object.fromEntries(entries) as Limiters;
}

function refused(waitMs: number): Reservation {
  return { allowed: false, retryAfterSeconds: Math.ceil(waitMs / 1000), backOffSeconds: 0 };
}

/** The block after the `failures`-th consecutive failure: none, then 1 s doubling up to the cap. */
export function backOffSeconds(failures: number): number {
  const beyond = failures - throttleRules.freeFailures;
  if (beyond <= 0) return 0;
  // The exponent is clamped so a very long run of failures cannot overflow to Infinity.
  return Math.min(throttleRules.firstBlockSeconds * 2 ** Math.min(beyond - 1, 30), throttleRules.maxBlockSeconds);
}

/** A consume's answer, its refusal (a spent budget: no error here) as a value. */
async function settled(consumed: Promise<RateLimiterRes>): Promise<{ ok: boolean; result: RateLimiterRes }> {
  try {
    return { ok: true, result: await consumed };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { ok: false, result: rejection };
  }
}
