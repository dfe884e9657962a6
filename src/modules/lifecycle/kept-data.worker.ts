import type { Logger } from 'pino';
import type { Database } from '../../db/client.js';
import { PeriodicPass } from '../../lib/periodic-pass.js';
import { accountsToSettle, settleBrandMembers } from '../brands/brand-members.queries.js';
import { accountsToCover } from '../score-windows/score-windows.queries.js';
import { advanceWindows, maxStepRecords } from '../scoring/score-windows.worker.js';
import { keepTimelineDaysStep } from '../scoring/timeline-days.queries.js';

/**
 * Keeps every account's standard windows ending a few seconds ago, from a timer. Rankings are
 * exact whatever the windows' age (they correct the difference from the raw records); the worker
 * keeps that difference, and so the reading, small. Several gateways may run it: one of them at a
 * time moves an account's windows (the mover lock) while the others pass it by, and a window
 * already moved is left alone. After the windows it makes the timeline's days that ended or went
 * stale (scoring/timeline-days.queries.ts), then settles the brand members kept beside them
 * (brands/brand-members.queries.ts). It sits above scoring and brands, whose kept data it moves.
 */
export class ScoreWindowsWorker {
  private readonly passes: PeriodicPass<void>;

  constructor(
    private readonly db: Database,
    log: Logger,
    intervalMs = 30_000,
    /** Records are usually stored within moments of completing: staying this far behind avoids most late ones. */
    private readonly lagMs = 5_000,
  ) {
    this.passes = new PeriodicPass({
      name: 'score windows',
      everyMs: intervalMs,
      log,
      meanwhile: 'rankings stay exact and read the daily rollup once the windows lag 30 minutes',
      pass: () => this.advanceAll(),
    });
  }

  start(): void {
    this.passes.start();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** One pass over every account; concurrent calls share it. */
  pass(): Promise<void> {
    return this.passes.run();
  }

  private async advanceAll(): Promise<void> {
    const until = new Date(Date.now() - this.lagMs);
    for (const accountId of await accountsToCover(this.db)) {
      while (!this.passes.stopped && !(await advanceWindows(this.db, accountId, until, maxStepRecords, { unlessMoving: true })));
      while (!this.passes.stopped && !(await keepTimelineDaysStep(this.db, accountId, until)));
    }
    for (const accountId of await accountsToSettle(this.db)) {
      if (!this.passes.stopped) await settleBrandMembers(this.db, accountId);
    }
  }
}
