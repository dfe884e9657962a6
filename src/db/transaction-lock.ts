import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';

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
