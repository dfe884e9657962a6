import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';
import { executeRows } from '../../src/db/rows.js';

/**
 * What an account keeps against brute force over its raw records, as counts of the rows that
 * differ: for tests, and for the benchmark after ingestion (bench/kept-exactness.ts), which runs
 * outside vitest. Each comparison is one statement, so it reads one snapshot.
 */

/**
 * The daily rollup against the raw records grouped by its key (member, UTC day, activity, brand,
 * network): how many rows differ, either way, and how many rollup rows there are. Of the account,
 * or of `memberIds` only.
 */
export async function rollupAgainstRecords(db: Database, accountId: number, memberIds?: readonly number[]): Promise<{ differences: number; rows: number }> {
  const ofMembers = memberIds
    ? sql`and member_id in (${sql.join(
        memberIds.map((id) => sql`${id}::int`),
        sql`, `,
      )})`
    : sql``;
  const [row] = await executeRows<{ differences: number; rows: number }>(
    db,
    sql`
    with records as (
      select member_id, (completed_at at time zone 'UTC')::date as day, activity_id, brand_id, service, count(*)::int as count, sum(points)::int as points
      from activity_records where account_id = ${accountId} ${ofMembers} group by 1, 2, 3, 4, 5
    ), rollup as (
      select member_id, day, activity_id, brand_id, service, count, points from member_activity_daily where account_id = ${accountId} ${ofMembers}
    )
    select ((select count(*) from (select * from records except all select * from rollup) a)
      + (select count(*) from (select * from rollup except all select * from records) b))::int as differences,
      (select count(*) from rollup)::int as rows`,
  );
  return { differences: Number(row.differences), rows: Number(row.rows) };
}

/** The kept windows' totals of an account, as rows (window_id, brand_id, member_id, points, activity_count). */
export const keptTotals = (accountId: number) => sql`select window_id, brand_id, member_id, points, activity_count from score_window_totals where account_id = ${accountId}`;

/** The same rows summed by brute force from the raw records of each window's covered span (brand 0: every brand). */
export const bruteForceTotals = (accountId: number) => sql`
  select w.window_id, b.brand_id, r.member_id, sum(r.points)::int as points, count(*)::int as activity_count
  from score_windows w
  join activity_records r on r.account_id = w.account_id and not r.one_time
    and r.completed_at >= w.covered_from and r.completed_at < w.covered_until
  cross join lateral (values (0), (r.brand_id)) as b(brand_id)
  where w.account_id = ${accountId} and b.brand_id is not null
  group by 1, 2, 3`;

/**
 * The kept windows' totals against the sums of the raw records of each window's covered span, as
 * keptTotalsExact compares them, counted in one statement (one snapshot, so a worker may go on
 * folding meanwhile): how many rows differ, either way, and how many totals there are.
 */
export async function totalsAgainstRecords(db: Database, accountId: number): Promise<{ differences: number; rows: number }> {
  const [row] = await executeRows<{ differences: number; rows: number }>(
    db,
    sql`
    with kept as (${keptTotals(accountId)}), brute as (${bruteForceTotals(accountId)})
    select ((select count(*) from (select * from kept except all select * from brute) a)
      + (select count(*) from (select * from brute except all select * from kept) b))::int as differences,
      (select count(*) from kept)::int as rows`,
  );
  return { differences: Number(row.differences), rows: Number(row.rows) };
}
