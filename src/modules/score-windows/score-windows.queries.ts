import { asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor, Transaction } from '../../db/client.js';
import { unnestRows } from '../../db/arrays.js';
import { executeRows } from '../../db/rows.js';
import { timestampParam } from '../../db/timestamps.js';
import { keptDataWorkName, nameTransaction } from '../../db/work-names.js';
import { activityRecords, scoreWindowActivityTotals, scoreWindowClaims, scoreWindowCounts, scoreWindowGroups, scoreWindows, scoreWindowTotals } from '../../db/schema/index.js';
import type { CoveredWindow, SignedSpan } from './score-windows.js';
import { buildGroups, groupsDelta, roomToAggregate } from './score-window-groups.queries.js';
import { activityDeltaOf, applyActivityDelta, memberActivityTotals } from './score-window-activities.queries.js';
import { rowsOfAccount } from '../kept-data/account-rows.js';
import { holdCoverageLock, holdTotalsLock, tryMoverLock } from './score-windows.locks.js';
import { accountsWhere } from '../tenancy/tenancy.queries.js';

/**
 * Keeping the totals of the standard windows: their coverage, the worker's steps (foldSpans, a first
 * build), and the writes that keep them exact as records are stored late or deleted, members merged
 * or deleted (countRecordsIn, moveTotals, forgetTotals). This folder sits below members and
 * activities, which call these writes in their own transactions; the rankings and reports read the
 * totals in scoring/kept-totals.queries.ts.
 */

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

/**
 * Claims the stretch of time before `until` for the folds about to run (`score_window_claims`; a
 * claim only grows), in a transaction of its own: its update of the account's claim row waits for
 * the batches being stored in one statement now, which hold that row `for share` (recordGate in
 * kept-data/kept-writes.ts), so a fold that starts after it sees them, and later batches see the
 * claim. Answers whether it claimed: with `unlessMoving`, not when another
 * worker is moving the account's windows now (score-windows.locks.ts).
 */
export async function claimCoverage(db: Database, accountId: number, until: Date, { unlessMoving = false } = {}): Promise<boolean> {
  return db.transaction(async (tx) => {
    await nameTransaction(tx, keptDataWorkName);
    if (unlessMoving && !(await tryMoverLock(tx, accountId))) return false;
    await tx
      .insert(scoreWindowClaims)
      .values({ accountId, claimedUntil: until })
      .onConflictDoUpdate({ target: scoreWindowClaims.accountId, set: { claimedUntil: sql`greatest(${scoreWindowClaims.claimedUntil}, excluded.claimed_until)` } });
    return true;
  });
}

/** Accounts with records and no covered windows yet, and accounts whose windows the worker should move. */
export function accountsToCover(db: Executor): Promise<number[]> {
  return accountsWhere(
    db,
    (accountId) => sql`exists (select 1 from ${activityRecords} where account_id = ${accountId}::int)
    or exists (select 1 from ${scoreWindows} where account_id = ${accountId}::int)`,
  );
}

/**
 * How far an end of a window moves from `from` toward `to` (either way) taking in at most `records`
 * repeatable records, and how many it takes in: `to` when the stretch holds no more, otherwise the
 * time of the first record past the budget (the stretch before it holds at most `records`). At
 * least a millisecond, so an end always moves: records completed in the same millisecond are
 * folded together. One read of at most `records + 1` index entries.
 */
export async function stepEnd(db: Executor, accountId: number, from: Date, to: Date, records: number): Promise<{ at: Date; reached: boolean; records: number }> {
  const r = activityRecords;
  const forwards = from < to;
  const [low, high] = forwards ? [from, to] : [to, from];
  const [row] = await executeRows<{ n: number; ms: number | null }>(
    db,
    sql`
    select count(*)::int as n, floor(extract(epoch from ${sql.raw(forwards ? 'max' : 'min')}(s.completed_at)) * 1000)::float8 as ms
    from (select ${r.completedAt} as completed_at from ${r}
      where ${r.accountId} = ${accountId} and not ${r.oneTime}
        and ${r.completedAt} >= ${timestampParam(low)} and ${r.completedAt} < ${timestampParam(high)}
      order by ${r.completedAt} ${sql.raw(forwards ? 'asc' : 'desc')}
      limit ${records + 1}) s`,
  );
  const taken = Number(row.n);
  if (taken <= records) return { at: to, reached: true, records: taken };
  // Milliseconds, as the coverage keeps them: rounded toward `from`, then kept a millisecond past it.
  const at = Number(row.ms);
  const ms = forwards ? Math.max(at, from.getTime() + 1) : Math.min(at + 1, from.getTime() - 1);
  return { at: new Date(ms), reached: false, records };
}

/**
 * Whether the spans hold at most `limit` repeatable records of the account: a count that stops
 * reading past the limit, so it costs at most `limit + 1` index entries a span.
 */
export async function recordsAtMost(db: Executor, accountId: number, spans: readonly SignedSpan[], limit: number): Promise<boolean> {
  return (await recordsUpTo(db, accountId, spans, limit)) <= limit;
}

/** The repeatable records of the account in the spans, each span counted up to `limit + 1`: above `limit`, more than that. */
export async function recordsUpTo(db: Executor, accountId: number, spans: readonly SignedSpan[], limit: number): Promise<number> {
  if (!spans.length) return 0;
  const r = activityRecords;
  const counts = spans.map(
    (span) => sql`(select count(*) from (select 1 from ${r} where ${r.accountId} = ${accountId} and not ${r.oneTime}
      and ${r.completedAt} >= ${timestampParam(span.start)} and ${r.completedAt} < ${timestampParam(span.end)} limit ${limit + 1}) s)`,
  );
  const [row] = await executeRows<{ n: number }>(db, sql`select (${sql.join(counts, sql` + `)})::int as n`);
  return Number(row.n);
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
export function recordsIn(accountId: number, brandId?: number): SQL {
  const r = activityRecords;
  return sql`select ${r.memberId} as member_id, ${r.brandId} as brand_id, ${r.activityId} as activity_id, ${r.service} as service,
      ${r.points} as points from ${r}
    where ${r.accountId} = ${accountId} and not ${r.oneTime} and ${r.completedAt} >= s.start_at and ${r.completedAt} < s.end_at
      ${brandId ? sql`and ${r.brandId} = ${brandId}` : sql``}
    offset 0`;
}

/** A changed total: the change summed per key, beside the key's record count before it. */
interface ChangedTotal {
  window_id: number;
  brand_id: number;
  member_id: number;
  points: number;
  activity_count: number;
  old_count: number;
  kept: boolean;
}

/**
 * Adds `delta` — rows of (window_id, brand_id, member_id, points, activity_count), keys may repeat —
 * to the totals, keeps the member counts and groups, and removes members left with no records. Holds
 * the totals lock; the caller's transaction must hold the coverage lock.
 *
 * The change is read once, summed per key beside each key's count before it (one snapshot), and
 * the writes take it back as array parameters: the member counts, the groups, the upsert of the
 * keys left with records and the delete of those left with none. Each write is a plain INSERT or
 * DELETE of one account, so on Citus each runs on the account's shard alone; as data-modifying
 * CTEs of one statement they were never router-planned and went through the coordinator as
 * distributed subplans (1–3 s a step at small scale). The rows are bounded by the caller: a
 * worker step folds at most `maxStepRecords` records (two keys each per window), a late record or a
 * merge a member's keys. Arrays are one parameter a column: neither the protocol's parameter limit
 * nor the parser's stack depth grows with them (a row constructor per emptied key passed both on a
 * long catch-up).
 */
async function applyTotalsDelta(tx: Transaction, accountId: number, delta: SQL): Promise<void> {
  await holdTotalsLock(tx, accountId);
  const t = scoreWindowTotals;
  // A probe of the key per changed total: joined, the planner cannot know how few keys a step
  // has (they come from a lateral read) and hashed the whole table instead (seconds at scale).
  const changed = await executeRows<ChangedTotal>(
    tx,
    sql`select d.window_id, d.brand_id, d.member_id, d.points, d.activity_count,
        coalesce(t.activity_count, 0)::int as old_count, t.activity_count is not null as kept
      from (select window_id, brand_id, member_id, sum(points)::int as points, sum(activity_count)::int as activity_count
        from (${delta}) d group by 1, 2, 3
        having sum(points) <> 0 or sum(activity_count) <> 0) d
      left join lateral (select t.activity_count from ${t} t where t.account_id = ${accountId}
        and t.window_id = d.window_id and t.brand_id = d.brand_id and t.member_id = d.member_id limit 1) t on true
      order by 1, 2, 3`,
  );
  if (!changed.length) return;
  const rows = changed.map((row) => {
    const [oldCount, count] = [Number(row.old_count), Number(row.activity_count)];
    return { ...row, member_change: Number(oldCount + count > 0) - Number(oldCount > 0), record_change: count };
  });

  const counts = new Map<string, { window_id: number; brand_id: number; members: number }>();
  for (const row of rows) {
    const key = `${row.window_id}:${row.brand_id}`;
    const count = counts.get(key) ?? { window_id: row.window_id, brand_id: row.brand_id, members: 0 };
    count.members += row.member_change;
    counts.set(key, count);
  }
  await tx.execute(sql`
    insert into ${scoreWindowCounts} (account_id, window_id, brand_id, members)
    select k.account_id, c.window_id, c.brand_id, c.members
    from ${rowsOfAccount(
      accountId,
      unnestRows([...counts.values()], 'c', [
        ['window_id', 'smallint'],
        ['brand_id', 'int'],
        ['members', 'int'],
      ]),
    )}
    on conflict (account_id, window_id, brand_id) do update set members = ${scoreWindowCounts}.members + excluded.members`);

  const grouped = rows.filter((row) => row.brand_id !== 0);
  if (grouped.length) {
    await tx.execute(
      groupsDelta(
        accountId,
        sql`(select * from ${unnestRows(grouped, 'c', [
          ['window_id', 'smallint'],
          ['brand_id', 'int'],
          ['member_id', 'int'],
          ['member_change', 'int'],
          ['record_change', 'int'],
        ])})`,
      ),
    );
  }

  const upserted = rows.filter((row) => Number(row.old_count) + row.record_change > 0);
  if (upserted.length) {
    await tx.execute(sql`
      insert into ${t} (account_id, window_id, brand_id, member_id, points, activity_count)
      select k.account_id, d.window_id, d.brand_id, d.member_id, d.points, d.activity_count
      from ${rowsOfAccount(
        accountId,
        unnestRows(upserted, 'd', [
          ['window_id', 'smallint'],
          ['brand_id', 'int'],
          ['member_id', 'int'],
          ['points', 'int'],
          ['activity_count', 'int'],
        ]),
      )}
      on conflict (account_id, window_id, brand_id, member_id) do update
        set points = ${t}.points + excluded.points, activity_count = ${t}.activity_count + excluded.activity_count`);
  }

  const emptied = rows.filter((row) => row.kept && Number(row.old_count) + row.record_change <= 0);
  if (emptied.length) {
    await tx.execute(sql`
      delete from ${t} t using ${unnestRows(emptied, 'e', [
        ['window_id', 'smallint'],
        ['brand_id', 'int'],
        ['member_id', 'int'],
      ])}
      where t.account_id = ${accountId} and t.window_id = e.window_id and t.brand_id = e.brand_id and t.member_id = e.member_id`);
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
    select r.account_id, w.window_id, case when grouping(r.brand_id) = 1 then 0 else r.brand_id end, r.member_id,
      sum(r.points)::int, count(*)::int
    from ${activityRecords} r
    cross join lateral (select window_id from ${windowStarts(windows)} where r.completed_at >= s.start_at) w
    where r.account_id = ${accountId} and not r.one_time and r.completed_at < ${timestampParam(windows[0].until)}
    group by r.account_id, grouping sets ((w.window_id, r.member_id, r.brand_id), (w.window_id, r.member_id))
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
 * left to the worker. Holds the coverage lock shared; the caller's transaction keeps it to commit.
 */
export async function countRecordsIn(tx: Transaction, accountId: number, records: readonly CountedRecord[], sign: 1 | -1) {
  const repeatable = records.filter((record) => !record.oneTime);
  if (!repeatable.length) return;
  await holdCoverageLock(tx, accountId, 'shared');
  const windows = await coveredWindows(tx, accountId);
  const rows: SQL[] = [];
  const activityRows: SQL[] = [];
  for (const record of repeatable) {
    for (const w of windows) {
      if (record.completedAt < w.from || record.completedAt >= w.until) continue;
      rows.push(sql`(${w.windowId}::smallint, 0, ${record.memberId}::int, ${sign * record.points}::int, ${sign}::int)`);
      if (record.brandId === null) continue;
      rows.push(sql`(${w.windowId}::smallint, ${record.brandId}::int, ${record.memberId}::int, ${sign * record.points}::int, ${sign}::int)`);
      activityRows.push(sql`(${w.windowId}::smallint, ${record.brandId}::int, ${record.memberId}::int, ${record.activityId}::int, ${record.service ?? ''}::text, ${sign}::int)`);
    }
  }
  if (!rows.length) return;
  await applyTotalsDelta(tx, accountId, sql`select * from (values ${sql.join(rows, sql`, `)}) as v(window_id, brand_id, member_id, points, activity_count)`);
  if (activityRows.length) {
    await applyActivityDelta(tx, accountId, sql`select * from (values ${sql.join(activityRows, sql`, `)}) as v(window_id, brand_id, member_id, activity_id, service, activity_count)`);
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
  await holdCoverageLock(tx, accountId, 'shared');
  const t = scoreWindowTotals;
  await applyTotalsDelta(
    tx,
    accountId,
    sql`${takenOut(accountId, fromMemberId)}
      union all
      select window_id, brand_id, ${toMemberId}::int, points, activity_count from ${t} where account_id = ${accountId} and member_id = ${fromMemberId}`,
  );
  await applyActivityDelta(tx, accountId, sql`${memberActivityTotals(accountId, fromMemberId, -1)} union all ${memberActivityTotals(accountId, fromMemberId, 1, toMemberId)}`);
}

/** Takes a member out of every total, before the member is deleted. */
export async function forgetTotals(tx: Transaction, accountId: number, memberId: number) {
  await holdCoverageLock(tx, accountId, 'shared');
  await applyTotalsDelta(tx, accountId, takenOut(accountId, memberId));
  await applyActivityDelta(tx, accountId, memberActivityTotals(accountId, memberId, -1));
}

export interface TotalsScope {
  accountId: number;
  windowId: number;
  /** 0: every brand. */
  brandId: number;
  /** Conditions on `members`; the rows are then joined to it. */
  memberConditions: SQL | undefined;
}
