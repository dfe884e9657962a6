import type { Config } from '../config.js';
import { callerKey } from '../core/caller-key.js';
import type { Caller } from '../core/context.js';
import { rateLimited } from '../core/errors.js';
import { KeyGate, KeyGateFull } from '../db/key-gate.js';

/** What a refused request is told to wait before trying again, in seconds. */
export const requestRetryAfterSeconds = 1;

/**
 * Every request with a key (REST and GraphQL over HTTP) runs within a slot of its key and one of
 * its account: at most `perKey` of one key and `perAccount` of one account at once, `queuePerKey`
 * more of a key waiting in arrival order (and as many of an account's keys' admitted requests
 * waiting for the account), the rest refused with RATE_LIMITED. A slot is held until the answer
 * has been sent, so what one key holds of the gateway (the rows, the JSON and the response of
 * its pages, its statements on the pool) is bounded whatever each request is priced at: 600 pages
 * priced just under the heavy threshold, all at once, took the gateway from 239 MB to 1.9 GB and
 * another tenant waited 50 s for a member. Keys are counted as by the other per-key limits
 * (core/caller-key.ts); the account's bound keeps an account's many applications from adding up.
 */
export class RequestSlots {
  private readonly keys: KeyGate;
  private readonly accounts: KeyGate;

  constructor(private readonly settings: Config['requestSlots']) {
    this.keys = new KeyGate({ concurrent: settings.perKey, queued: settings.queuePerKey });
    this.accounts = new KeyGate({ concurrent: settings.perAccount, queued: settings.queuePerKey });
  }

  /**
   * Waits for a slot of the caller's key, then of its account, and answers the release (call it
   * once the answer is sent, or the client gone); a caller without a key takes none. Refuses with
   * RATE_LIMITED (Retry-After) when a queue is full. `abandoned` (RequestStatements.signal): once the
   * client is gone or the response deadline has passed, the request stops waiting and leaves its place.
   */
  async admit(caller: Caller, abandoned?: AbortSignal): Promise<() => void> {
    const key = callerKey(caller);
    if (!key || !('accountId' in caller)) return () => {};
    const releaseKey = await this.acquire(this.keys, key, abandoned);
    try {
      const releaseAccount = await this.acquire(this.accounts, `account:${caller.accountId}`, abandoned);
      return () => {
        releaseAccount();
        releaseKey();
      };
    } catch (error) {
      releaseKey();
      throw error;
    }
  }

  private async acquire(gate: KeyGate, key: string, abandoned?: AbortSignal): Promise<() => void> {
    try {
      return await gate.acquire(key, { signal: abandoned });
    } catch (error) {
      if (!(error instanceof KeyGateFull)) throw error;
      const { perKey, perAccount, queuePerKey } = this.settings;
      throw rateLimited(
        `Too many requests at once for this key: ${perKey} run per key (${perAccount} per account) and ${queuePerKey} wait; retry in ${requestRetryAfterSeconds} s.`,
        requestRetryAfterSeconds,
      );
    }
  }

  /** The requests of `caller`'s key running and waiting now. */
  load(caller: Caller): { running: number; waiting: number } {
    const key = callerKey(caller);
    return key ? this.keys.load(key) : { running: 0, waiting: 0 };
  }

  /** The requests of account `accountId` running and waiting now (those admitted by their key). */
  accountLoad(accountId: number): { running: number; waiting: number } {
    return this.accounts.load(`account:${accountId}`);
  }

  /** Takes one of the caller's slots as a request would (tests hold a key's slots with it). */
  hold(caller: Caller): Promise<() => void> {
    return this.admit(caller);
  }
}
