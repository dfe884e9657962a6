import type { Config } from '../config.js';
import { callerKey } from '../core/caller-key.js';
import type { Caller } from '../core/context.js';
import { rateLimited } from '../core/errors.js';
import { KeyGate, KeyGateFull } from '../db/key-gate.js';

/** What a refused heavy request is told to wait before trying again, in seconds. */
export const heavyRetryAfterSeconds = 1;

/**
 * Heavy requests (priced at `cost` or more by graphql/limits.ts's estimate: a page of a thousand
 * members is about 64,000, the default page of ten about 630) run at most `perKey` at once per key,
 * `queuePerKey` more waiting in arrival order, the rest refused with RATE_LIMITED. A page's rows,
 * its JSON and its response are held in memory until it is sent, so a key's burst of large pages
 * otherwise took the gateway's memory and its database connections from every other key.
 * Both `/graphql` (limits.ts's cost plugin) and `/v1.1` (rest/plugin.ts) come through here.
 */
export class HeavyRequests {
  private readonly gate: KeyGate;

  constructor(private readonly settings: Config['heavyRequests']) {
    this.gate = new KeyGate({ concurrent: settings.perKey, queued: settings.queuePerKey });
  }

  /**
   * Waits for one of the caller's heavy slots when `cost` makes the request heavy, and answers its
   * release (a no-op for a light request); refuses with RATE_LIMITED (Retry-After) when the caller's
   * queue is full. `abandoned`: the request's (RequestStatements.signal); once its client is gone it
   * stops waiting, so a burst of departed clients cannot fill the queue for the live ones.
   */
  async admit(caller: Caller, cost: number, abandoned?: AbortSignal): Promise<() => void> {
    const key = callerKey(caller);
    if (cost < this.settings.cost || !key) return () => {};
    try {
      return await this.gate.acquire(key, { signal: abandoned });
    } catch (error) {
      if (!(error instanceof KeyGateFull)) throw error;
      throw rateLimited(
        `Too many large requests at once for this key: ${this.settings.perKey} run and ${this.settings.queuePerKey} wait; retry in ${heavyRetryAfterSeconds} s, or ask for smaller pages.`,
        heavyRetryAfterSeconds,
      );
    }
  }

  /** The heavy requests of `caller` running and waiting now. */
  load(caller: Caller): { running: number; waiting: number } {
    const key = callerKey(caller);
    return key ? this.gate.load(key) : { running: 0, waiting: 0 };
  }

  /** Takes one of the caller's slots as a heavy request would (tests hold a key's slots with it). */
  hold(caller: Caller): Promise<() => void> {
    return this.admit(caller, this.settings.cost);
  }
}
