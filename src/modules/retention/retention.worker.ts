import type { Logger } from 'pino';
import type { Database } from '../../db/client.js';
import { databaseUnavailable } from '../../db/errors.js';
import { PeriodicPass } from '../../lib/periodic-pass.js';
import { expireRecords, workerPause, type RetentionOutcome } from './retention.js';
import { accountsWithRetention } from './retention.queries.js';

/**
 * Removes, from a timer, the records past each account's retention (retention.ts). Hourly is often
 * enough for a policy counted in months; a pass that stops at an account's bound goes on at the
 * next. Several gateways may run it: a batch skips the rows another holds.
 */
export class RecordRetentionWorker {
  private readonly passes: PeriodicPass<Map<number, RetentionOutcome>>;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    intervalMs = 3_600_000,
  ) {
    this.passes = new PeriodicPass({ name: 'record retention', everyMs: intervalMs, log, meanwhile: 'records past their retention stay until a pass succeeds', pass: () => this.expireAll() });
  }

  start(): void {
    this.passes.start();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** One pass over every account with a retention, starting after this call; answers each account's outcome. */
  pass(): Promise<Map<number, RetentionOutcome>> {
    return this.passes.run();
  }

  private async expireAll(): Promise<Map<number, RetentionOutcome>> {
    const outcomes = new Map<number, RetentionOutcome>();
    for (const { accountId, months } of await accountsWithRetention(this.db)) {
      if (this.passes.stopped) break;
      try {
        const outcome = await expireRecords(this.db, accountId, months, { pause: workerPause });
        outcomes.set(accountId, outcome);
        if (outcome.removed) this.log.info({ accountId, removed: outcome.removed, before: outcome.before, done: outcome.done }, 'records past their retention removed');
      } catch (error) {
        // One account's failure (a statement timeout on a huge batch, say) does not keep the others'
        // records; with the database gone there is nothing to go on with.
        if (databaseUnavailable(error)) throw error;
        this.log.warn({ err: error, accountId }, 'record retention failed for an account; tried again next pass');
      }
    }
    return outcomes;
  }
}
