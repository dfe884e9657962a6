import type { Transaction } from '../../db/client.js';
import { holdTransactionLock, tryTransactionLock } from '../../db/transaction-lock.js';

/**
 * The advisory locks that keep an account's kept data exact while records arrive (docs/kept-data.md).
 * Each is taken by a statement of its own, which names no table, so on a Citus cluster it is taken
 * on the coordinator, where every gateway's statements take it: never inside a statement on a
 * tenant table, which would run on a shard. Always taken in this order (a transaction may skip
 * any), and after any member row lock the transaction takes:
 *
 * 1. `timeline-days` (readers–writer): the worker holds it exclusively while it makes kept timeline
 *    days; transactions that count records take it shared with the coverage lock. Rollup changes no
 *    longer need it: they mark their days stale unconditionally (kept-data/kept-writes.ts).
 * 2. `score-coverage` (readers–writer): the worker holds it exclusively while it folds records into
 *    the totals and moves the windows' coverage. A transaction that counts records into the totals
 *    (records stored late, deleted records, merges, deleted members) holds it shared from before it
 *    reads the coverage until it commits: the worker never folds in a stretch of time while a record
 *    inside it is still uncommitted, and that transaction always sees the coverage it must correct.
 * 3. The claim is a row lock, not an advisory one: before each fold the worker claims the stretch it
 *    will cover by updating the account's `score_window_claims` row, in a transaction of its own.
 *    A batch stored in one statement holds that row `for share` (recordGate) and is admitted only
 *    when every repeatable record completes at or after the claim. So records of now never wait for
 *    a fold: a later claim waits for them, and the fold after it sees them.
 * 4. `score-totals` (exclusive): whoever changes totals or their groups (the worker, a late record,
 *    a deletion, a merge, a profile change) takes turns, so counts computed from "before" and
 *    "after" stay right.
 *
 * Gateways' workers also take `score-windows-mover` (exclusive, tried) before the others: one worker
 * at a time moves an account's windows, and the others leave the account to it. Two waiting for the
 * coverage lock in turn kept every counting transaction of the account waiting behind both
 * (PostgreSQL queues new shared requests behind a waiting exclusive one).
 */
export const holdTimelineDaysLock = (tx: Transaction, accountId: number, mode: 'exclusive' | 'shared') => holdTransactionLock(tx, `timeline-days:${accountId}`, mode);

/**
 * The coverage lock. Taken shared, it comes after the timeline-days lock, shared too: counting
 * transactions also change the rollup, some before and some after they count, and one order for
 * all keeps them from deadlocking with the worker. The two are issued together, and a connection
 * runs statements in the order they are issued, so a caller may issue its coverage read beside them.
 */
export function holdCoverageLock(tx: Transaction, accountId: number, mode: 'exclusive' | 'shared'): Promise<unknown> {
  const days = mode === 'shared' ? holdTimelineDaysLock(tx, accountId, 'shared') : undefined;
  return Promise.all([days, holdTransactionLock(tx, `score-coverage:${accountId}`, mode)]);
}

export const holdTotalsLock = (tx: Transaction, accountId: number) => holdTransactionLock(tx, `score-totals:${accountId}`);

/** Takes the account's mover lock if no other worker holds it, and answers whether it did. */
export const tryMoverLock = (tx: Transaction, accountId: number) => tryTransactionLock(tx, `score-windows-mover:${accountId}`);
