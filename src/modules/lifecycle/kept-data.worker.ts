import type { Logger } from 'pino';
import type { Database } from '../../db/client.js';
import { PeriodicPass } from '../../lib/periodic-pass.js';
import { accountsToSettle, settleBrandMembers } from '../brands/brand-members.queries.js';
import { accountsToCover, coveredWindows } from '../score-windows/score-windows.queries.js';
import { maxCorrectionMs } from '../score-windows/score-windows.js';
import { advanceWindows, maxStepRecords } from '../scoring/score-windows.worker.js';
import { keepTimelineDaysStep } from '../scoring/timeline-days.queries.js';

/**
 * Keeps every account's standard windows ending a few seconds ago, from a timer. Rankings are
 * exact whatever the windows' age (they correct the difference from the raw records); the worker
 * keeps that difference, and so the reading, small. Several gateways may run it: one of them at a
 * time moves an account's windows (the mover lock) while the others pass it by, and a window
 * already moved is left alone. A window far behind (the gateways were stopped) catches up in
 * steps of a bounded number of records, each committed, so a pass that fails resumes where the
 * last step left it. After the windows it makes the timeline's days that ended or went stale
 * (scoring/timeline-days.queries.ts), then settles the brand members kept beside them
 * (brands/brand-members.queries.ts). It sits above scoring and brands, whose kept data it moves.
 */
export class ScoreWindowsWorker {
  private readonly passes: PeriodicPass<void>;
  /** Per account, where its least advanced window ends, as last read: the lag is the time since. */
  private readonly coveredUntil = new Map<number, Date>();
  /** Accounts whose lag has been logged as past `lagWarningMs`, until they catch up. */
  private readonly lagging = new Set<number>();

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    intervalMs = 30_000,
    /** Records are usually stored within moments of completing: staying this far behind avoids most late ones. */
    private readonly lagMs = 5_000,
    /** A lag past this is logged (once, and once more when the account has caught up). */
    private readonly lagWarningMs = maxCorrectionMs,
  ) {
    this.passes = new PeriodicPass({
      name: 'score windows',
      everyMs: intervalMs,
      log,
      meanwhile: 'rankings stay exact, and read the daily rollup once the records the windows miss are many',
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

  /**
   * Seconds since each account's least advanced window ends, as of `now` (the `score_window_lag_seconds`
   * gauge): it keeps growing while passes fail. Accounts not read yet are absent.
   */
  lagSeconds(now = Date.now()): Map<number, number> {
    return new Map([...this.coveredUntil].map(([accountId, until]) => [accountId, Math.max(0, (now - until.getTime()) / 1000)]));
  }

  private async advanceAll(): Promise<void> {
    for (const accountId of await accountsToCover(this.db)) {
      await this.readLag(accountId);
      // Each step aims at a few seconds ago as of its start: a catch-up of minutes ends caught up,
      // not as far behind as it took.
      const target = () => new Date(Date.now() - this.lagMs);
      while (!this.passes.stopped && !(await advanceWindows(this.db, accountId, target(), maxStepRecords, { unlessMoving: true }))) {
        await this.readLag(accountId);
      }
      await this.readLag(accountId);
      const until = target();
      while (!this.passes.stopped && !(await keepTimelineDaysStep(this.db, accountId, until)));
    }
    for (const accountId of await accountsToSettle(this.db)) {
      if (!this.passes.stopped) await settleBrandMembers(this.db, accountId);
    }
  }

  /** Reads where the account's windows end, and logs a lag past the threshold once per episode. */
  private async readLag(accountId: number): Promise<void> {
    const windows = await coveredWindows(this.db, accountId);
    if (!windows.length) return;
    const until = new Date(Math.min(...windows.map((w) => w.until.getTime())));
    this.coveredUntil.set(accountId, until);
    const lagMs = Date.now() - until.getTime();
    if (lagMs > this.lagWarningMs && !this.lagging.has(accountId)) {
      this.lagging.add(accountId);
      this.log.warn({ accountId, lagSeconds: Math.round(lagMs / 1000) }, "score windows: an account's kept windows lag; catching up in steps (logged again once caught up)");
    } else if (lagMs <= this.lagWarningMs && this.lagging.delete(accountId)) {
      this.log.info({ accountId, lagSeconds: Math.round(lagMs / 1000) }, "score windows: an account's kept windows caught up");
    }
  }
}
