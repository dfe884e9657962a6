import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';

/**
 * Holds a lock named by `name` until the caller's transaction ends (a PostgreSQL transaction-level
 * advisory lock on the name's hash): transactions about the same thing take turns, without a row to
 * lock. Use inside `db.transaction`; outside one the lock would end with the statement.
 */
export async function holdTransactionLock(tx: Executor, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`);
}
