import { and, eq, sql } from 'drizzle-orm';
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
 * gateways sharing the queue never take the same row. Both turns are a range of the primary key
 * (account_id, id); the second is read only when the first finds nothing.
 */
export async function claimNext(tx: Executor, maxAttempts: number, afterAccount: number): Promise<QueuedRow | undefined> {
  const [claimed] = await tx
    .select()
    .from(activityQueue)
    .where(
      sql`(${activityQueue.accountId}, ${activityQueue.id}) = (
        select next.account_id, next.id
        from (values (${afterAccount}::int + 1, 2147483647), (0, ${afterAccount}::int)) as turn(low, high)
        cross join lateral (
          select q.account_id, q.id from ${activityQueue} q
          where q.account_id between turn.low and turn.high and q.attempts < ${maxAttempts}
          order by q.account_id, q.id
          limit 1
          for update skip locked
        ) next
        limit 1
      )`,
    );
  return claimed;
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
  const [{ depth }] = await executeRows<{ depth: number }>(
    db,
    sql`select count(*)::int as depth from (select 1 from ${activityQueue} limit ${backlogCountCap}) as waiting`,
  );
  const [oldest] = await db.select({ enqueuedAt: activityQueue.enqueuedAt }).from(activityQueue).orderBy(activityQueue.id).limit(1);
  return { depth, oldestEnqueuedAt: oldest?.enqueuedAt ?? null };
}
