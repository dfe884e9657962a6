import type { Logger } from 'pino';
import type { Database } from '../../db/client.js';
import { databaseUnavailable, isDeadlock, memberMergedMeanwhile, retryTransaction } from '../../db/errors.js';
import { isAppError } from '../../core/errors.js';
import { PeriodicPass } from '../../lib/periodic-pass.js';
import { insertRecords } from './activities.queries.js';
import { claimNext, countFailedAttempt, deleteQueued, enqueueRecord, type QueuedRow } from './activities.queue.queries.js';
import { prepareRecords, type ActivityScope } from './activities.service.js';
import { publishRecorded } from './live-feed.js';
import type { RecordActivityInput } from './activities.types.js';

/** A queued record is tried this many times when the failure is ours (the database, say). */
const maxAttempts = 5;

/**
 * Records accepted with `async=1`. Enqueueing is one insert, so the caller gets its answer at once;
 * the queue is a table, so what is queued survives a restart. Each record is stored in the same
 * transaction that removes it from the queue, so it is stored exactly once even if the process
 * stops half-way. A record that turns out to be invalid (its member deleted meanwhile, say) is
 * dropped with a warning; other failures are retried on the next pass.
 * The worker's passes run from a timer (see PeriodicPass for how their failures are logged).
 */
export class ActivityQueue {
  private readonly passes: PeriodicPass<number>;
  /** The account whose record was claimed last: the next claim starts after it (claimNext). */
  private lastAccount = 0;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    pollMs = 1000,
  ) {
    this.passes = new PeriodicPass({ name: 'activity queue', everyMs: pollMs, log, meanwhile: `retrying every ${pollMs} ms`, pass: () => this.work() });
  }

  /** Starts the timer; whatever an earlier process left behind is picked up now. */
  start(): void {
    this.passes.start();
  }

  async enqueue(scope: ActivityScope, input: RecordActivityInput): Promise<void> {
    // Checked now, so the caller hears about bad input; stored again when the queue runs.
    await prepareRecords(scope, [input]);
    await enqueueRecord(this.db, { accountId: scope.accountId, applicationId: scope.applicationId, payload: { ...input } });
    setImmediate(() => this.passes.tick());
  }

  /** Works through the queue until it is empty, from after this call (PeriodicPass.run); concurrent calls share one pass. Returns records stored. */
  drain(): Promise<number> {
    return this.passes.run();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  private async work(): Promise<number> {
    let stored = 0;
    while (!this.passes.stopped) {
      const outcome = await this.takeOne();
      // A failure of ours waits for the next pass instead of spinning on the same row.
      if (outcome === 'empty' || outcome === 'retry') break;
      if (outcome === 'stored') stored += 1;
    }
    return stored;
  }

  private async takeOne(): Promise<'empty' | 'stored' | 'dropped' | 'retry'> {
    let claimed: QueuedRow | undefined;
    let stored: { id: number }[] = [];
    try {
      // The record is resolved to its member in the transaction that stores it; a member merged
      // between the two (or a deadlock with a merge) rolls it back, and it is taken again at once.
      const outcome = await retryTransaction(
        () =>
          this.db.transaction(async (tx) => {
            claimed = await claimNext(tx, maxAttempts, this.lastAccount);
            if (!claimed) return 'empty';
            this.lastAccount = claimed.accountId;
            const scope = { db: tx, accountId: claimed.accountId, applicationId: claimed.applicationId ?? 0 };
            const rows = await prepareRecords(scope, [revive(claimed.payload)], claimed.enqueuedAt);
            stored = await insertRecords(tx, rows);
            await deleteQueued(tx, claimed);
            return 'stored' as const;
          }),
        { retryable: (error) => memberMergedMeanwhile(error) || isDeadlock(error) },
      );
      if (claimed) publishRecorded(this.db, claimed.accountId, stored);
      return outcome;
    } catch (error) {
      // Without a row there is nothing to count; with the database gone there is nowhere to count it:
      // either way the row (if any) is still queued and the next pass takes it again.
      if (!claimed || databaseUnavailable(error)) throw error;
      const permanent = isAppError(error);
      this.log.warn({ err: error, queueId: claimed.id, accountId: claimed.accountId }, permanent ? 'queued activity dropped' : 'queued activity failed; will retry');
      if (permanent) {
        await deleteQueued(this.db, claimed);
        return 'dropped';
      }
      await countFailedAttempt(this.db, claimed, String((error as Error).message ?? error));
      return 'retry';
    }
  }
}

/** The queued input as JSON gave it back: the completion time is a string again. */
function revive(payload: Record<string, unknown>): RecordActivityInput {
  const input = { ...payload } as unknown as RecordActivityInput & { completedAt?: Date | string };
  if (typeof input.completedAt === 'string') input.completedAt = new Date(input.completedAt);
  return input;
}
