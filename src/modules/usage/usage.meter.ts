import type { Logger } from 'pino';
import type { Database } from '../../db/client.js';
import { shiftByPeriod, truncate } from '../../lib/time.js';
import { addHits, deleteHitsBefore } from './usage.queries.js';
import { usageRetention } from './usage.service.js';

const pruneEveryMs = 60 * 60 * 1000;

interface Tally {
  accountId: number;
  applicationId: number;
  hour: Date;
  hits: number;
}

/**
 * Counts API calls per application and hour in memory and writes them with one multi-row upsert
 * per flush, so metering adds no database work to a request. A failed flush puts its counts back;
 * `stop()` flushes whatever is left, so a graceful shutdown loses nothing. About once an hour a
 * flush also deletes hours older than the retention period, which usage never reports.
 */
export class UsageMeter {
  private pending = new Map<string, Tally>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastPruneAt = 0;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly flushEveryMs: number,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushEveryMs);
    this.timer.unref();
  }

  count(accountId: number, applicationId: number, at = new Date()): void {
    const hour = truncate(at, 'hour');
    this.add({ accountId, applicationId, hour, hits: 1 });
  }

  /** Calls counted but not yet written. */
  get pendingHits(): number {
    let sum = 0;
    for (const tally of this.pending.values()) sum += tally.hits;
    return sum;
  }

  /** Flushes are serialised so two never write the same counts. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      await this.writePending();
      if (Date.now() - this.lastPruneAt >= pruneEveryMs) await this.prune();
    });
    return this.flushing;
  }

  /** Deletes hours that have left the retention period. */
  async prune(now = new Date()): Promise<number> {
    this.lastPruneAt = now.getTime();
    const oldest = shiftByPeriod(now, -usageRetention.amount, usageRetention.unit);
    try {
      return await deleteHitsBefore(this.db, oldest);
    } catch (error) {
      this.log.error({ err: error }, 'usage retention prune failed; retried at the next interval');
      this.lastPruneAt = 0;
      return 0;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private add(tally: Tally): void {
    const key = `${tally.accountId}:${tally.applicationId}:${tally.hour.getTime()}`;
    const existing = this.pending.get(key);
    if (existing) existing.hits += tally.hits;
    else this.pending.set(key, { ...tally });
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await addHits(this.db, batch);
    } catch (error) {
      batch.forEach((tally) => this.add(tally));
      this.log.error({ err: error, tallies: batch.length }, 'usage flush failed; counts kept for the next flush');
    }
  }
}
