import { and, asc, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { activityQueue } from '../../db/schema/index.js';

export type QueuedRow = typeof activityQueue.$inferSelect;

export async function enqueueRecord(db: Executor, row: { accountId: number; applicationId: number; payload: Record<string, unknown> }): Promise<void> {
  await db.insert(activityQueue).values(row);
}

/**
 * The oldest queued record with attempts left, locked for this transaction; rows other workers
 * hold are skipped, so gateways sharing the queue never take the same row.
 */
export async function claimOldest(tx: Executor, maxAttempts: number): Promise<QueuedRow | undefined> {
  const [claimed] = await tx
    .select()
    .from(activityQueue)
    .where(lt(activityQueue.attempts, maxAttempts))
    .orderBy(asc(activityQueue.id))
    .limit(1)
    .for('update', { skipLocked: true });
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
