import { sql, type SQL } from 'drizzle-orm';

/**
 * A point in time as a parameter of a hand-written statement: ISO text that the server casts, so
 * both drivers send the same value (a bare Date is serialised by whichever column Drizzle thinks it
 * meets, and hand-written SQL gives it none).
 */
export const timestampParam = (date: Date): SQL => sql`${date.toISOString()}::timestamptz`;
