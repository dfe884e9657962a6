import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { preparedRowsOf } from '../../db/statements.js';
import { timestampParam } from '../../db/timestamps.js';
import {
  activityRecords,
  members,
  scoreWindowActivityTotals,
  scoreWindowCounts,
  scoreWindowGroups,
  scoreWindows,
  scoreWindowTotals,
} from '../../db/schema/index.js';
import type { ResolvedWindow } from '../../filters/window.js';
import type { CoveredWindow, SignedSpan } from './score-windows.js';
import { buildGroups, groupKeys, groupsCorrectedBy, groupsDelta, roomToAggregate, type GroupDimension } from './score-window-groups.queries.js';
import { activityDeltaOf, applyActivityDelta, memberActivityTotals } from './score-window-activities.queries.js';
import { holdTotalsLock, holdWindowsLock } from './score-windows.locks.js';

export async function coveredWindows(db: Executor, accountId: number): Promise<CoveredWindow[]> {
  const rows = await db
    .select({ windowId: scoreWindows.windowId, from: scoreWindows.coveredFrom, until: scoreWindows.coveredUntil })
    .from(scoreWindows)
    .where(eq(scoreWindows.accountId, accountId))
    .orderBy(asc(scoreWindows.windowId));
  return rows;
}

export async function saveCoverage(tx: Transaction, accountId: number, windows: readonly CoveredWindow[]) {
  if (!windows.length) return;
  await tx
    .insert(scoreWindows)
    .values(windows.map((w) => ({ accountId, windowId: w.windowId, coveredFrom: w.from, coveredUntil: w.until })))
    .onConflictDoUpdate({
      target: [scoreWindows.accountId, scoreWindows.windowId],
      set: { coveredFrom: sql`excluded.covered_from`, coveredUntil: sql`excluded.covered_until` },
    });
}

/** Accounts with records and no covered windows yet, and accounts whose windows the worker should move. */
export async function accountsToCover(db: Executor): Promise<number[]> {
  const rows = await executeRows<{ account_id: number }>(db, sql`
    select a.id as account_id from accounts a
    where exists (select 1 from ${activityRecords} r where r.account_id = a.id)
       or exists (select 1 from ${scoreWindows} w where w.account_id = a.id)
    order by a.id`);
  return rows.map((row) => Number(row.account_id));
}

/** (window, start, end, sign) rows, the spans each window's records are counted over. */
function spansTable(spans: readonly { windowId: number; span: SignedSpan }[]): SQL {
  const rows = spans.map(({ windowId, span }) => sql`(${windowId}::smallint, ${timestampParam(span.start)}, ${timestampParam(span.end)}, ${span.sign}::int)`);
  return sql`(values ${sql.join(rows, sql`, `)}) as s(window_id, start_at, end_at, sign)`;
}

/**
 * Per window, member and brand (0: every brand), the signed points and records of the repeatable
 * records in the spans: the change a span makes to the totals. Brandless records count in 0 only.
 */
function recordDeltas(accountId: number, spans: readonly { windowId: number; span: SignedSpan }[]): SQL {
  return sql`
    select s.window_id, case when grouping(r.brand_id) = 1 then 0 else r.brand_id end as brand_id, r.member_id,
      sum(s.sign * r.points) as points, sum(s.sign) as activity_count
    from ${spansTable(spans)}
    cross join lateral (${recordsIn(accountId)}) r
    group by grouping sets ((s.window_id, r.member_id, r.brand_id), (s.window_id, r.member_id))
    having grouping(r.brand_id) = 1 or r.brand_id is not null`;
}

/** Per window, brand, member, activity and network: the signed records of the spans (see applyActivityDelta). */
function recordActivityDeltas(accountId: number, spans: readonly { windowId: number; span: SignedSpan }[]): SQL {
  return sql`select ${activityDeltaOf(sql`r`, sql`s.window_id`, sql`s.sign`)}
    from ${spansTable(spans)}
    cross join lateral (${recordsIn(accountId)}) r
    where r.brand_id is not null`;
}

/**
 * The repeatable records of the span `s` (a row of the enclosing query), optionally of one brand.
 * A lateral subquery fenced with `offset 0`: the planner cannot size a span it reads from a row,
 * and unfenced it may scan a whole brand's records and filter them by time instead of reading
 * the span's few records through the time index.
 */
function recordsIn(accountId: number, brandId?: number): SQL {
  const r = activityRecords;
  return sql`select ${r.memberId} as member_id, ${r.brandId} as brand_id, ${r.activityId} as activity_id, ${r.service} as service,
      ${r.points} as points from ${r}
    where ${r.accountId} = ${accountId} and not ${r.oneTime} and ${r.completedAt} >= s.start_at and ${r.completedAt} < s.end_at
      ${brandId ? sql`and ${r.brandId} = ${brandId}` : sql``}
    offset 0`;
}

/**
 * Adds `delta` — rows of (window_id, brand_id, member_id, points, activity_count), keys may repeat —
 * to the totals, keeps the member counts and groups, and removes members left with no records. Holds
 * the totals lock; the caller's transaction must hold the windows lock.
 */
async function applyTotalsDelta(tx: Transaction, accountId: number, delta: SQL): Promise<void> {
  await holdTotalsLock(tx, accountId);
  const t = scoreWindowTotals;
  const emptied = await executeRows<{ window_id: number; brand_id: number; member_id: number }>(tx, sql`
    with delta as (
      select window_id, brand_id, member_id, sum(points)::int as points, sum(activity_count)::int as activity_count
      from (${delta}) d group by 1, 2, 3
    ),
    before as (
      select d.window_id, d.brand_id, d.member_id, coalesce(t.activity_count, 0) as old_count
      from delta d left join ${t} t on t.account_id = ${accountId} and t.window_id = d.window_id
        and t.brand_id = d.brand_id and t.member_id = d.member_id
    ),
    applied as (
      insert into ${t} (account_id, window_id, brand_id, member_id, points, activity_count)
      select ${accountId}, window_id, brand_id, member_id, points, activity_count from delta order by 2, 3, 4
      on conflict (account_id, window_id, brand_id, member_id) do update
        set points = ${t}.points + excluded.points, activity_count = ${t}.activity_count + excluded.activity_count
      returning window_id, brand_id, member_id, activity_count
    ),
    changes as (
      select a.window_id, a.brand_id, a.member_id,
        (a.activity_count > 0)::int - (b.old_count > 0)::int as member_change, a.activity_count - b.old_count as record_change
      from applied a join before b using (window_id, brand_id, member_id)
    ),
    counted as (
      insert into ${scoreWindowCounts} (account_id, window_id, brand_id, members)
      select ${accountId}, window_id, brand_id, sum(member_change)::int
      from changes
      group by window_id, brand_id
      on conflict (account_id, window_id, brand_id) do update set members = ${scoreWindowCounts}.members + excluded.members
    ),
    grouped as (${groupsDelta(accountId, sql`changes`)})
    select window_id, brand_id, member_id from applied where activity_count <= 0`);
  const keys = emptied.map((row) => sql`(${Number(row.window_id)}::smallint, ${Number(row.brand_id)}::int, ${Number(row.member_id)}::int)`);
  if (keys.length) {
    await tx.execute(sql`delete from ${t} where account_id = ${accountId}
      and (window_id, brand_id, member_id) in (${sql.join(keys, sql`, `)})`);
  }
}

/** Moves each window's totals to its new coverage: adds the records of the spans given per window. */
export async function foldSpans(tx: Transaction, accountId: number, spans: readonly { windowId: number; span: SignedSpan }[]) {
  if (!spans.length) return;
  await applyTotalsDelta(tx, accountId, recordDeltas(accountId, spans));
  await applyActivityDelta(tx, accountId, recordActivityDeltas(accountId, spans));
}

/** The windows' starts, as a relation s(window_id, start_at) for a first coverage. */
export function windowStarts(windows: readonly CoveredWindow[]): SQL {
  return sql`(values ${sql.join(
    windows.map((w) => sql`(${w.windowId}::smallint, ${timestampParam(w.from)})`),
    sql`, `,
  )}) as s(window_id, start_at)`;
}

/**
 * First coverage of an account: totals of every standard window ending at the windows' end, their
 * member counts and groups, from one pass over the records (each record joins the windows it falls
 * in). The account has no totals yet, and the caller holds the windows and totals locks on its behalf
 * (see buildWindows: this may run in a session of its own).
 */
export async function buildMemberTotals(db: Executor, accountId: number, windows: readonly CoveredWindow[]) {
  await roomToAggregate(db);
  const t = scoreWindowTotals;
  await db.execute(sql`
    insert into ${t} (account_id, window_id, brand_id, member_id, points, activity_count)
    select ${accountId}, w.window_id, case when grouping(r.brand_id) = 1 then 0 else r.brand_id end, r.member_id,
      sum(r.points)::int, count(*)::int
    from ${activityRecords} r
    cross join lateral (select window_id from ${windowStarts(windows)} where r.completed_at >= s.start_at) w
    where r.account_id = ${accountId} and not r.one_time and r.completed_at < ${timestampParam(windows[0].until)}
    group by grouping sets ((w.window_id, r.member_id, r.brand_id), (w.window_id, r.member_id))
    having grouping(r.brand_id) = 1 or r.brand_id is not null
    -- In key order, so the primary key grows at its end instead of splitting pages everywhere.
    order by 2, 3, 4`);
  await db.execute(sql`
    insert into ${scoreWindowCounts} (account_id, window_id, brand_id, members)
    select account_id, window_id, brand_id, count(*)::int from ${t} where account_id = ${accountId} group by 1, 2, 3
    on conflict (account_id, window_id, brand_id) do update set members = excluded.members`);
  await buildGroups(db, accountId);
}

/** Takes out every kept total, count, group and activity total of an account: what a failed first coverage left. */
export async function dropTotals(db: Executor, accountId: number): Promise<void> {
  for (const table of [scoreWindowTotals, scoreWindowCounts, scoreWindowGroups, scoreWindowActivityTotals]) {
    await db.execute(sql`delete from ${table} where account_id = ${accountId}`);
  }
}

export interface CountedRecord {
  memberId: number;
  brandId: number | null;
  activityId: number;
  service: string | null;
  points: number;
  oneTime: boolean;
  completedAt: Date;
}

/**
 * Adds (sign 1) or takes out (sign -1) records inside the covered windows: records stored late
 * (completed before a window's end), and deleted records. Records after every window's end are
 * left to the worker. Holds the windows lock shared; the caller's transaction keeps it to commit.
 */
export async function countRecordsIn(tx: Transaction, accountId: number, records: readonly CountedRecord[], sign: 1 | -1) {
  const repeatable = records.filter((record) => !record.oneTime);
  if (!repeatable.length) return;
  await holdWindowsLock(tx, accountId, 'shared');
  const windows = await coveredWindows(tx, accountId);
  const rows: SQL[] = [];
  const activityRows: SQL[] = [];
  for (const record of repeatable) {
    for (const w of windows) {
      if (record.completedAt < w.from || record.completedAt >= w.until) continue;
      rows.push(sql`(${w.windowId}::smallint, 0, ${record.memberId}::int, ${sign * record.points}::int, ${sign}::int)`);
      if (record.brandId === null) continue;
      rows.push(sql`(${w.windowId}::smallint, ${record.brandId}::int, ${record.memberId}::int, ${sign * record.points}::int, ${sign}::int)`);
      activityRows.push(
        sql`(${w.windowId}::smallint, ${record.brandId}::int, ${record.memberId}::int, ${record.activityId}::int, ${record.service ?? ''}::text, ${sign}::int)`,
      );
    }
  }
  if (!rows.length) return;
  await applyTotalsDelta(
    tx,
    accountId,
    sql`select * from (values ${sql.join(rows, sql`, `)}) as v(window_id, brand_id, member_id, points, activity_count)`,
  );
  if (activityRows.length) {
    await applyActivityDelta(
      tx,
      accountId,
      sql`select * from (values ${sql.join(activityRows, sql`, `)}) as v(window_id, brand_id, member_id, activity_id, service, activity_count)`,
    );
  }
}

/** A member's totals taken out (as negative deltas), for a merge or a deletion. */
function takenOut(accountId: number, memberId: number): SQL {
  const t = scoreWindowTotals;
  return sql`select window_id, brand_id, member_id, -points as points, -activity_count as activity_count
    from ${t} where account_id = ${accountId} and member_id = ${memberId}`;
}

/** A merged member's totals become the survivor's (the records moved with them). */
export async function moveTotals(tx: Transaction, accountId: number, fromMemberId: number, toMemberId: number) {
  await holdWindowsLock(tx, accountId, 'shared');
  const t = scoreWindowTotals;
  await applyTotalsDelta(
    tx,
    accountId,
    sql`${takenOut(accountId, fromMemberId)}
      union all
      select window_id, brand_id, ${toMemberId}::int, points, activity_count from ${t} where account_id = ${accountId} and member_id = ${fromMemberId}`,
  );
  await applyActivityDelta(
    tx,
    accountId,
    sql`${memberActivityTotals(accountId, fromMemberId, -1)} union all ${memberActivityTotals(accountId, fromMemberId, 1, toMemberId)}`,
  );
}

/** Takes a member out of every total, before the member is deleted. */
export async function forgetTotals(tx: Transaction, accountId: number, memberId: number) {
  await holdWindowsLock(tx, accountId, 'shared');
  await applyTotalsDelta(tx, accountId, takenOut(accountId, memberId));
  await applyActivityDelta(tx, accountId, memberActivityTotals(accountId, memberId, -1));
}

// ——— reading ———

export interface TotalsScope {
  accountId: number;
  windowId: number;
  /** 0: every brand. */
  brandId: number;
  /** Conditions on `members`; the rows are then joined to it. */
  memberConditions: SQL | undefined;
}

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
 * spans: what the activity groups' edge members change (see score-window-activities.queries.ts).
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
 * statement, so a worker step between two reads cannot split them.
 *
 * The planner cannot know how few records the spans hold (they depend on a row it reads), so the
 * member and totals lookups are `limit 1` lateral subqueries: index probes per edge member, never
 * a hash of every member.
 */
export async function edgeScores(db: Executor, scope: TotalsScope, window: ResolvedWindow, options: { count?: boolean } = {}): Promise<EdgeScores> {
  const rows = await preparedRowsOf<{ member_id: number | null; points: number; activity_count: number; in_totals: boolean; counted: number | null }>(
    db,
    sql`with corrections as (${corrections(scope, window)})
    select c.member_id, (c.points + coalesce(kept.points, 0))::int as points,
      (c.activity_count + coalesce(kept.activity_count, 0))::int as activity_count,
      kept.points is not null as in_totals, null::int as counted
    from corrections c
    cross join lateral (select 1 from ${members} where ${members.accountId} = ${scope.accountId} and ${members.id} = c.member_id
      ${scope.memberConditions ? sql`and ${scope.memberConditions}` : sql``} limit 1) admitted
    left join lateral ${keptTotal(scope)} on true
    ${options.count ? sql`union all select null, null, null, null, ${memberCount(scope)}` : sql``}`,
  );
  const edges = rows.flatMap((row) =>
    row.member_id === null
      ? []
      : [{ memberId: Number(row.member_id), points: Number(row.points), activityCount: Number(row.activity_count), inTotals: Boolean(row.in_totals) }],
  );
  // With `count`, one more row without a member carries the count.
  const counted = rows.find((row) => row.member_id === null)?.counted;
  return { edges, counted: counted === undefined || counted === null ? undefined : Number(counted) };
}

export interface TotalsRow {
  memberId: number;
  points: number;
  activityCount: number;
}

/** The totals rows of a scope (joined with `members`), under further conditions. */
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
 * The first `limit` rows of the totals in `order`, after the row `after` of that order if given,
 * among the members the conditions admit. Points descending with ids ascending (and its reverse)
 * read the ranking index in order; the other two sort each run of equal points.
 *
 * Only the totals: the caller reads the rows it keeps, once the edge members are merged in. Read
 * with their member rows and the JSON of their services and opt-ins, the extra rows that make room
 * for the edge members (as many again as a one-week page) cost as much as the page itself.
 */
export async function rankedTotals(
  db: Executor,
  scope: TotalsScope,
  order: TotalsOrder,
  after: { points: number; memberId: number } | undefined,
  limit: number,
): Promise<TotalsRow[]> {
  const t = scoreWindowTotals;
  const pointsAhead = order.points === 'DESC' ? sql`<` : sql`>`;
  const idAhead = order.ids === 'DESC' ? sql`<` : sql`>`;
  // The members are joined only for their conditions: without any, the totals alone answer.
  const joined = scope.memberConditions ? sql`join ${members} on ${members.accountId} = ${scope.accountId} and ${members.id} = ${t.memberId}` : sql``;
  const rows = await preparedRowsOf<{ member_id: number; points: number; activity_count: number }>(
    db,
    sql`select ${t.memberId} as member_id, ${t.points} as points, ${t.activityCount} as activity_count
    from ${t} ${joined}
    where ${inScope(scope, after ? sql`(${t.points} ${pointsAhead} ${after.points} or (${t.points} = ${after.points} and ${t.memberId} ${idAhead} ${after.memberId}))` : undefined)}
    -- Nulls placed as in the index (points desc nulls last), or the planner sorts instead of reading it in order.
    order by ${order.points === 'DESC' ? sql`${t.points} desc nulls last` : sql`${t.points} asc nulls first`}, ${t.memberId} ${sql.raw(order.ids)}
    limit ${limit}`,
  );
  return rows.map((row) => ({ memberId: Number(row.member_id), points: Number(row.points), activityCount: Number(row.activity_count) }));
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
  const t = scoreWindowTotals;
  return sql<number>`(select count(*) from ${t} join ${members} on ${members.accountId} = ${scope.accountId} and ${members.id} = ${t.memberId}
    where ${t.accountId} = ${scope.accountId} and ${t.windowId} = ${scope.windowId} and ${t.brandId} = ${scope.brandId}
      and ${scope.memberConditions})::int`;
}

/** Members of the totals with more than `points`, other than `except`, counted up to `cap`. */
export async function countTotalsAbove(db: Executor, scope: TotalsScope, points: number, except: readonly number[], cap: number): Promise<number> {
  const t = scoreWindowTotals;
  const above = db
    .select({ memberId: t.memberId })
    .from(t)
    .innerJoin(members, and(eq(members.accountId, scope.accountId), eq(members.id, t.memberId)))
    .where(inScope(scope, sql`${t.points} > ${points}`, except.length ? sql`${t.memberId} not in ${except}` : undefined))
    .limit(cap)
    .as('above');
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(above);
  return row.count;
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
export async function groupCounts(
  db: Executor,
  scope: TotalsScope,
  window: ResolvedWindow,
  dimension: GroupDimension,
  bucket: (key: SQL) => SQL = (key) => key,
): Promise<GroupCount[]> {
  if (!scope.brandId || scope.memberConditions) throw new Error('groups are kept per brand, for every member');
  const rows = await executeRows<{ key: string | null; members: number; activity_count: number }>(
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
