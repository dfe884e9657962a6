import type { SQL } from 'drizzle-orm';

/**
 * The rows of a hand-written statement. The two drivers answer `execute` differently (postgres.js
 * with an array of rows, PGlite with `{ rows }`); callers see rows either way.
 */
export async function executeRows<T>(db: { execute(statement: SQL): Promise<unknown> }, statement: SQL): Promise<T[]> {
  const result: unknown = await db.execute(statement);
  return (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])) as T[];
}
