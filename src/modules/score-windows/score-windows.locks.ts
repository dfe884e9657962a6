import type { Transaction } from '../../db/client.js';
import { holdTransactionLock, tryTransactionLock } from '../../db/transaction-lock.js';

/**
 * Two locks per account keep the totals exact:
 * - `score-windows` (readers–writer): a transaction that stores records holds it shared until it
 *   commits and reads the coverage after taking it; the worker that moves the covered windows holds
 *   it exclusively. So the worker never folds in a window end while a record on the near side of it
 *   is uncommitted, and a record the worker did not see is counted by its own transaction. A batch
 *   stored in one statement takes it in `score_windows_admit_records` (migration 0023), whose
 *   coverage read has a snapshot of its own, taken after the lock.
 * - `score-totals` (exclusive): whoever changes totals or their groups (the worker, a late record, a
 *   deletion, a merge, a profile change) takes turns, so counts computed from "before" and "after"
 *   stay right.
 * Always in this order, and after any member row lock the transaction takes.
 *
 * Gateways' workers also take `score-windows-mover` (exclusive, tried) before the windows lock: one
 * worker at a time queues for the windows lock, and the others leave the account to it. Two waiting
 * for it in turn kept every recording of the account waiting behind both (PostgreSQL queues new
 * shared requests behind a waiting exclusive one): at two gateways, ingestion stalled for seconds.
 */
export const holdWindowsLock = (tx: Transaction, accountId: number, mode: 'exclusive' | 'shared') =>
  holdTransactionLock(tx, `score-windows:${accountId}`, mode);

export const holdTotalsLock = (tx: Transaction, accountId: number) => holdTransactionLock(tx, `score-totals:${accountId}`);

/** Takes the account's mover lock if no other worker holds it, and answers whether it did. */
export const tryMoverLock = (tx: Transaction, accountId: number) => tryTransactionLock(tx, `score-windows-mover:${accountId}`);
