import { and, asc, eq, getTableColumns, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { activityRecords, members } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import type { RecordRow } from './activities.queries.js';

/**
 * The records among `ids` (just committed, announced by the live feed) that a subscriber's filter
 * keeps, oldest first: the feed's conditions (its activity and member conditions, merged members
 * left out) without its time window, since a live record is new whatever time it names. One
 * statement per filter and announcement, by primary key.
 */
export function liveRecords(db: Executor, filter: CompiledFilter, ids: readonly number[]): Promise<RecordRow[]> {
  return db
    .select(getTableColumns(activityRecords))
    .from(activityRecords)
    .innerJoin(members, and(eq(members.accountId, activityRecords.accountId), eq(members.id, activityRecords.memberId)))
    .where(and(eq(activityRecords.accountId, filter.accountId), inArray(activityRecords.id, [...ids]), filter.activity(activityRecords), isNull(members.mergedIntoId), filter.member()))
    .orderBy(asc(activityRecords.id));
}
