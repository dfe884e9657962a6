import { sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { preparedRowsOf } from '../../db/statements.js';
import { timestampParam } from '../../db/timestamps.js';
import { keptDataWorkName, nameTransaction } from '../../db/work-names.js';
import { activityRecords, memberActivityDaily, timelineDays, timelineDaysKept, timelineDaysStale } from '../../db/schema/index.js';
import type { ResolvedWindow } from '../../filters/window.js';
import { bucketStarts, formatDay, shiftByPeriod, truncate } from '../../lib/time.js';
import { lastPartialDay, splitWindow } from './counted-rows.queries.js';
import { rowsOfAccount } from '../kept-data/account-rows.js';
import { holdTimelineDaysLock } from '../score-windows/score-windows.locks.js';
import { standardWindows } from '../score-windows/score-windows.js';

/**
 * The timeline's kept days (see `timeline_days` in src/db/schema/scoring.ts): each ended UTC day of
 * the longest standard window, per brand and network, made once from the daily rollup and again
 * whenever the rollup of that day changes afterwards.
 */

/** The days kept at `until`: from the day the longest standard window starts to the last ended day. */
export function keptDays(until: Date): { from: string; until: string } {
  const span = keptSpan(until);
  return { from: formatDay(span.start), until: formatDay(span.end) };
}

/** The midnights that bound the days kept at `until`: the first kept day's and today's. */
function keptSpan(until: Date): { start: Date; end: Date } {
  const longest = standardWindows[standardWindows.length - 1].period;
  return { start: truncate(shiftByPeriod(until, -longest.amount, longest.unit), 'day'), end: truncate(until, 'day') };
}

const dayList = (days: readonly string[]) =>
  sql`(${sql.join(
    days.map((day) => sql`${day}::date`),
    sql`, `,
  )})`;

/**
 * One step of an account's kept days toward `until`: the stale days and up to `limit` days not kept
 * yet are made from the rollup, days older than the longest window dropped. Every rollup change
 * marks its days stale in its own transaction (kept-data/kept-writes.ts), and the marks are taken
 * (deleted) before the rollup is read, in an earlier snapshot: a change this step does not see
 * left its mark, and the next step makes its day again. Marks of days not kept are dropped.
 * Answers whether every day is kept.
 */
export async function keepTimelineDaysStep(db: Database, accountId: number, until: Date, limit = 14): Promise<boolean> {
  const range = keptDays(until);
  return db.transaction(async (tx) => {
    await nameTransaction(tx, keptDataWorkName);
    await holdTimelineDaysLock(tx, accountId, 'exclusive');
    const stale = await takeStaleMarks(tx, accountId);
    const missing = await executeRows<{ day: string }>(
      tx,
      sql`
      select d::date::text as day from generate_series(${range.from}::date, ${range.until}::date - 1, interval '1 day') d
      where not exists (select 1 from ${timelineDaysKept} k where k.account_id = ${accountId} and k.day = d::date)
      order by 1 limit ${limit + 1}`,
    );
    const made = [...missing.slice(0, limit), ...stale].map((row) => row.day).filter((day) => day >= range.from && day < range.until);
    await makeTimelineDays(tx, accountId, made);
    await tx.execute(sql`delete from ${timelineDays} where account_id = ${accountId} and day < ${range.from}::date`);
    await tx.execute(sql`delete from ${timelineDaysKept} where account_id = ${accountId} and day < ${range.from}::date`);
    return missing.length <= limit;
  });
}

/** Deletes an account's stale marks and answers their days: before the days are made, in an earlier statement. */
export async function takeStaleMarks(db: Executor, accountId: number): Promise<{ day: string }[]> {
  // Days since 2000-01-01 rather than `day::text`: Citus refuses a RETURNING that is not immutable
  // (a date's text depends on DateStyle).
  const rows = await executeRows<{ n: number }>(db, sql`delete from ${timelineDaysStale} where account_id = ${accountId} returning day - date '2000-01-01' as n`);
  return rows.map((row) => ({ day: formatDay(new Date(Date.UTC(2000, 0, 1) + Number(row.n) * 86_400_000)) }));
}

/**
 * Makes (again) the kept days `days` of an account from the daily rollup. The caller took the
 * account's stale marks in an earlier statement (takeStaleMarks): a rollup change this statement's
 * snapshot misses left its mark, and the day is made again.
 */
export async function makeTimelineDays(db: Executor, accountId: number, days: readonly string[]): Promise<void> {
  if (!days.length) return;
  const list = dayList(days);
  const daily = memberActivityDaily;
  await db.execute(sql`delete from ${timelineDays} where account_id = ${accountId} and day in ${list}`);
  await db.execute(sql`
    insert into ${timelineDays} (account_id, brand_id, day, service, records, members)
    select ${daily.accountId}, ${daily.brandId}, ${daily.day}, coalesce(${daily.service}, ''), sum(${daily.count})::int, count(distinct ${daily.memberId})::int
    from ${daily}
    where ${daily.accountId} = ${accountId} and ${daily.day} in ${list} and not ${daily.oneTime} and ${daily.brandId} is not null
    group by 1, 2, 3, 4
    order by 2, 3, 4`);
  await db.execute(
    sql`insert into ${timelineDaysKept} (account_id, day) select k.account_id, d from ${rowsOfAccount(
      accountId,
      sql`(values ${sql.join(
        days.map((day) => sql`(${day}::date)`),
        sql`, `,
      )}) as v(d)`,
    )} on conflict do nothing`,
  );
}

/** Every day an account keeps at `until`, oldest first. */
export function keptDayList(until: Date): string[] {
  const span = keptSpan(until);
  return bucketStarts(span.start, span.end, 'day').map(formatDay);
}

/** Keeps an account's timeline days up to `until`, in steps. */
export async function keepTimelineDays(db: Database, accountId: number, until: Date): Promise<void> {
  while (!(await keepTimelineDaysStep(db, accountId, until)));
}

export interface ServiceDay {
  service: string | null;
  day: string;
  count: number;
  distinctMembers: number;
}

/**
 * A brand's repeatable records and distinct members per network and UTC day of the window, in one
 * statement: kept days that are not stale from `timeline_days`, other whole days from the daily
 * rollup, and the partial days at the window's ends from the raw records.
 */
export async function serviceDays(db: Executor, accountId: number, brandId: number, window: ResolvedWindow): Promise<ServiceDay[]> {
  const split = splitWindow(window);
  const { wholeDays, rawSpans } = split;
  const tail = lastPartialDay(accountId, window, split);
  const parts: SQL[] = [];
  let kept: SQL | undefined;
  if (wholeDays) {
    kept = sql`select k.day from ${timelineDaysKept} k where k.account_id = ${accountId}
      and k.day >= ${wholeDays.from}::date and k.day < ${wholeDays.until}::date
      and not exists (select 1 from ${timelineDaysStale} s where s.account_id = ${accountId} and s.day = k.day)`;
    parts.push(sql`select service, day, records, members from ${timelineDays}
      where account_id = ${accountId} and brand_id = ${brandId} and day in (select day from kept)`);
    // Day by day (index range scans), so the kept days' rollup rows are never read.
    parts.push(sql`select x.service, m.day, x.records, x.members
      from (select d::date as day from generate_series(${wholeDays.from}::date, ${wholeDays.until}::date - 1, interval '1 day') d
        where d::date not in (select day from kept)) m
      cross join lateral (select coalesce(service, '') as service, sum(count) as records, count(distinct member_id) as members
        from ${memberActivityDaily} where account_id = ${accountId} and brand_id = ${brandId} and not one_time and day = m.day
        group by 1) x`);
  }
  const r = activityRecords;
  const fromRecords = (span: { start: Date; end: Date }, condition?: SQL) =>
    sql`select coalesce(${r.service}, ''), (${r.completedAt} at time zone 'UTC')::date, count(*), count(distinct ${r.memberId})
      from ${r} where ${r.accountId} = ${accountId} and ${r.brandId} = ${brandId} and not ${r.oneTime}
        and ${r.completedAt} >= ${timestampParam(span.start)} and ${r.completedAt} < ${timestampParam(span.end)}
        ${condition ? sql`and ${condition}` : sql``}
      group by 1, 2`;
  for (const span of rawSpans) {
    if (span !== tail?.span) {
      parts.push(fromRecords(span));
      continue;
    }
    // The last partial day from its rollup rows when that is exact (see lastPartialDay), from its records otherwise.
    parts.push(sql`select coalesce(service, ''), day, sum(count), count(distinct member_id)
      from ${memberActivityDaily} where account_id = ${accountId} and brand_id = ${brandId} and not one_time and day = ${tail.day}::date and ${tail.quiet}
      group by 1, 2`);
    parts.push(fromRecords(span, sql`not ${tail.quiet}`));
  }
  // Prepared: the text depends only on the window's shape (which parts it has), a handful of texts.
  const rows = await preparedRowsOf<{ service: string; day: string; records: number; members: number }>(
    db,
    sql`${kept ? sql`with kept as (${kept}) ` : sql``}select nullif(service, '') as service, day::text as day, records::int as records, members::int as members
    from (${sql.join(parts, sql` union all `)}) as p(service, day, records, members)`,
  );
  return rows.map((row) => ({ service: row.service, day: row.day, count: Number(row.records), distinctMembers: Number(row.members) }));
}
