import { sql, type SQL } from 'drizzle-orm';

/**
 * A point in time as a parameter of a hand-written statement: ISO text that the server casts, so
 * both drivers send the same value (a bare Date is serialised by whichever column Drizzle thinks it
 * meets, and hand-written SQL gives it none).
 */
export const timestampParam = (date: Date): SQL => sql`${date.toISOString()}::timestamptz`;

/**
 * The database's clock now (not the transaction's start, which may precede a lock just taken), as
 * text to the microsecond, for a statement to take as a parameter (`${at}::timestamptz`). Citus
 * refuses a volatile function such as `clock_timestamp()` in an UPDATE of a distributed table (it
 * would run once per shard), and a subquery in an INSERT's values: a statement that needs the
 * clock reads it first, in the same transaction. `floor`, when given, is a timestamp of the
 * statement's own the answer must not precede (the latest of the two is answered).
 */
export async function databaseClock(db: { execute(query: SQL): Promise<unknown> }, floor?: SQL): Promise<string> {
  const result = (await db.execute(floor ? sql`select greatest(clock_timestamp(), (${floor}))::text as at` : sql`select clock_timestamp()::text as at`)) as { rows?: { at: string }[] } | { at: string }[];
  const rows = Array.isArray(result) ? result : (result.rows ?? []);
  return rows[0].at;
}
