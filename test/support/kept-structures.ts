import { sql, type SQL } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { executeRows } from '../../src/db/rows.js';
import { bruteForceTotals, keptTotals } from './kept-differences.js';

/**
 * The kept structures of an account's standard windows against brute-force queries over its raw
 * records: totals, member counts, activity totals and groups over each covered span, and the
 * timeline's kept days. Each answers how many rows it checked.
 */
interface Row {
  window_id: number;
  brand_id: number;
  member_id: number;
  points: number;
  activity_count: number;
}
const sorted = (rows: Row[]) =>
  rows
    .map((row) => ({ w: Number(row.window_id), b: Number(row.brand_id), m: Number(row.member_id), p: Number(row.points), c: Number(row.activity_count) }))
    .sort((x, y) => x.w - y.w || x.b - y.b || x.m - y.m);

/** Totals and member counts as kept, against the sums of the raw records over each covered span. */
export async function keptTotalsExact(db: Database, accountId: number): Promise<number> {
  const kept = await executeRows<Row>(db, keptTotals(accountId));
  const brute = await executeRows<Row>(db, bruteForceTotals(accountId));
  expect(sorted(kept)).toEqual(sorted(brute));
  const counts = await executeRows<{ window_id: number; brand_id: number; members: number; rows: number }>(
    db,
    sql`
    select c.window_id, c.brand_id, c.members,
      (select count(*) from score_window_totals t where t.account_id = c.account_id and t.window_id = c.window_id and t.brand_id = c.brand_id)::int as rows
    from score_window_counts c where c.account_id = ${accountId}`,
  );
  for (const row of counts) expect(Number(row.members), JSON.stringify(row)).toBe(Number(row.rows));
  await expectActivityTotalsExact(db, accountId);
  await expectGroupsExact(db, accountId);
  return kept.length;
}

/** Per-brand activity totals as kept, against the raw records of each covered span per activity and network. */
async function expectActivityTotalsExact(db: Database, accountId: number) {
  const rows = (query: SQL) => executeRows<{ key: string }>(db, query).then((found) => found.map((row) => row.key).sort());
  const kept = await rows(sql`select concat_ws('/', window_id, brand_id, member_id, activity_id, service, activity_count) as key
    from score_window_activity_totals where account_id = ${accountId}`);
  const brute = await rows(sql`
    select concat_ws('/', w.window_id, r.brand_id, r.member_id, r.activity_id, coalesce(r.service, ''), count(*)) as key
    from score_windows w
    join activity_records r on r.account_id = w.account_id and not r.one_time and r.brand_id is not null
      and r.completed_at >= w.covered_from and r.completed_at < w.covered_until
    where w.account_id = ${accountId}
    group by w.window_id, r.brand_id, r.member_id, r.activity_id, r.service`);
  expect(kept).toEqual(brute);
}

/**
 * The per-brand groups as kept: the profile groups against the (checked) totals grouped by each
 * member's profile now, the activity, type and service groups against the raw records.
 */
export async function expectGroupsExact(db: Database, accountId: number) {
  type Group = { window_id: number; brand_id: number; dimension: string; key: string; members: number; activity_count: number };
  const normal = (rows: Group[]) =>
    rows
      .filter((row) => Number(row.members) !== 0 || Number(row.activity_count) !== 0)
      .map((row) => `${row.window_id}/${row.brand_id}/${row.dimension}/${row.key}: ${row.members} members, ${row.activity_count} records`)
      .sort();
  const kept = await executeRows<Group>(
    db,
    sql`select window_id, brand_id, dimension, key, members, activity_count
    from score_window_groups where account_id = ${accountId}`,
  );
  const brute = await executeRows<Group>(
    db,
    sql`
    select t.window_id, t.brand_id, d.dimension, d.key, count(*)::int as members, sum(t.activity_count)::int as activity_count
    from score_window_totals t join members m on m.account_id = t.account_id and m.id = t.member_id
    cross join lateral (values ('country', coalesce(upper(m.country), '')), ('gender', coalesce(m.gender, '')),
      ('birth_date', coalesce(to_char(m.birth_date, 'YYYY-MM-DD'), ''))) as d(dimension, key)
    where t.account_id = ${accountId} and t.brand_id <> 0
    group by 1, 2, 3, 4
    union all
    select w.window_id, r.brand_id, k.dimension, k.key, count(distinct r.member_id)::int, count(*)::int
    from score_windows w
    join activity_records r on r.account_id = w.account_id and not r.one_time and r.brand_id is not null
      and r.completed_at >= w.covered_from and r.completed_at < w.covered_until
    join activity_definitions d on d.account_id = r.account_id and d.id = r.activity_id
    cross join lateral (values ('activity', r.activity_id::text), ('type', d.type), ('service', coalesce(r.service, ''))) as k(dimension, key)
    where w.account_id = ${accountId}
    group by 1, 2, 3, 4`,
  );
  expect(normal(kept)).toEqual(normal(brute));
}

/** Kept days that are not stale, against the raw records of each day. */
export async function keptDaysExact(db: Database, accountId: number): Promise<number> {
  const rows = (query: SQL) => executeRows<{ key: string }>(db, query).then((found) => found.map((row) => row.key).sort());
  const kept = await rows(sql`select concat_ws('/', brand_id, day, service, records, members) as key from timeline_days d
    where account_id = ${accountId} and not exists (select 1 from timeline_days_stale s where s.account_id = d.account_id and s.day = d.day)`);
  const brute = await rows(sql`
    select concat_ws('/', r.brand_id, (r.completed_at at time zone 'UTC')::date, coalesce(r.service, ''), count(*), count(distinct r.member_id)) as key
    from activity_records r
    where r.account_id = ${accountId} and not r.one_time and r.brand_id is not null
      and (r.completed_at at time zone 'UTC')::date in (select day from timeline_days_kept k where k.account_id = r.account_id
        and not exists (select 1 from timeline_days_stale s where s.account_id = k.account_id and s.day = k.day))
    group by r.brand_id, (r.completed_at at time zone 'UTC')::date, r.service`);
  expect(kept).toEqual(brute);
  return kept.length;
}
