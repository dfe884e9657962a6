import { and, asc, desc, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { activityRecords, members } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import { within, type ResolvedWindow } from '../../filters/window.js';

export interface FeedOptions {
  keyword?: string;
  /** Every action instead of each member's latest. */
  allMemberActions: boolean;
  /** Order (and pick the latest) by the time the platform recorded the action, not when it happened. */
  orderByRecorded: boolean;
  direction: 'ASC' | 'DESC';
  /** One member's actions only (member show). */
  memberId?: number;
  limit: number;
  offset: number;
}

/** `%` and `_` in a keyword are matched literally. */
const likePattern = (keyword: string) => `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The activity feed: records of the window under the filter, newest first by default, by default
 * only each member's latest. Members are joined for the member conditions of the filter.
 */
export function feedRecords(db: Executor, filter: CompiledFilter, window: ResolvedWindow, options: FeedOptions) {
  const time = options.orderByRecorded ? activityRecords.recordedAt : activityRecords.completedAt;
  const conditions = and(
    eq(activityRecords.accountId, filter.accountId),
    options.memberId ? eq(activityRecords.memberId, options.memberId) : undefined,
    within(time, window),
    filter.activity(activityRecords),
    isNull(members.mergedIntoId),
    filter.member(),
    options.keyword ? sql`${activityRecords.content}::text ilike ${likePattern(options.keyword)}` : undefined,
  );
  const joinMembers = and(eq(members.accountId, activityRecords.accountId), eq(members.id, activityRecords.memberId));
  const order = options.direction === 'ASC' ? asc : desc;
  if (options.allMemberActions) {
    return db
      .select(getTableColumns(activityRecords))
      .from(activityRecords)
      .innerJoin(members, joinMembers)
      .where(conditions)
      .orderBy(order(time), order(activityRecords.id))
      .limit(options.limit)
      .offset(options.offset);
  }
  const latest = db
    .selectDistinctOn([activityRecords.memberId], getTableColumns(activityRecords))
    .from(activityRecords)
    .innerJoin(members, joinMembers)
    .where(conditions)
    .orderBy(activityRecords.memberId, desc(time), desc(activityRecords.id))
    .as('latest');
  const latestTime = options.orderByRecorded ? latest.recordedAt : latest.completedAt;
  return db
    .select()
    .from(latest)
    .orderBy(order(latestTime), order(latest.id))
    .limit(options.limit)
    .offset(options.offset);
}
