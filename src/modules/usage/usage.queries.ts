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
export async function hitsPerBucket(
  db: Executor,
  filter: { accountId: number; applicationId: number | undefined; start: Date; end: Date; unit: TruncateUnit },
) {
  const bucket = sql<Date>`date_trunc(${sql.raw(`'${filter.unit}'`)}, ${apiHits.hour}, 'UTC')`.mapWith((value) => new Date(value));
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
