import type { Transaction } from '../../db/client.js';
import { moveTotals } from '../score-windows/score-windows.queries.js';
import { applyRollupDeltas, deleteDailyRollupsOf, deleteOneTimeRecordsAlsoOf, moveRecords, rollupDeltas } from './activities.queries.js';

/**
 * Moves a merged member's records and rollups to the survivor. A one-time activity both members
 * performed is kept once (the survivor's); the rollup rows and kept totals of the two members are added together.
 */
export async function mergeActivities(tx: Transaction, accountId: number, survivorId: number, mergedId: number): Promise<void> {
  const duplicates = await deleteOneTimeRecordsAlsoOf(tx, accountId, mergedId, survivorId);
  await applyRollupDeltas(tx, rollupDeltas(duplicates, -1));
  await moveRecords(tx, accountId, mergedId, survivorId);
  const moved = await deleteDailyRollupsOf(tx, accountId, mergedId);
  await applyRollupDeltas(
    tx,
    moved.map((row) => ({ ...row, memberId: survivorId })),
  );
  await moveTotals(tx, accountId, mergedId, survivorId);
}
