import { and, asc, desc, eq, getTableColumns, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { activityRecords, members } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import { within, type ResolvedWindow } from '../../filters/window.js';
import type { RecordRow } from './activities.queries.js';

export interface FeedOptions {
  keyword?: string;
  /** Every action instead of each member's latest. */
  allMemberActions: boolean;
  /** Order (and pick the latest) by the time the platform recorded the action, not when it happened. */
  orderByRecorded: boolean;
  direction: 'ASC' | 'DESC';
  limit: number;
  /** Records read per step of the newest-first walk (tests make it small). */
  walkBatch?: number;
  offset: number;
}

/** `%` and `_` in a keyword are matched literally. */
const likePattern = (keyword: string) => `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A record whose content holds the keyword in one of its values (strings, numbers, booleans, at any
 * depth), in any case: never in its key names, so `keyword=isrc` finds "Isrc Anthem", not every
 * record that has an `isrc` key. Content nests at most 32 levels (activities.service.ts).
 */
function keywordInValues(keyword: string): SQL {
  return sql`exists (select 1 from jsonb_path_query(${activityRecords.content}, 'strict $.**') as node(value)
    where jsonb_typeof(node.value) in ('string', 'number', 'boolean') and (node.value #>> '{}') ilike ${likePattern(keyword)})`;
}

type FeedSelection = Pick<FeedOptions, 'keyword'>;

const joinMembers = and(eq(members.accountId, activityRecords.accountId), eq(members.id, activityRecords.memberId));

/**
 * The records a feed reads (with `members` joined): the page and its count share these. The window
 * is always on completion time: `orderByRecorded` changes the order only, so a record completed
 * long ago but recorded today stays out of a one-week feed.
 */
function feedConditions(filter: CompiledFilter, window: ResolvedWindow, options: FeedSelection): SQL | undefined {
  return and(
    eq(activityRecords.accountId, filter.accountId),
    within(activityRecords.completedAt, window),
    filter.activity(activityRecords),
    isNull(members.mergedIntoId),
    filter.member(),
    options.keyword ? keywordInValues(options.keyword) : undefined,
  );
}

/**
 * The activity feed: records of the window under the filter, newest first by default, by default
 * only each member's latest. Members are joined for the member conditions of the filter.
 */
export async function feedRecords(db: Executor, filter: CompiledFilter, window: ResolvedWindow, options: FeedOptions): Promise<RecordRow[]> {
  const time = options.orderByRecorded ? activityRecords.recordedAt : activityRecords.completedAt;
  const conditions = feedConditions(filter, window, options);
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
  const wanted = options.offset + options.limit;
  if (options.direction === 'DESC' && wanted <= maxWalkedMembers) {
    return (await newestPerMember(db, conditions, options.orderByRecorded, wanted, options.walkBatch)).slice(options.offset);
  }
  const latest = db
    .selectDistinctOn([activityRecords.memberId], getTableColumns(activityRecords))
    .from(activityRecords)
    .innerJoin(members, joinMembers)
    .where(conditions)
    .orderBy(activityRecords.memberId, desc(time), desc(activityRecords.id))
    .as('latest');
  const latestTime = options.orderByRecorded ? latest.recordedAt : latest.completedAt;
  return db.select().from(latest).orderBy(order(latestTime), order(latest.id)).limit(options.limit).offset(options.offset);
}

/**
 * How many items the feed has, all pages together, in one statement: the records under the same
 * conditions as its pages, or (each member's latest only) the members who have one.
 */
export async function countFeedRecords(db: Executor, filter: CompiledFilter, window: ResolvedWindow, options: FeedSelection & Pick<FeedOptions, 'allMemberActions'>): Promise<number> {
  const count = options.allMemberActions ? sql<number>`count(*)::int` : sql<number>`count(distinct ${activityRecords.memberId})::int`;
  const [row] = await db
    .select({ count })
    .from(activityRecords)
    .innerJoin(members, joinMembers)
    .where(feedConditions(filter, window, options));
  return row.count;
}

/**
 * Every action of each of a page's members (Member.activities), newest first by completion: per
 * member `limit` records after the first `offset`, under the same conditions as the feed's, in
 * one statement (a lateral subquery per member, over the account-member-time index).
 */
export function memberRecordPages(db: Executor, filter: CompiledFilter, window: ResolvedWindow, memberIds: readonly number[], page: { limit: number; offset: number }): Promise<RecordRow[]> {
  const ids = memberIds.length ? memberIds : [0];
  const picked = db
    .select({ id: activityRecords.id })
    .from(activityRecords)
    .innerJoin(members, joinMembers)
    .where(and(feedConditions(filter, window, {}), sql`${activityRecords.memberId} = page.member_id`))
    .orderBy(desc(activityRecords.completedAt), desc(activityRecords.id))
    .limit(page.limit)
    .offset(page.offset)
    .as('picked');
  return db
    .select(getTableColumns(activityRecords))
    .from(
      sql`unnest(array[${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}]::int[]) as page(member_id)`,
    )
    .innerJoinLateral(picked, sql`true`)
    .innerJoin(activityRecords, and(eq(activityRecords.accountId, filter.accountId), eq(activityRecords.id, picked.id)))
    .orderBy(activityRecords.memberId, desc(activityRecords.completedAt), desc(activityRecords.id));
}

/** How many records each of a page's members has under the conditions of memberRecordPages, in one statement. */
export function countMemberRecords(db: Executor, filter: CompiledFilter, window: ResolvedWindow, memberIds: readonly number[]) {
  return db
    .select({ memberId: activityRecords.memberId, count: sql<number>`count(*)::int` })
    .from(activityRecords)
    .innerJoin(members, joinMembers)
    .where(and(feedConditions(filter, window, {}), inArray(activityRecords.memberId, [...memberIds])))
    .groupBy(activityRecords.memberId);
}

/** Up to this many members (offset included) the newest-first walk serves the default feed. */
const maxWalkedMembers = 1000;

/**
 * Each member's latest record, newest first, without reading the whole window: records are read
 * newest first in batches (an index range on account and time), and the first record seen of a
 * member is that member's latest. It stops once `wanted` members are found, usually after one batch.
 * Same answer as DISTINCT ON over the window, which the feed uses for other orders and deep pages.
 */
async function newestPerMember(db: Executor, conditions: SQL | undefined, byRecorded: boolean, wanted: number, batch = Math.max(200, wanted * 4)) {
  const time = byRecorded ? activityRecords.recordedAt : activityRecords.completedAt;
  const found = new Map<number, RecordRow>();
  let after: { time: Date; id: number } | undefined;
  for (;;) {
    const rows = await db
      .select(getTableColumns(activityRecords))
      .from(activityRecords)
      .innerJoin(members, joinMembers)
      .where(and(conditions, after ? or(lt(time, after.time), and(eq(time, after.time), lt(activityRecords.id, after.id))) : undefined))
      .orderBy(desc(time), desc(activityRecords.id))
      .limit(batch);
    for (const row of rows) {
      if (!found.has(row.memberId)) found.set(row.memberId, row);
      if (found.size === wanted) return [...found.values()];
    }
    if (rows.length < batch) return [...found.values()];
    const last = rows[rows.length - 1];
    after = { time: byRecorded ? last.recordedAt : last.completedAt, id: last.id };
  }
}
