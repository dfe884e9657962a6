import { setTimeout } from 'node:timers/promises';
import type { Database, Executor } from '../../db/client.js';
import { invalidParameter } from '../../core/errors.js';
import { shiftByPeriod } from '../../lib/time.js';
import { recordAudit, systemOrigin, type AuditOrigin } from '../audit/audit.js';
import { standardWindows } from '../score-windows/score-windows.js';
import { deleteExpiredRecords, earliestCoveredFrom, retentionOf, setRetention } from './retention.queries.js';

/**
 * How long an account keeps its activity records. Records older than the account's retention leave
 * (in bounded batches, by the gateway's retention pass: retention.worker.ts); what they added to the
 * daily rollup and to the kept totals stays, so statistics, reports and rankings of whole days
 * answer the same afterwards. One-time records stay whatever their age: each is what keeps its
 * member from being awarded the activity again.
 */

/**
 * The longest standard window, in months: its kept totals are moved along by subtracting the
 * records that leave it, so no shorter retention can be allowed.
 */
export const minRetentionMonths = Math.max(...standardWindows.filter((window) => window.period.unit === 'MONTH').map((window) => window.period.amount));

/** A hundred years: past this a number is a typo, not a policy. */
export const maxRetentionMonths = 1200;

/** Records deleted by one statement: a short lock on a few thousand rows, bounded like every statement. */
export const retentionBatch = 5_000;

/** Batches one account gets per pass, so one large account does not hold the pass from the others. */
export const maxBatchesPerPass = 40;

/** The months asked for, checked: null keeps everything. */
export function checkRetentionMonths(months: unknown): number | null {
  if (months === null) return null;
  if (typeof months !== 'number' || !Number.isInteger(months)) throw invalidParameter('months', 'a whole number of months, or null to keep every record');
  if (months < minRetentionMonths) {
    throw invalidParameter('months', `at least ${minRetentionMonths}: the ${minRetentionMonths}-month window's kept totals are kept by subtracting the records that leave it`);
  }
  if (months > maxRetentionMonths) throw invalidParameter('months', `at most ${maxRetentionMonths}, or null to keep every record`);
  return months;
}

export async function recordRetention(db: Executor, accountId: number): Promise<number | null> {
  return (await retentionOf(db, accountId))?.months ?? null;
}

/** Sets the account's retention (null: keep everything), recorded in its audit log. Answers the new setting. */
export async function setRecordRetention(db: Database, accountId: number, months: unknown, origin: AuditOrigin): Promise<number | null> {
  const checked = checkRetentionMonths(months);
  await db.transaction(async (tx) => {
    const before = await recordRetention(tx, accountId);
    await setRetention(tx, accountId, checked);
    await recordAudit(tx, accountId, origin, { action: 'account.retention', target: { type: 'account', id: String(accountId) }, details: { months: checked, before } });
  });
  return checked;
}

/**
 * Records completed before this leave: `months` before now, or where the account's kept windows
 * begin if that is earlier (a worker behind after a stop still subtracts the records from there).
 * Undefined while the account has no windows yet, when nothing may leave.
 */
export async function retentionCutoff(db: Executor, accountId: number, months: number, now: Date): Promise<Date | undefined> {
  const covered = await earliestCoveredFrom(db, accountId);
  if (!covered) return undefined;
  const byAge = shiftByPeriod(now, -months, 'MONTH');
  return covered < byAge ? covered : byAge;
}

export interface RetentionOutcome {
  /** Records completed before this were removed (none when undefined: the account has no windows yet). */
  before?: Date;
  removed: number;
  /** False when the pass stopped at its bound with records still to remove: the next pass goes on. */
  done: boolean;
}

/** A pass's bounds: the clock, how many records of how many batches it removes at most, and its pace. */
export interface RetentionBounds {
  now?: Date;
  batch?: number;
  maxBatches?: number;
  /**
   * After each batch, a pause of this many times the batch's own time: at 1, the pass takes half
   * of what one database session can give while the gateways serve (0: batches back to back).
   */
  pause?: number;
  /** Hears each batch: the records it deleted and the milliseconds its statement took (bench/retention.ts). */
  onBatch?: (batch: { deleted: number; ms: number }) => void;
}

/**
 * The worker's pace. Back to back, a pass removing 504,000 records at medium scale took 5 s and
 * halved the answers per second of the rankings, member shows and records served meanwhile on two
 * cores (bench/results/2026-12-03-retention-medium*.json); a policy counted in months has the time.
 */
export const workerPause = 1;

/**
 * One account's share of a retention pass: up to `maxBatches` batches of the records past its
 * retention, each its own statement (and transaction). The removal is in the audit log.
 */
export async function expireRecords(db: Database, accountId: number, months: number, bounds: RetentionBounds = {}): Promise<RetentionOutcome> {
  const { now = new Date(), batch = retentionBatch, maxBatches = maxBatchesPerPass, pause = 0, onBatch } = bounds;
  const before = await retentionCutoff(db, accountId, months, now);
  if (!before) return { removed: 0, done: true };
  let removed = 0;
  let done = false;
  for (let taken = 0; taken < maxBatches && !done; taken += 1) {
    const started = performance.now();
    const deleted = await deleteExpiredRecords(db, accountId, before, batch);
    const ms = performance.now() - started;
    onBatch?.({ deleted, ms });
    removed += deleted;
    done = deleted < batch;
    if (pause > 0 && !done) await setTimeout(ms * pause);
  }
  if (removed) {
    await recordAudit(db, accountId, systemOrigin('retention'), {
      action: 'records.expired',
      target: { type: 'account', id: String(accountId) },
      details: { before: before.toISOString(), records: removed, months },
    });
  }
  return { before, removed, done };
}
