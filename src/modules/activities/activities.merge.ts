import { and, eq, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/client.js';
import { activityRecords, memberActivityDaily } from '../../db/schema/index.js';
import { moveTotals } from '../scoring/score-windows.queries.js';
import { applyRollupDeltas, rollupDeltas } from './activities.queries.js';

/**
 * Moves a merged member's records and rollups to the survivor. A one-time activity both members
 * performed is kept once (the survivor's); the rollup rows and kept totals of the two members are added together.
 */
export async function mergeActivities(tx: Transaction, accountId: number, survivorId: number, mergedId: number): Promise<void> {
  const duplicates = await tx
    .delete(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, accountId),
        eq(activityRecords.memberId, mergedId),
        eq(activityRecords.oneTime, true),
        sql`exists (select 1 from ${activityRecords} kept where kept.account_id = ${accountId} and kept.member_id = ${survivorId}
          and kept.activity_id = ${activityRecords.activityId} and kept.one_time)`,
      ),
    )
    .returning();
  await applyRollupDeltas(tx, rollupDeltas(duplicates, -1));
  await tx
    .update(activityRecords)
    .set({ memberId: survivorId })
    .where(and(eq(activityRecords.accountId, accountId), eq(activityRecords.memberId, mergedId)));
  const daily = memberActivityDaily;
  const moved = await tx.delete(daily).where(and(eq(daily.accountId, accountId), eq(daily.memberId, mergedId))).returning();
  await applyRollupDeltas(tx, moved.map((row) => ({ ...row, memberId: survivorId })));
  await moveTotals(tx, accountId, mergedId, survivorId);
}
