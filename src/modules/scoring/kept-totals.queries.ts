import { and, eq, sql, type SQL } from 'drizzle-orm';
import { typedArray } from '../../db/arrays.js';
import type { Executor } from '../../db/client.js';
import { preparedRowsOf } from '../../db/statements.js';
import { timestampParam } from '../../db/timestamps.js';
import { members, scoreWindowCounts, scoreWindows, scoreWindowTotals } from '../../db/schema/index.js';
import type { ResolvedWindow } from '../../filters/window.js';
import { groupKeys, groupsCorrectedBy, type GroupDimension } from '../score-windows/score-window-groups.queries.js';
import { recordsIn, type TotalsScope } from '../score-windows/score-windows.queries.js';

/**
 * Reading the kept totals of the standard windows (score-windows/: how they are kept): the members
 * a window's ranking corrects, its ranked rows, its counts, and the brand reports' groups.
 */

export interface EdgeScore {
  memberId: number;
  /** The member's points and records in the requested window. */
  points: number;
  activityCount: number;
  /** Whether the member has a row in the totals (then it also appears in their order). */
  inTotals: boolean;
}

export interface EdgeScores {
  edges: EdgeScore[];
  /** With `count`: the members the totals hold under the conditions, read in the same snapshot. */
  counted?: number;
}

/**
 * The correction spans of a requested window against a window's coverage, as it is when the
 * statement runs: + [start, covered_from) + [covered_until, end), each signed when backwards.
 */
function liveSpans(scope: TotalsScope, window: ResolvedWindow): SQL {
  const start = timestampParam(window.start);
  const end = timestampParam(window.end);
  const coverage = sql`from ${scoreWindows} w where w.account_id = ${scope.accountId} and w.window_id = ${scope.windowId}`;
  return sql`(
    select least(${start}, w.covered_from) as start_at, greatest(${start}, w.covered_from) as end_at,
      case when ${start} < w.covered_from then 1 else -1 end as sign
    ${coverage} and w.covered_from <> ${start}
    union all
    select least(w.covered_until, ${end}), greatest(w.covered_until, ${end}), case when w.covered_until < ${end} then 1 else -1 end
    ${coverage} and w.covered_until <> ${end}
  ) as s`;
}

/** Per member with records in the correction spans: the spans' signed points and records. */
function corrections(scope: TotalsScope, window: ResolvedWindow): SQL {
  return sql`select r.member_id, sum(s.sign * r.points) as points, sum(s.sign) as activity_count
    from ${liveSpans(scope, window)}
    cross join lateral (${recordsIn(scope.accountId, scope.brandId || undefined)}) r
    group by r.member_id`;
}

/**
 * Per member, activity and network (service '' for none), the signed records of the correction
 * spans: what the activity groups' edge members change (see score-windows/score-window-activities.queries.ts).
 */
export function activityCorrections(scope: TotalsScope, window: ResolvedWindow): SQL {
  return sql`select r.member_id, r.activity_id, coalesce(r.service, '') as service, sum(s.sign) as change
    from ${liveSpans(scope, window)}
    cross join lateral (${recordsIn(scope.accountId, scope.brandId || undefined)}) r
    group by 1, 2, 3`;
}

/** The totals row of the correction `c` (a lateral subquery named `kept`). */
function keptTotal(scope: TotalsScope): SQL {
  const t = scoreWindowTotals;
  return sql`(select ${t.points} as points, ${t.activityCount} as activity_count from ${t}
    where ${t.accountId} = ${scope.accountId} and ${t.windowId} = ${scope.windowId} and ${t.brandId} = ${scope.brandId}
      and ${t.memberId} = c.member_id limit 1) kept`;
}

/**
 * The members whose score in the requested window differs from their totals (those with records
 * in the correction spans), with their exact score; only members the conditions admit. Merged
 * members have no records, so none is returned. The spans come from the coverage in the same
 * statement, so a worker step between two reads cannot split them. A relation `edges(member_id,
 * points, activity_count, in_totals)` for a `with` clause.
 *
 * The planner cannot know how few records the spans hold (they depend on a row it reads), so the
 * member and totals lookups are `limit 1` lateral subqueries: index probes per edge member, never
 * a hash of every member.
 */
function edgesOf(scope: TotalsScope, window: ResolvedWindow): SQL {
  return sql`corrections as (${corrections(scope, window)}),
    edges as (
      select c.member_id, (c.points + coalesce(kept.points, 0))::int as points,
        (c.activity_count + coalesce(kept.activity_count, 0))::int as activity_count,
        kept.points is not null as in_totals
      from corrections c
      cross join lateral (select 1 from ${members} where ${members.accountId} = ${scope.accountId} and ${members.id} = c.member_id
        ${scope.memberConditions ? sql`and ${scope.memberConditions}` : sql``} limit 1) admitted
      left join lateral ${keptTotal(scope)} on true
    )`;
}

interface EdgeRow {
  member_id: number;
  points: number;
  activity_count: number;
  in_totals: boolean;
}

const edgeOf = (row: EdgeRow): EdgeScore => ({ memberId: Number(row.member_id), points: Number(row.points), activityCount: Number(row.activity_count), inTotals: Boolean(row.in_totals) });

/** The member count a statement's count row carries, when it has one. */
const countIn = (row: { counted: number | null } | undefined): number | undefined => (row?.counted === undefined || row.counted === null ? undefined : Number(row.counted));

/** The edge members of a requested window (edgesOf) and, with `count`, the members the totals hold, in one statement. */
export async function edgeScores(db: Executor, scope: TotalsScope, window: ResolvedWindow, options: { count?: boolean } = {}): Promise<EdgeScores> {
  const rows = await preparedRowsOf<EdgeRow & { counted: number | null }>(
    db,
    sql`with ${edgesOf(scope, window)}
    select member_id, points, activity_count, in_totals, null::int as counted from edges
    ${options.count ? sql`union all select null, null, null, null, ${memberCount(scope)}` : sql``}`,
  );
  // With `count`, one more row without a member carries the count.
  return { edges: rows.filter((row) => row.member_id !== null).map(edgeOf), counted: countIn(rows.find((row) => row.member_id === null)) };
}

export interface TotalsRow {
  memberId: number;
  points: number;
  activityCount: number;
}

/** The totals table, joined with `members` only when the scope's member conditions read it. */
function totalsOf(scope: TotalsScope): SQL {
  const t = scoreWindowTotals;
  return scope.memberConditions ? sql`${t} join ${members} on ${members.accountId} = ${scope.accountId} and ${members.id} = ${t.memberId}` : sql`${t}`;
}

/** The totals rows of a scope (from totalsOf), under further conditions. */
function inScope(scope: TotalsScope, ...conditions: (SQL | undefined)[]): SQL | undefined {
  const t = scoreWindowTotals;
  return and(eq(t.accountId, scope.accountId), eq(t.windowId, scope.windowId), eq(t.brandId, scope.brandId), ...conditions, scope.memberConditions);
}

/** An order of the totals: by points, then by member id, each way. */
export interface TotalsOrder {
  points: 'ASC' | 'DESC';
  ids: 'ASC' | 'DESC';
}

/**
 * A ranked page's reads from the totals, in one statement (one snapshot): the edge members of the
 * requested window (edgesOf) and, with `count`, the members the totals hold; then the first
 * `wanted` rows of the totals in `order` plus as many more as there are edge members, after the
 * row `after` of that order if given, among the members the conditions admit. Points descending
 * with ids ascending (and its reverse) read the ranking index in order; the other two sort each
 * run of equal points. As two statements, the edge members and the totals cost a ranking two
 * round trips, each planned twice over on a Citus cluster (docs/scaling.md).
 *
 * Only the totals: the caller reads the rows it keeps, once the edge members are merged in. Read
 * with their member rows and the JSON of their services and opt-ins, the extra rows that make room
 * for the edge members (as many again as a one-week page) cost as much as the page itself.
 */
export async function rankedWithEdges(
  db: Executor,
  scope: TotalsScope,
  window: ResolvedWindow,
  order: TotalsOrder,
  after: { points: number; memberId: number } | undefined,
  wanted: number,
  options: { count?: boolean } = {},
): Promise<EdgeScores & { read: TotalsRow[] }> {
  const t = scoreWindowTotals;
  const pointsAhead = order.points === 'DESC' ? sql`<` : sql`>`;
  const idAhead = order.ids === 'DESC' ? sql`<` : sql`>`;
  const rows = await preparedRowsOf<EdgeRow & { part: 'edge' | 'total' | 'count'; counted: number | null }>(
    db,
    sql`with ${edgesOf(scope, window)}
    select 'edge' as part, member_id, points, activity_count, in_totals, null::int as counted from edges
    union all
    (select 'total', ${t.memberId}, ${t.points}, ${t.activityCount}, true, null
    from ${totalsOf(scope)}
    where ${inScope(scope, after ? sql`(${t.points} ${pointsAhead} ${after.points} or (${t.points} = ${after.points} and ${t.memberId} ${idAhead} ${after.memberId}))` : undefined)}
    -- Nulls placed as in the index (points desc nulls last), or the planner sorts instead of reading it in order.
    order by ${order.points === 'DESC' ? sql`${t.points} desc nulls last` : sql`${t.points} asc nulls first`}, ${t.memberId} ${sql.raw(order.ids)}
    limit ${wanted} + (select count(*) from edges))
    ${options.count ? sql`union all select 'count', null, null, null, null, ${memberCount(scope)}` : sql``}`,
  );
  return {
    edges: rows.filter((row) => row.part === 'edge').map(edgeOf),
    counted: countIn(rows.find((row) => row.part === 'count')),
    // The first rows of the order, as a set: the caller sorts them with the edge members.
    read: rows.filter((row) => row.part === 'total').map((row) => ({ memberId: Number(row.member_id), points: Number(row.points), activityCount: Number(row.activity_count) })),
  };
}

/**
 * How many members the totals hold under the conditions: the kept count, or a count of the rows.
 * A scalar subquery, so it can share a statement (and a snapshot) with other reads.
 */
function memberCount(scope: TotalsScope): SQL<number> {
  const c = scoreWindowCounts;
  if (!scope.memberConditions) {
    return sql<number>`coalesce((select ${c.members} from ${c} where ${c.accountId} = ${scope.accountId}
      and ${c.windowId} = ${scope.windowId} and ${c.brandId} = ${scope.brandId}), 0)::int`;
  }
  return sql<number>`(select count(*) from ${totalsOf(scope)} where ${inScope(scope)})::int`;
}

/** Members of the totals with more than `points`, other than `except`, counted up to `cap`. */
export async function countTotalsAbove(db: Executor, scope: TotalsScope, points: number, except: readonly number[], cap: number): Promise<number> {
  const t = scoreWindowTotals;
  // The ids left out are one array parameter (as text): the statement's text does not depend on how many there are.
  const [row] = await preparedRowsOf<{ count: number }>(
    db,
    sql`select count(*)::int as count from (select ${t.memberId} from ${totalsOf(scope)}
      where ${inScope(scope, sql`${t.points} > ${points}`, sql`${t.memberId} <> all(${typedArray(except, 'int')})`)}
      limit ${cap}) above`,
  );
  return Number(row.count);
}

/**
 * Members of the totals placed before the row (`points`, `memberId`) in the order `order` (points
 * that way, then ids ascending), other than `except`, counted up to `cap`: a page's rank.
 */
export async function countTotalsBefore(db: Executor, scope: TotalsScope, row: { points: number; memberId: number }, order: 'ASC' | 'DESC', except: readonly number[], cap: number): Promise<number> {
  const t = scoreWindowTotals;
  const ahead = order === 'DESC' ? sql`>` : sql`<`;
  const [counted] = await preparedRowsOf<{ count: number }>(
    db,
    sql`select count(*)::int as count from (select ${t.memberId} from ${totalsOf(scope)}
      where ${inScope(scope, sql`(${t.points} ${ahead} ${row.points} or (${t.points} = ${row.points} and ${t.memberId} < ${row.memberId}))`, sql`${t.memberId} <> all(${typedArray(except, 'int')})`)}
      limit ${cap}) before`,
  );
  return Number(counted.count);
}

export interface GroupCount {
  /** The group's key as `bucket` made it; null for members whose profile has no value. */
  key: string | null;
  members: number;
  activityCount: number;
}

/**
 * A brand's members active in the requested window, by one profile attribute, with their records:
 * the kept groups, corrected by the edge members (each moves from "active in the totals" to
 * "active in the window", in the group of their profile now, as the kept groups count them).
 * `bucket` maps a key (null for none) to the group reported, such as a birth date to an age range.
 * In the order of the buckets. One statement, so the groups, the coverage and the corrections are
 * read in one snapshot.
 */
export async function groupCounts(db: Executor, scope: TotalsScope, window: ResolvedWindow, dimension: GroupDimension, bucket: (key: SQL) => SQL = (key) => key): Promise<GroupCount[]> {
  if (!scope.brandId || scope.memberConditions) throw new Error('groups are kept per brand, for every member');
  // Prepared: one text per dimension and bucket, planned once per connection.
  const rows = await preparedRowsOf<{ key: string | null; members: number; activity_count: number }>(
    db,
    sql`with corrections as (${corrections(scope, window)}),
    edges as (
      select k.key, c.activity_count + coalesce(kept.activity_count, 0) as live, coalesce(kept.activity_count, 0) as kept
      from corrections c
      cross join lateral (select m.country, m.gender, m.birth_date from ${members} m
        where m.account_id = ${scope.accountId} and m.id = c.member_id limit 1) m
      cross join lateral ${groupKeys(sql`m`)}
      left join lateral ${keptTotal(scope)} on true
      where k.dimension = ${dimension}
    ),
    counted as (${groupsCorrectedBy(scope, dimension, sql`edges`)})
    select ${bucket(sql`nullif(key, '')`)} as key, sum(members)::int as members, sum(activity_count)::int as activity_count
    from counted group by 1 having sum(members) > 0 order by 1`,
  );
  return rows.map((row) => ({ key: row.key, members: Number(row.members), activityCount: Number(row.activity_count) }));
}
