import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';

/**
 * The `application_name` the kept-data worker's transactions carry while they run: whoever looks
 * at `pg_stat_activity` (an operator, the benchmark's canceller of leftover statements) can tell a
 * fold that must be left to finish from a request's statement. Requests keep the pool's own name.
 */
export const keptDataWorkName = 'marquee kept-data worker';

/** Names the rest of the transaction (set_config's `is_local`): the name goes back at commit or rollback. */
export async function nameTransaction(tx: Executor, name: string): Promise<void> {
  await tx.execute(sql`select set_config('application_name', ${name}, true)`);
}
