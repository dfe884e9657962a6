import { and, asc, eq, isNotNull, lt, min, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { accounts, activityRecords, scoreWindows } from '../../db/schema/index.js';

/** Every account that keeps its records for a number of months, with that number. */
export async function accountsWithRetention(db: Executor): Promise<{ accountId: number; months: number }[]> {
  const rows = await db.select({ accountId: accounts.id, months: accounts.recordRetentionMonths }).from(accounts).where(isNotNull(accounts.recordRetentionMonths)).orderBy(asc(accounts.id));
  return rows.map((row) => ({ accountId: row.accountId, months: row.months! }));
}

export async function retentionOf(db: Executor, accountId: number): Promise<{ months: number | null } | undefined> {
  const [row] = await db.select({ months: accounts.recordRetentionMonths }).from(accounts).where(eq(accounts.id, accountId));
  return row;
}

export async function setRetention(db: Executor, accountId: number, months: number | null): Promise<void> {
  await db.update(accounts).set({ recordRetentionMonths: months }).where(eq(accounts.id, accountId));
}

/**
 * Where the account's kept windows begin, the earliest of them: the worker's folds still subtract
 * the records from there on as the windows move, so none of those may leave. Undefined before the
 * worker has made the account's windows.
 */
export async function earliestCoveredFrom(db: Executor, accountId: number): Promise<Date | undefined> {
  const [row] = await db
    .select({ from: min(scoreWindows.coveredFrom) })
    .from(scoreWindows)
    .where(eq(scoreWindows.accountId, accountId));
  return row?.from ?? undefined;
}

/**
 * Deletes up to `limit` of the account's repeatable records completed before `before`, oldest
 * first, and answers how many. Rows another transaction holds (a merge moving them) are skipped,
 * not waited for: the next batch takes them. Nothing else changes: the daily rollup and the kept
 * totals keep what these records added.
 */
export async function deleteExpiredRecords(db: Executor, accountId: number, before: Date, limit: number): Promise<number> {
  const expired = db
    .select({ id: activityRecords.id })
    .from(activityRecords)
    .where(and(eq(activityRecords.accountId, accountId), lt(activityRecords.completedAt, before), eq(activityRecords.oneTime, false)))
    .orderBy(asc(activityRecords.completedAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  // `= any(array(…))`, not `in (…)`: an `in` may be planned as a join that scans the subquery again
  // for each row, and a rescan skips the rows this statement has just deleted (its own row locks
  // find them gone) and takes the next ones, past the limit. The array is read once.
  const deleted = await db
    .delete(activityRecords)
    .where(and(eq(activityRecords.accountId, accountId), sql`${activityRecords.id} = any(array(${expired}))`))
    .returning({ id: activityRecords.id });
  return deleted.length;
}
