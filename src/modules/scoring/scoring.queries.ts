import { and, asc, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { columnsOf, plannedRows, preparedRows } from '../../db/statements.js';
import { alias } from 'drizzle-orm/pg-core';
import { activityDefinitions, activityRecords, brands, members } from '../../db/schema/index.js';
import type { DefinitionRow, RecordRow } from '../activities/activities.queries.js';
import type { CompiledFilter } from '../../filters/compile.js';
import { within, type ResolvedWindow } from '../../filters/window.js';
import { narrowMemberSelection, narrowMembersById, type MemberReads, type MemberRow, type NarrowMemberRow, type NarrowPageReads } from '../members/members.queries.js';
import { countedRows, splitWindow } from './counted-rows.queries.js';
import { catchUpRead } from './catch-up-reads.js';
import { chooseTotals, countAboveFromTotals, countBeforeFromTotals, countFromTotals, rankFromTotals, type RankedPage, type TotalsChoice } from './score-windows.ranking.js';

export type Direction = 'ASC' | 'DESC';

export interface ListedMember {
  /** The whole row, or its narrow columns when the page's selection reads nothing else. */
  member: MemberRow | NarrowMemberRow;
  /** Known when the listing ranks by score; otherwise loaded on request. */
  score?: { points: number; activityCount: number };
}

/** Where a page starts: after (or before) a known row of the ordering. */
export interface Keyset {
  key: number | string | null;
  id: number;
  before: boolean;
}

interface Page {
  limit: number;
  offset: number;
  keyset?: Keyset;
}

const order = (direction: Direction, column: SQL | Parameters<typeof asc>[0]) => (direction === 'ASC' ? asc(column) : desc(column));

/**
 * Rows after (or before) `keyset` in the order (key direction, id ascending). Walking backwards
 * the query runs in the reverse order and the caller flips the page back.
 */
function keysetCondition(key: SQL | Parameters<typeof eq>[0] | undefined, direction: Direction, keyset: Keyset | undefined, id: SQL | Parameters<typeof eq>[0] = members.id): SQL | undefined {
  if (!keyset) return undefined;
  const forward = !keyset.before;
  const idCompare = forward ? sql`${id} > ${keyset.id}` : sql`${id} < ${keyset.id}`;
  if (!key) return idCompare;
  const keyAhead = (direction === 'DESC') === forward ? sql`${key} < ${keyset.key}` : sql`${key} > ${keyset.key}`;
  return sql`(${keyAhead} or (${key} = ${keyset.key} and ${idCompare}))`;
}

/**
 * Members active in the window under the filter, ranked by score (points, then id). Standard
 * windows are read from the kept per-member totals (score-windows.ranking.ts); any other window
 * or activity filter from the daily rollup (see counted-rows.queries.ts), so a six-month ranking reads no
 * raw records but those of its two partial days. With `count`, a page from the kept totals comes
 * with the number of members the ranking holds (read with its edge members); from the rollup, the
 * caller counts with countMembersByScore.
 */
export async function membersByScore(
  db: Executor,
  {
    filter,
    window,
    direction,
    page,
    reads,
    count,
    choice,
  }: {
    filter: CompiledFilter;
    window: ResolvedWindow;
    direction: Direction;
    page: Page;
    reads?: MemberReads;
    count?: boolean;
    /** chooseTotals' answer for this filter and window, when the caller has it already. */
    choice?: TotalsChoice;
  },
): Promise<RankedPage> {
  const { plan, lagging } = choice ?? (await chooseTotals(db, filter, window));
  return catchUpRead(db, { accountId: filter.accountId, lagging, window }, () =>
    plan ? rankFromTotals(db, plan, direction, page, reads, { count }) : rankFromRollup(db, { filter, window, direction, page }),
  );
}

/** membersByScore's page from the daily rollup. */
async function rankFromRollup(db: Executor, { filter, window, direction, page }: { filter: CompiledFilter; window: ResolvedWindow; direction: Direction; page: Page }): Promise<RankedPage> {
  const counted = countedRows(db, filter, window);
  const totals = db
    .select({
      memberId: counted.memberId,
      points: sql<number>`sum(${counted.points})::int`.as('points'),
      activityCount: sql<number>`sum(${counted.count})::int`.as('activity_count'),
    })
    .from(counted)
    .groupBy(counted.memberId)
    .as('totals');
  const backwards = page.keyset?.before ?? false;
  const walk: Direction = backwards ? (direction === 'ASC' ? 'DESC' : 'ASC') : direction;
  const idWalk: Direction = backwards ? 'DESC' : 'ASC';
  const memberConditions = filter.member();
  // Without member conditions the page is cut from the totals before any member row is read
  // (merged members have no records left: a merge moves them), so only the page's members are joined.
  const ranked = memberConditions
    ? totals
    : db
        .select({ memberId: totals.memberId, points: totals.points, activityCount: totals.activityCount })
        .from(totals)
        .where(keysetCondition(totals.points, direction, page.keyset, totals.memberId))
        .orderBy(order(walk, totals.points), order(idWalk, totals.memberId))
        .limit(page.limit)
        .offset(page.offset)
        .as('ranked');
  const rows = await db
    .select({ member: members, points: ranked.points, activityCount: ranked.activityCount })
    .from(ranked)
    .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, ranked.memberId)))
    .where(memberConditions ? and(isNull(members.mergedIntoId), memberConditions, keysetCondition(ranked.points, direction, page.keyset)) : undefined)
    .orderBy(order(walk, ranked.points), order(idWalk, members.id))
    .limit(page.limit)
    .offset(memberConditions ? page.offset : 0);
  if (backwards) rows.reverse();
  return { rows: rows.map((row) => ({ member: row.member, score: { points: row.points, activityCount: row.activityCount } })) };
}

/** How many members a score ranking holds. */
export async function countMembersByScore(db: Executor, filter: CompiledFilter, window: ResolvedWindow): Promise<number> {
  const { plan, lagging } = await chooseTotals(db, filter, window);
  return catchUpRead(db, { accountId: filter.accountId, lagging, window }, async () => {
    if (plan) return countFromTotals(db, plan);
    const counted = countedRows(db, filter, window);
    const active = db.selectDistinct({ memberId: counted.memberId }).from(counted).as('active');
    const [row] = await db
      .select({ count: sql<number>`count(*)::int` })
      .from(active)
      .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, active.memberId)))
      .where(and(isNull(members.mergedIntoId), filter.member()));
    return row.count;
  });
}

/**
 * How many members a score ranking places before the row (`points`, `memberId`): more points
 * (fewer, ascending), or as many and a lower id, as membersByScore orders them; counted up to
 * `cap`. A page that starts from a keyset ranks its members from this.
 */
export async function countBeforeByScore(
  db: Executor,
  { filter, window, direction, row, cap }: { filter: CompiledFilter; window: ResolvedWindow; direction: Direction; row: { points: number; memberId: number }; cap: number },
): Promise<number> {
  const { plan, lagging } = await chooseTotals(db, filter, window);
  return catchUpRead(db, { accountId: filter.accountId, lagging, window }, async () => {
    if (plan) return countBeforeFromTotals(db, plan, row, direction, cap);
    const totals = pointsPerMember(db, filter, window);
    const ahead = direction === 'DESC' ? sql`${totals.points} > ${row.points}` : sql`${totals.points} < ${row.points}`;
    const before = db
      .select({ id: members.id })
      .from(totals)
      .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, totals.memberId)))
      .where(and(isNull(members.mergedIntoId), filter.member(), sql`(${ahead} or (${totals.points} = ${row.points} and ${totals.memberId} < ${row.memberId}))`))
      .limit(cap)
      .as('before');
    const [found] = await db.select({ count: sql<number>`count(*)::int` }).from(before);
    return found.count;
  });
}

export type PlainOrder = 'CREATED' | 'LAST_LOGIN' | 'ID' | 'EXTENDED';

/** The sort key of each plain order, and the window condition it implies. */
function plainOrder(orderBy: PlainOrder, window: ResolvedWindow | undefined, extendedPath: string[] | undefined) {
  const inWindow = (column: typeof members.createdAt | typeof members.lastLoginAt) => (window ? within(column, window) : sql`${column} is not null`);
  switch (orderBy) {
    case 'CREATED':
      return { key: members.createdAt, condition: inWindow(members.createdAt) };
    case 'LAST_LOGIN':
      return { key: members.lastLoginAt, condition: inWindow(members.lastLoginAt) };
    case 'EXTENDED':
      return { key: sql`(${members.extended} #>> ${`{${(extendedPath ?? []).join(',')}}`}::text[])`, condition: undefined };
    case 'ID':
      return { key: undefined, condition: undefined };
  }
}

/**
 * The order of a custom field (members/extended, docs/members.md): members whose value is a JSON
 * number first, compared as numbers (42 above 7 descending); then every other value (text,
 * booleans, objects) compared as text; members without the field last, whatever the direction.
 * JSON numbers and text compare by different rules, so one order over both would be neither's.
 */
function extendedOrder(path: readonly string[], walk: Direction): SQL[] {
  const pathText = `{${path.join(',')}}`;
  const isNumber = sql`jsonb_typeof(${members.extended} #> ${pathText}::text[]) = 'number'`;
  const text = sql`(${members.extended} #>> ${pathText}::text[])`;
  return [sql`(case when ${isNumber} then 0 else 1 end)`, sql`(case when ${isNumber} then ${text}::numeric end) ${sql.raw(walk)} nulls last`, sql`${text} ${sql.raw(walk)} nulls last`];
}

/** Members in a plain order: joined or signed in during the window, or all of them by id or a custom field. */
export async function membersInOrder(
  db: Executor,
  {
    filter,
    orderBy,
    direction,
    page,
    extendedPath,
    narrow,
  }: {
    filter: CompiledFilter;
    orderBy: PlainOrder;
    direction: Direction;
    page: Page;
    extendedPath?: string[];
    narrow?: NarrowPageReads;
  },
): Promise<ListedMember[]> {
  const { key, condition } = plainOrder(orderBy, filter.window, extendedPath);
  const backwards = page.keyset?.before ?? false;
  const walk: Direction = backwards ? (direction === 'ASC' ? 'DESC' : 'ASC') : direction;
  const idWalk: Direction = key ? (backwards ? 'DESC' : 'ASC') : walk;
  // No records are read: brandID and services are said of the member (CompiledFilter.withoutRecords).
  const memberConditions = and(filter.member(), filter.withoutRecords());
  // The plain listing by id without member conditions, narrow: one prepared statement.
  if (narrow && orderBy === 'ID' && !condition && !memberConditions) {
    const plain = await narrowMembersById(db, filter.accountId, narrow, {
      direction: walk,
      limit: page.limit,
      offset: page.offset,
      after: page.keyset && !page.keyset.before ? page.keyset.id : undefined,
      before: page.keyset?.before ? page.keyset.id : undefined,
    });
    if (backwards) plain.reverse();
    return plain.map((member) => ({ member }));
  }
  const rows: (MemberRow | NarrowMemberRow)[] = await (narrow ? db.select(narrowMemberSelection(filter.accountId, narrow)) : db.select())
    .from(members)
    .where(
      and(
        eq(members.accountId, filter.accountId),
        isNull(members.mergedIntoId),
        condition,
        memberConditions,
        // Plain orders page by id only (members/all's before and after); others use offsets.
        orderBy === 'ID' && page.keyset ? (page.keyset.before ? sql`${members.id} < ${page.keyset.id}` : sql`${members.id} > ${page.keyset.id}`) : undefined,
      ),
    )
    .orderBy(...(orderBy === 'EXTENDED' ? extendedOrder(extendedPath ?? [], walk) : key ? [sql`${key} ${sql.raw(walk)} nulls last`] : []), order(idWalk, members.id))
    .limit(page.limit)
    .offset(page.offset);
  if (backwards) rows.reverse();
  return rows.map((member) => ({ member }));
}

export async function countMembersInOrder(db: Executor, filter: CompiledFilter, orderBy: PlainOrder): Promise<number> {
  const { condition } = plainOrder(orderBy, filter.window, undefined);
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(members)
    .where(and(eq(members.accountId, filter.accountId), isNull(members.mergedIntoId), condition, filter.member(), filter.withoutRecords()));
  return row.count;
}

/**
 * How many members a listing by id places before `memberId` (lower ids ascending, higher
 * descending), under the filter's member conditions, counted up to `cap`.
 */
export async function countBeforeById(db: Executor, filter: CompiledFilter, direction: Direction, memberId: number, cap: number): Promise<number> {
  const before = db
    .select({ id: members.id })
    .from(members)
    .where(
      and(
        eq(members.accountId, filter.accountId),
        isNull(members.mergedIntoId),
        filter.member(),
        filter.withoutRecords(),
        direction === 'ASC' ? sql`${members.id} < ${memberId}` : sql`${members.id} > ${memberId}`,
      ),
    )
    .limit(cap)
    .as('before');
  const [found] = await db.select({ count: sql<number>`count(*)::int` }).from(before);
  return found.count;
}

/**
 * Scores of a page's members when the filter's activity conditions are at most a brand (what the
 * kept totals count: repeatable records, any activity and network): a prepared statement, the
 * counted rows of `countedRows` read member by member, one arm per raw span. Each arm reads the
 * records through (account, member, completed_at). As one query over the page's members with an
 * `or` of the two spans, the planner may read the window's whole last partial day through
 * (account, completed_at) and filter it by member: when statistics do not know that day yet
 * (every record since they were gathered), it estimates either index at one row and takes the
 * smaller, and a busy day then costs every record since midnight.
 */
const memberScoresText = (members: string) => `
  select page.member_id as "memberId", sum(points)::int as points, sum(count)::int as "activityCount"
  from unnest(${members}) as page(member_id)
  cross join lateral (${countedArms('page.member_id')}) counted
  group by page.member_id`;

/**
 * The statement for a page (`$2` an array) and for one member (`$2` an id, member(id)). The planner
 * sizes `unnest($2)` at ten members, so a page's statement is planned with its values each time;
 * for one member it knows the size, and after five calls PostgreSQL keeps the statement's generic
 * plan, which reads the same index ranges (checked with `plan_cache_mode = force_generic_plan`):
 * half a millisecond of planning less per member(id).
 */
const memberScoresTexts = { page: memberScoresText('$2::int[]'), one: memberScoresText('array[$2::int]') };

/** An empty span, for the arms a window does not need. */
const noSpan = { start: new Date(0), end: new Date(0) };

/**
 * The counted rows of one member (`member`, an expression of the statement) under a filter of at
 * most a brand: rollup days, then the two raw spans. `$1` is the account; the seven values of
 * `countedArmsValues` are `$first` on (`$3` on in memberScoresText).
 */
function countedArms(member: string, first = 3): string {
  const [daysFrom, daysUntil, brand, firstStart, firstEnd, secondStart, secondEnd] = Array.from({ length: 7 }, (_, index) => `$${first + index}`);
  const raw = (start: string, end: string) => `
    select 1, points from activity_records
      where account_id = $1 and member_id = ${member} and completed_at >= ${start}::timestamptz and completed_at < ${end}::timestamptz
        and not one_time and (${brand}::int = 0 or brand_id = ${brand})`;
  return `
    select count, points from member_activity_daily
      where account_id = $1 and member_id = ${member} and day >= ${daysFrom}::date and day < ${daysUntil}::date
        and not one_time and (${brand}::int = 0 or brand_id = ${brand})
    union all ${raw(firstStart, firstEnd)}
    union all ${raw(secondStart, secondEnd)}`;
}

/** The values of countedArms, in its order: the window's whole days, the brand (0 for any), its two raw spans. */
function countedArmsValues(brandId: number, window: ResolvedWindow): unknown[] {
  const { wholeDays, rawSpans } = splitWindow(window);
  const [first = noSpan, second = noSpan] = rawSpans;
  return [wholeDays?.from ?? '1970-01-01', wholeDays?.until ?? '1970-01-01', brandId, first.start.toISOString(), first.end.toISOString(), second.start.toISOString(), second.end.toISOString()];
}

/** Points and records of several members in the window, in one query. */
export async function scoresOf(db: Executor, filter: CompiledFilter, window: ResolvedWindow, memberIds: readonly number[]) {
  if (filter.totalsBrandId !== undefined) {
    return preparedRows<{ memberId: number; points: number; activityCount: number }>(db, memberIds.length === 1 ? memberScoresTexts.one : memberScoresTexts.page, [
      filter.accountId,
      memberIds.length === 1 ? memberIds[0] : memberIds,
      ...countedArmsValues(filter.totalsBrandId, window),
    ]);
  }
  const counted = countedRows(db, filter, window, memberIds);
  return db
    .select({
      memberId: counted.memberId,
      points: sql<number>`sum(${counted.points})::int`,
      activityCount: sql<number>`sum(${counted.count})::int`,
    })
    .from(counted)
    .groupBy(counted.memberId);
}

/**
 * A member's rank among the members of the same ranking: one plus the number of members with
 * more points, counted up to 1000 (beyond that the interface shows `999+`).
 */
/** Whether the member passes the filter's member conditions (true when it has none). */
export async function memberPassesFilter(db: Executor, filter: CompiledFilter, memberId: number): Promise<boolean> {
  const conditions = filter.member();
  if (!conditions) return true;
  const [row] = await db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.accountId, filter.accountId), eq(members.id, memberId), conditions));
  return row !== undefined;
}

/** Each member's points over the window under the filter, from the rollups and raw edges: the subquery the counts of members ahead read. */
function pointsPerMember(db: Executor, filter: CompiledFilter, window: ResolvedWindow) {
  const counted = countedRows(db, filter, window);
  return db
    .select({ memberId: counted.memberId, points: sql<number>`sum(${counted.points})::int`.as('points') })
    .from(counted)
    .groupBy(counted.memberId)
    .as('totals');
}

export async function membersAhead(db: Executor, filter: CompiledFilter, window: ResolvedWindow, points: number): Promise<number> {
  const { plan, lagging } = await chooseTotals(db, filter, window);
  return catchUpRead(db, { accountId: filter.accountId, lagging, window }, async () => {
    if (plan) return countAboveFromTotals(db, plan, points, 1000);
    const totals = pointsPerMember(db, filter, window);
    const ahead = db
      .select({ id: members.id })
      .from(totals)
      .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, totals.memberId)))
      .where(and(isNull(members.mergedIntoId), filter.member(), sql`${totals.points} > ${points}`))
      .limit(1000)
      .as('ahead');
    const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(ahead);
    return row.count;
  });
}

/**
 * Each member's latest record in the window under the filter's activity conditions, with its
 * definition: two index probes per member through (account, member, completed_at), whatever their
 * number of records (a busy member may have hundreds of thousands in six months). The newest time
 * first (`max`, which PostgreSQL reads backwards from the index and stops at the first record that
 * passes the conditions), then the record at that time with the highest id, read whole in the
 * same probe. Ordering by (completed_at, id) in one step looks simpler, but once the conditions
 * make the planner expect a handful of rows it sorts the member's whole window instead of stopping
 * at the first (16 s for a member with 200k records in six months, filtered by a brand).
 */
export async function lastRecordsOf(db: Executor, filter: CompiledFilter, window: ResolvedWindow, memberIds: readonly number[]): Promise<{ record: RecordRow; definition: DefinitionRow }[]> {
  // Prepared without a brand only (lastRecordText says why): the generic plan of the statement with
  // `max`, once PostgreSQL switched to it, read every record of a busy member's window (a month:
  // 10 s stalls at 10 connections on the large data set).
  if (filter.totalsBrandId !== undefined) return lastRecordsInScope(db, filter.accountId, filter.totalsBrandId, window, memberIds);
  const ids = memberIds.length ? memberIds : [0];
  const newest = alias(activityRecords, 'newest');
  const inWindowFor = (records: typeof activityRecords | typeof newest) =>
    and(eq(records.accountId, filter.accountId), sql`${records.memberId} = page.member_id`, within(records.completedAt, window), filter.activity(records));
  const newestTime = db
    .select({ at: sql`max(${newest.completedAt})` })
    .from(newest)
    .where(inWindowFor(newest));
  const latest = db
    .select()
    .from(activityRecords)
    .where(and(inWindowFor(activityRecords), sql`${activityRecords.completedAt} = (${newestTime})`))
    .orderBy(desc(activityRecords.id))
    .limit(1)
    .as('latest');
  return (
    db
      .select({ record: latest._.selectedFields, definition: activityDefinitions })
      .from(
        sql`unnest(array[${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )}]::int[]) as page(member_id)`,
      )
      .innerJoinLateral(latest, sql`true`)
      // The account itself, not the lateral's column: Citus routes a statement to one shard only when
      // every distributed table it reads is held to the account by a value.
      .innerJoin(activityDefinitions, and(eq(activityDefinitions.accountId, filter.accountId), eq(activityDefinitions.id, latest.activityId)))
  );
}

const recordColumns = columnsOf(activityRecords);
const definitionColumns = columnsOf(activityDefinitions);

/**
 * lastRecordsOf's statement for a filter of at most a brand (its activity conditions as the totals
 * count them), with and without the brand, for a page (`$2` an array) or one member (`$2` an id).
 * Without a brand, the newest time is read as the first row of a backwards index scan
 * (`order by … limit 1`) rather than as `max`: the two read the same, but only the former stays a
 * backwards scan in the statement's generic plan (`max` became an aggregate over the member's
 * whole window: 94 ms for a busy member), so the statement is prepared and planned once. (One
 * member reads `unnest(array[$2])`, which the planner sizes at one row: sized at ten, a single
 * member's statement would look cheaper planned with its values and be planned on every call.)
 * With a brand, a generic plan cannot choose between the member's records and the brand's (the
 * brand's last record may be far back in a busy member's window), so that one is planned with its
 * values each time.
 */
function lastRecordText(withBrand: boolean, one = false): string {
  // Definitions held by $1 itself, not by the lateral's column: see lastRecordsOf.
  return `select ${recordColumns.from('latest')}, ${definitionColumns.jsonObject('d')} as "definition"
    from unnest(${one ? 'array[$2::int]' : '$2::int[]'}) as page(member_id)
    cross join lateral (${latestRecord('page.member_id', 3, withBrand ? '$5' : undefined)}) latest
    join activity_definitions d on d.account_id = $1 and d.id = latest.activity_id`;
}

/**
 * The latest record of one member (`member`, an expression of the statement) in the window from
 * `$first` to the next parameter, of the brand `brand` (a parameter) if given; `$1` is the account.
 */
function latestRecord(member: string, first: number, brand?: string): string {
  const inWindow = (alias: string) =>
    `${alias}.account_id = $1 and ${alias}.member_id = ${member} and ${alias}.completed_at >= $${first}::timestamptz and ${alias}.completed_at < $${first + 1}::timestamptz
      and not ${alias}.one_time${brand ? ` and ${alias}.brand_id = ${brand}` : ''}`;
  const newest = brand
    ? `(select max(n.completed_at) from activity_records n where ${inWindow('n')})`
    : `(select n.completed_at from activity_records n where ${inWindow('n')} order by n.completed_at desc limit 1)`;
  return `select * from activity_records r where ${inWindow('r')} and r.completed_at = ${newest} order by r.id desc limit 1`;
}
const lastRecordTexts = { brand: lastRecordText(true), any: lastRecordText(false), oneMember: lastRecordText(false, true) };

/**
 * lastRecordsOf for the filters most listings have (at most a brand): the same statement as a
 * fixed text, its rows read as the driver answers them; Drizzle's building and row mapping were
 * the largest part of a ranking's gateway time. Prepared without a brand, planned with its values with one (see lastRecordText).
 */
async function lastRecordsInScope(db: Executor, accountId: number, brandId: number, window: ResolvedWindow, memberIds: readonly number[]) {
  type Row = Record<string, unknown> & { definition: Record<string, unknown> };
  const span = [window.start.toISOString(), window.end.toISOString()];
  const rows = brandId
    ? await plannedRows<Row>(db, lastRecordTexts.brand, [accountId, memberIds, ...span, brandId])
    : memberIds.length === 1
      ? await preparedRows<Row>(db, lastRecordTexts.oneMember, [accountId, memberIds[0], ...span])
      : await preparedRows<Row>(db, lastRecordTexts.any, [accountId, memberIds, ...span]);
  const definitions = definitionColumns.read(rows.map(({ definition }) => definition));
  const records = recordColumns.read(rows.map(({ definition, ...record }) => record));
  return records.map((record, index) => ({ record, definition: definitions[index] }));
}

/**
 * A member's score and latest record under a scope of at most a brand, as columns of the member's
 * own statement (`members` its table, `$1` the account), their values from `$first` on: the score
 * as `memberScoresText` counts it, the latest record as `lastRecordText` finds it without a brand
 * (with one, that statement is planned with its values: see lastRecordText). Read them back with
 * `readMemberFigures`.
 */
export function memberFigureColumns(filter: CompiledFilter, window: ResolvedWindow, asks: { score: boolean; lastRecord: boolean }, first: number): { columns: string; names: string[]; values: unknown[] } {
  if (filter.totalsBrandId === undefined || (asks.lastRecord && filter.totalsBrandId !== 0)) throw new Error('member figures are read with the member only for a scope of at most a brand');
  const columns: string[] = [];
  const names: string[] = [];
  const values: unknown[] = [];
  if (asks.score) {
    columns.push(`(select json_build_object('points', coalesce(sum(points), 0)::int, 'activityCount', coalesce(sum(count), 0)::int)
      from (${countedArms('members.id', first)}) counted) as "figureScore"`);
    names.push('figureScore');
    values.push(...countedArmsValues(filter.totalsBrandId, window));
  }
  if (asks.lastRecord) {
    columns.push(`(select json_build_object('record', ${recordColumns.jsonObject('latest')}, 'definition', ${definitionColumns.jsonObject('d')})
      from (${latestRecord('members.id', first + values.length)}) latest
      join activity_definitions d on d.account_id = $1 and d.id = latest.activity_id) as "figureLastRecord"`);
    names.push('figureLastRecord');
    values.push(window.start.toISOString(), window.end.toISOString());
  }
  return { columns: columns.join(', '), names, values };
}

/** The score and latest record `memberFigureColumns` read, as the scope's loaders answer them. */
export function readMemberFigures(read: Record<string, unknown>): { score?: { points: number; activityCount: number }; lastRecord?: { record: RecordRow; definition: DefinitionRow } | null } {
  const latest = read.figureLastRecord as { record: Record<string, unknown>; definition: Record<string, unknown> } | null | undefined;
  return {
    score: read.figureScore as { points: number; activityCount: number } | undefined,
    lastRecord: latest === undefined ? undefined : latest && { record: recordColumns.read([latest.record])[0], definition: definitionColumns.read([latest.definition])[0] },
  };
}

/** A member's brands by points in the window, best first, at least `threshold` points. */
export function topBrandsOf(db: Executor, { filter, window, memberId, threshold, limit }: { filter: CompiledFilter; window: ResolvedWindow; memberId: number; threshold: number; limit: number }) {
  const counted = countedRows(db, filter, window, [memberId]);
  const points = sql<number>`sum(${counted.points})::int`;
  return db
    .select({ brandId: brands.id, name: brands.name, type: brands.type, points, activityCount: sql<number>`sum(${counted.count})::int` })
    .from(counted)
    .innerJoin(brands, and(eq(brands.accountId, filter.accountId), eq(brands.id, counted.brandId)))
    .groupBy(brands.id, brands.name, brands.type)
    .having(sql`sum(${counted.points}) >= ${threshold}`)
    .orderBy(desc(points), asc(brands.id))
    .limit(limit);
}
