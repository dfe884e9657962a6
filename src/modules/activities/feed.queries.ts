import { and, asc, desc, eq, getTableColumns, inArray, isNull, lte, sql, type Column, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { activityRecords, members } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import { within, type ResolvedWindow } from '../../filters/window.js';
import type { RecordRow } from './activities.queries.js';

/**
 * A place in a list of records: the ordering time in microseconds since the epoch (as text, so no
 * precision is lost) and the record id, which breaks ties.
 */
export interface RecordKeyset {
  key: string;
  id: number;
}

/** A record of a page, with its ordering time in microseconds: its cursor's keyset. */
export type KeyedRecordRow = RecordRow & { cursorKey: string };

export interface FeedOptions {
  keyword?: string;
  /** Every action instead of each member's latest. */
  allMemberActions: boolean;
  /** Order (and pick the latest) by the time the platform recorded the action, not when it happened. */
  orderByRecorded: boolean;
  /** The order rows are read in: the list's, or its reverse for a page read backward. */
  direction: 'ASC' | 'DESC';
  limit: number;
  /** Records read per step of the newest-first walk (tests make it small). */
  walkBatch?: number;
  offset: number;
  /** Rows strictly after this place, in `direction`'s order. */
  after?: RecordKeyset;
}

/** What bounds a list beyond its filter: the records stored by the first page's time (a continued list's snapshot). */
export interface FeedSelection {
  keyword?: string;
  /** Only records stored at or before this time: a list continued by cursor stays the first page's. */
  recordedBy?: Date;
}

/** The ordering time in microseconds since the epoch, as text: a cursor's key. */
const microseconds = (column: Column | SQL) => sql<string>`((extract(epoch from ${column}) * 1000000)::bigint)::text`;

/** `(time, id)` after a keyset in the reading order: below it newest first, above it oldest first. */
function afterKeyset(time: Column | SQL, id: Column | SQL, keyset: RecordKeyset | undefined, direction: 'ASC' | 'DESC'): SQL | undefined {
  if (!keyset) return undefined;
  const place = sql`(timestamptz 'epoch' + ${keyset.key}::bigint * interval '1 microsecond', ${keyset.id}::int)`;
  return direction === 'DESC' ? sql`(${time}, ${id}) < ${place}` : sql`(${time}, ${id}) > ${place}`;
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
    options.recordedBy ? lte(activityRecords.recordedAt, options.recordedBy) : undefined,
  );
}

/**
 * The activity feed: records of the window under the filter, newest first by default, by default
 * only each member's latest. Members are joined for the member conditions of the filter. A page
 * continued from a cursor reads the rows after its keyset, so records stored since never shift it.
 */
export async function feedRecords(db: Executor, filter: CompiledFilter, window: ResolvedWindow, options: FeedOptions & FeedSelection): Promise<KeyedRecordRow[]> {
  const time = options.orderByRecorded ? activityRecords.recordedAt : activityRecords.completedAt;
  const conditions = feedConditions(filter, window, options);
  const order = options.direction === 'ASC' ? asc : desc;
  if (options.allMemberActions) {
    return db
      .select({ ...getTableColumns(activityRecords), cursorKey: microseconds(time) })
      .from(activityRecords)
      .innerJoin(members, joinMembers)
      .where(and(conditions, afterKeyset(time, activityRecords.id, options.after, options.direction)))
      .orderBy(order(time), order(activityRecords.id))
      .limit(options.limit)
      .offset(options.offset);
  }
  const wanted = options.offset + options.limit;
  if (options.direction === 'DESC' && !options.after && wanted <= maxWalkedMembers) {
    return (await newestPerMember(db, conditions, options.orderByRecorded, wanted, options.walkBatch)).slice(options.offset);
  }
  const latest = db
    .selectDistinctOn([activityRecords.memberId], { ...getTableColumns(activityRecords), cursorKey: microseconds(time).as('cursor_key') })
    .from(activityRecords)
    .innerJoin(members, joinMembers)
    .where(conditions)
    .orderBy(activityRecords.memberId, desc(time), desc(activityRecords.id))
    .as('latest');
  const latestTime = options.orderByRecorded ? latest.recordedAt : latest.completedAt;
  return db
    .select()
    .from(latest)
    .where(afterKeyset(latestTime, latest.id, options.after, options.direction))
    .orderBy(order(latestTime), order(latest.id))
    .limit(options.limit)
    .offset(options.offset);
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

/** A page of one member's records (Member.activities): after its own keyset, if any. */
export interface MemberPageRequest {
  memberId: number;
  after?: RecordKeyset;
}

/**
 * Every action of each of a page's members (Member.activities), newest first by completion (oldest
 * first for a page read backward): per request (`request`, its index) `limit` records of its member after its keyset, under
 * the same conditions as the feed's, in one statement (a lateral subquery per member, over the
 * account-member-time index).
 */
export function memberRecordPages(
  db: Executor,
  filter: CompiledFilter,
  window: ResolvedWindow,
  requests: readonly MemberPageRequest[],
  page: { limit: number; direction: 'ASC' | 'DESC'; recordedBy?: Date },
): Promise<(KeyedRecordRow & { request: number })[]> {
  const list = requests.length ? requests : [{ memberId: 0 }];
  const array = (values: (number | string | null)[], type: 'int' | 'text') =>
    sql`array[${sql.join(
      values.map((value) => sql`${value}`),
      sql`, `,
    )}]::${sql.raw(type)}[]`;
  const order = page.direction === 'ASC' ? asc : desc;
  const keyset = sql`(page.after_key is null or ${afterKeysetOfPage(page.direction)})`;
  const picked = db
    .select({ id: activityRecords.id })
    .from(activityRecords)
    .innerJoin(members, joinMembers)
    .where(and(feedConditions(filter, window, { recordedBy: page.recordedBy }), sql`${activityRecords.memberId} = page.member_id`, keyset))
    .orderBy(order(activityRecords.completedAt), order(activityRecords.id))
    .limit(page.limit)
    .as('picked');
  return db
    .select({ ...getTableColumns(activityRecords), cursorKey: microseconds(activityRecords.completedAt), request: sql<number>`(page.n - 1)::int` })
    .from(
      sql`unnest(${array(
        list.map((request) => request.memberId),
        'int',
      )}, ${array(
        list.map((request) => request.after?.key ?? null),
        'text',
      )}, ${array(
        list.map((request) => request.after?.id ?? null),
        'int',
      )}) with ordinality as page(member_id, after_key, after_id, n)`,
    )
    .innerJoinLateral(picked, sql`true`)
    .innerJoin(activityRecords, and(eq(activityRecords.accountId, filter.accountId), eq(activityRecords.id, picked.id)))
    .orderBy(sql`page.n`, order(activityRecords.completedAt), order(activityRecords.id));
}

/** The keyset condition of memberRecordPages' lateral subquery: each member's own place, from the page's columns. */
function afterKeysetOfPage(direction: 'ASC' | 'DESC'): SQL {
  const place = sql`(timestamptz 'epoch' + page.after_key::bigint * interval '1 microsecond', page.after_id)`;
  return direction === 'DESC' ? sql`(${activityRecords.completedAt}, ${activityRecords.id}) < ${place}` : sql`(${activityRecords.completedAt}, ${activityRecords.id}) > ${place}`;
}

/** How many records each of a page's members has under the conditions of memberRecordPages, in one statement. */
export function countMemberRecords(db: Executor, filter: CompiledFilter, window: ResolvedWindow, memberIds: readonly number[], recordedBy?: Date) {
  return db
    .select({ memberId: activityRecords.memberId, count: sql<number>`count(*)::int` })
    .from(activityRecords)
    .innerJoin(members, joinMembers)
    .where(and(feedConditions(filter, window, { recordedBy }), inArray(activityRecords.memberId, [...memberIds])))
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
  const found = new Map<number, KeyedRecordRow>();
  let after: RecordKeyset | undefined;
  for (;;) {
    const rows = await db
      .select({ ...getTableColumns(activityRecords), cursorKey: microseconds(time) })
      .from(activityRecords)
      .innerJoin(members, joinMembers)
      .where(and(conditions, afterKeyset(time, activityRecords.id, after, 'DESC')))
      .orderBy(desc(time), desc(activityRecords.id))
      .limit(batch);
    for (const row of rows) {
      if (!found.has(row.memberId)) found.set(row.memberId, row);
      if (found.size === wanted) return [...found.values()];
    }
    if (rows.length < batch) return [...found.values()];
    const last = rows[rows.length - 1];
    after = { key: last.cursorKey, id: last.id };
  }
}
