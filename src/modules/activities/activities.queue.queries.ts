import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { activityQueue } from '../../db/schema/index.js';

export type QueuedRow = typeof activityQueue.$inferSelect;

export async function enqueueRecord(db: Executor, row: { accountId: number; applicationId: number; payload: Record<string, unknown> }): Promise<void> {
  await db.insert(activityQueue).values(row);
}

/**
 * The next queued record with attempts left, taking accounts in turn: the oldest record of the
 * first account after `afterAccount` (by id) that has one, else of the first account from the
 * start. One account's thousands of queued records so wait their turn behind another's one instead
 * of delaying it. The row is locked for this transaction; rows other workers hold are skipped, so
 * gateways sharing the queue never take the same row.
 *
 * The claim itself names its account: which account is next is read first, without a lock, then
 * that account's oldest row is locked (`for update skip locked`). A lock is taken within one
 * account only, which Citus runs on the one shard holding it (a `for update` reaching several
 * accounts is refused there). When another worker holds every row of that account, the accounts
 * after it are tried, a bounded number of them.
 */
export async function claimNext(tx: Executor, maxAttempts: number, afterAccount: number): Promise<QueuedRow | undefined> {
  let after = afterAccount;
  for (let tried = 0; tried < maxAccountsTried; tried++) {
    const account = await nextQueuedAccount(tx, maxAttempts, after);
    if (account === undefined || (tried > 0 && account === afterAccount)) return undefined;
    const [claimed] = await tx
      .select()
      .from(activityQueue)
      .where(and(eq(activityQueue.accountId, account), lt(activityQueue.attempts, maxAttempts)))
      .orderBy(activityQueue.id)
      .limit(1)
      .for('update', { skipLocked: true });
    if (claimed) return claimed;
    after = account;
  }
  return undefined;
}

/** How many accounts one claim looks at when other workers hold the rows of the first ones. */
const maxAccountsTried = 8;

/** The first account after `afterAccount` with a queued record with attempts left, else the first from the start. */
async function nextQueuedAccount(tx: Executor, maxAttempts: number, afterAccount: number): Promise<number | undefined> {
  const first = (low: number, high: number) =>
    tx
      .select({ accountId: activityQueue.accountId })
      .from(activityQueue)
      .where(and(sql`${activityQueue.accountId} between ${low}::int and ${high}::int`, lt(activityQueue.attempts, maxAttempts)))
      .orderBy(activityQueue.accountId)
      .limit(1);
  const [later] = await first(afterAccount + 1, 2147483647);
  if (later) return later.accountId;
  const [earlier] = await first(0, afterAccount);
  return earlier?.accountId;
}

export async function deleteQueued(db: Executor, row: Pick<QueuedRow, 'id' | 'accountId'>): Promise<void> {
  await db.delete(activityQueue).where(and(eq(activityQueue.accountId, row.accountId), eq(activityQueue.id, row.id)));
}

/** Counts a failed attempt, keeping the start of its error. */
export async function countFailedAttempt(db: Executor, row: Pick<QueuedRow, 'id' | 'accountId'>, error: string): Promise<void> {
  await db
    .update(activityQueue)
    .set({ attempts: sql`${activityQueue.attempts} + 1`, lastError: error.slice(0, 1000) })
    .where(and(eq(activityQueue.accountId, row.accountId), eq(activityQueue.id, row.id)));
}

/** The most queued records /metrics counts: past it the depth reads as this, which is alarm enough. */
export const backlogCountCap = 100_000;

/**
 * The queue across accounts, for /metrics: how many records wait (counted up to backlogCountCap)
 * and when the oldest was queued (ids grow with time, so the id index finds it).
 */
export async function queueBacklog(db: Executor): Promise<{ depth: number; oldestEnqueuedAt: Date | null }> {
  const [{ depth }] = await executeRows<{ depth: number }>(db, sql`select count(*)::int as depth from (select 1 from ${activityQueue} limit ${backlogCountCap}) as waiting`);
  const [oldest] = await db.select({ enqueuedAt: activityQueue.enqueuedAt }).from(activityQueue).orderBy(activityQueue.id).limit(1);
  return { depth, oldestEnqueuedAt: oldest?.enqueuedAt ?? null };
}
