import { and, asc, eq, gte, lt, sql, sum } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { apiHits, applications } from '../../db/schema/index.js';
import type { TruncateUnit } from '../../lib/time.js';

export async function applicationsInScope(db: Executor, accountId: number, applicationId: number | undefined) {
  return db
    .select({ id: applications.id, name: applications.name })
    .from(applications)
    .where(and(eq(applications.accountId, accountId), applicationId === undefined ? undefined : eq(applications.id, applicationId)))
    .orderBy(asc(applications.id));
}

/** Hits per application and bucket; the hourly rows are summed in the database, not here. */
export async function hitsPerBucket(db: Executor, filter: { accountId: number; applicationId: number | undefined; start: Date; end: Date; unit: TruncateUnit }) {
  const bucket = sql<Date>`date_trunc(${sql.raw(`'${filter.unit}'`)}, ${apiHits.hour}, 'UTC')`.mapWith((value: string | Date) => new Date(value));
  return db
    .select({ applicationId: apiHits.applicationId, bucket, hits: sum(apiHits.hits).mapWith(Number) })
    .from(apiHits)
    .where(
      and(
        eq(apiHits.accountId, filter.accountId),
        filter.applicationId === undefined ? undefined : eq(apiHits.applicationId, filter.applicationId),
        gte(apiHits.hour, filter.start),
        lt(apiHits.hour, filter.end),
      ),
    )
    .groupBy(apiHits.applicationId, bucket);
}

/** Adds hourly tallies to the stored ones, in one statement. */
export async function addHits(db: Executor, tallies: { accountId: number; applicationId: number; hour: Date; hits: number }[]): Promise<void> {
  await db
    .insert(apiHits)
    .values(tallies)
    .onConflictDoUpdate({
      target: [apiHits.accountId, apiHits.applicationId, apiHits.hour],
      set: { hits: sql`${apiHits.hits} + excluded.hits` },
    });
}

/** Deletes the hours before `oldest`; returns how many. */
export async function deleteHitsBefore(db: Executor, oldest: Date): Promise<number> {
  const deleted = await db.delete(apiHits).where(lt(apiHits.hour, oldest)).returning({ hour: apiHits.hour });
  return deleted.length;
}
