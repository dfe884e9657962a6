import type { Transaction } from '../../db/client.js';
import { holdTransactionLock } from '../../db/transaction-lock.js';

/**
 * Two locks per account keep the totals exact:
 * - `score-windows` (readers–writer): a transaction that stores records holds it shared from before
 *   its insert until it commits; the worker that moves the covered windows holds it exclusively. So
 *   the worker never folds in a window end while a record on the near side of it is uncommitted.
 * - `score-totals` (exclusive): whoever changes totals or their groups (the worker, a late record, a
 *   deletion, a merge, a profile change) takes turns, so counts computed from "before" and "after"
 *   stay right.
 * Always in this order, and after any member row lock the transaction takes.
 */
export const holdWindowsLock = (tx: Transaction, accountId: number, mode: 'exclusive' | 'shared') =>
  holdTransactionLock(tx, `score-windows:${accountId}`, mode);

export const holdTotalsLock = (tx: Transaction, accountId: number) => holdTransactionLock(tx, `score-totals:${accountId}`);
