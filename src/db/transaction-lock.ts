import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { executeRows } from './rows.js';

/**
 * Holds a lock named by `name` until the caller's transaction ends (a PostgreSQL transaction-level
 * advisory lock on the name's hash): transactions about the same thing take turns, without a row to
 * lock. Use inside `db.transaction`; outside one the lock would end with the statement.
 */
export async function holdTransactionLock(tx: Executor, name: string, mode: 'exclusive' | 'shared' = 'exclusive'): Promise<void> {
  // Shared holders run side by side and only keep an exclusive holder out (a readers–writer lock).
  const take = mode === 'shared' ? sql`pg_advisory_xact_lock_shared` : sql`pg_advisory_xact_lock`;
  await tx.execute(sql`select ${take}(hashtextextended(${name}, 0))`);
}

/**
 * Takes the exclusive lock named by `name` until the transaction ends if no one holds it now, and
 * answers whether it did: for work that may wait for another time rather than make others wait.
 */
export async function tryTransactionLock(tx: Executor, name: string): Promise<boolean> {
  const [row] = await executeRows<{ taken: boolean }>(tx, sql`select pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) as taken`);
  return row.taken;
}
