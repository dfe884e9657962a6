import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/client.js';
import { members, scoreWindowGroups, scoreWindowTotals } from '../../db/schema/index.js';
import type { TotalsScope } from './score-windows.queries.js';
import { rowsOfAccount } from '../kept-data/account-rows.js';
import { holdTotalsLock } from './score-windows.locks.js';

/**
 * The member attributes a brand's active members are counted by in `score_window_groups`. Birth
 * dates rather than age ranges: a member's age range changes on a birthday, their birth date never,
 * so the ranges are made when a report is read.
 */
export type GroupDimension = 'country' | 'gender' | 'birth_date';

/** The profile fields the groups depend on; changing one moves the member between groups. */
export interface GroupedProfile {
  country: string | null;
  gender: string | null;
  birthDate: string | null;
}

/**
 * Each dimension's key for the member row `m` (an alias in the enclosing statement, with columns
 * country, gender and birth_date): rows of (dimension, key), '' when the profile has no value.
 * The one definition of a key; maintenance, moves and reads all use it.
 */
export function groupKeys(m: SQL): SQL {
  return sql`(values ('country', coalesce(upper(${m}.country), '')), ('gender', coalesce(${m}.gender::text, '')),
    ('birth_date', coalesce(${m}.birth_date::text, ''))) as k(dimension, key)`;
}

/** Per-brand totals only: the reports are a brand's. */
export const groupedBrand = (brandColumn: SQL) => sql`${brandColumn} <> 0`;

/**
 * Adds `rows` — a select of (window_id, brand_id, dimension, key, members, activity_count), one row
 * per group — to the account's groups. Rows in key order, so concurrent writers meet in one order.
 */
export function addToGroups(accountId: number, rows: SQL): SQL {
  const g = scoreWindowGroups;
  return sql`insert into ${g} (account_id, window_id, brand_id, dimension, key, members, activity_count)
    select k.account_id, r.* from ${rowsOfAccount(accountId, sql`(${rows}) as r(window_id, brand_id, dimension, key, members, activity_count)`)}
    order by r.window_id, r.brand_id, r.dimension, r.key
    on conflict (account_id, window_id, brand_id, dimension, key) do update
      set members = ${g}.members + excluded.members, activity_count = ${g}.activity_count + excluded.activity_count`;
}

/**
 * The statement part that carries a change of the totals into the groups: `changes` names a
 * relation of (window_id, brand_id, member_id, member_change, record_change), one row per changed
 * total, `member_change` +1 for a member who became active, -1 for one who no longer is.
 * Meant as a data-modifying CTE of the statement that changes the totals.
 */
export function groupsDelta(accountId: number, changes: SQL): SQL {
  return addToGroups(
    accountId,
    sql`select c.window_id, c.brand_id, k.dimension, k.key, sum(c.member_change)::int, sum(c.record_change)::int
    from ${changes} c
    -- A probe per changed member: joined, the planner read every member of the account.
    cross join lateral (select m.country, m.gender, m.birth_date from ${members} m where m.account_id = ${accountId} and m.id = c.member_id limit 1) m
    cross join lateral ${groupKeys(sql`m`)}
    where ${groupedBrand(sql`c.brand_id`)}
    group by c.window_id, c.brand_id, k.dimension, k.key`,
  );
}

/**
 * Working memory for a first coverage's aggregations, for the rest of the caller's transaction: an
 * account's records grouped by window and member at once. At medium scale the groups then fit in
 * memory; at large scale PostgreSQL sorts on disk either way, and more (3 GB) measured no faster
 * (bench/results/HISTORY.md, "Rankings and generation, fourth round").
 */
export async function roomToAggregate(db: Executor): Promise<void> {
  await db.execute(sql`set local work_mem = '256MB'`);
}

/** The groups of an account's first totals, counted from them (the account has no groups yet). */
export async function buildGroups(db: Executor, accountId: number): Promise<void> {
  const t = scoreWindowTotals;
  await db.execute(
    addToGroups(
      accountId,
      sql`select t.window_id, t.brand_id, k.dimension, k.key, count(*)::int, sum(t.activity_count)::int
      from ${t} t
      join ${members} m on m.account_id = ${accountId} and m.id = t.member_id
      cross join lateral ${groupKeys(sql`m`)}
      where t.account_id = ${accountId} and ${groupedBrand(sql`t.brand_id`)}
      group by 1, 2, 3, 4`,
    ),
  );
}

/**
 * Before a member's country, gender or birth date changes: moves the member's totals from the
 * groups of the current profile to those of `next` (fields left undefined keep their value).
 * Locks the member row first, then the totals, the order merges and deletions take them in.
 */
export async function regroupMember(tx: Transaction, accountId: number, memberId: number, next: Partial<GroupedProfile>): Promise<void> {
  const [current] = await tx
    .select({ country: members.country, gender: members.gender, birthDate: members.birthDate })
    .from(members)
    .where(and(eq(members.accountId, accountId), eq(members.id, memberId)))
    .for('no key update');
  if (!current) return;
  const after = { ...current, ...Object.fromEntries(Object.entries(next).filter(([, value]) => value !== undefined)) };
  if (after.country === current.country && after.gender === current.gender && after.birthDate === current.birthDate) return;
  await holdTotalsLock(tx, accountId);
  const profile = (row: GroupedProfile, sign: number) => sql`select ${sign}::int as sign, ${row.country}::text as country, ${row.gender}::text as gender, ${row.birthDate}::date as birth_date`;
  await tx.execute(
    addToGroups(
      accountId,
      sql`select t.window_id, t.brand_id, k.dimension, k.key, sum(p.sign)::int, sum(p.sign * t.activity_count)::int
      from ${scoreWindowTotals} t
      cross join (${profile(current, -1)} union all ${profile(after, 1)}) p
      cross join lateral ${groupKeys(sql`p`)}
      where t.account_id = ${accountId} and t.member_id = ${memberId} and ${groupedBrand(sql`t.brand_id`)}
      group by 1, 2, 3, 4`,
    ),
  );
}

/**
 * The kept groups of one dimension for a scope, corrected by `edges` (a relation of key, kept, live:
 * per edge member and group, their records in the totals and in the requested window): rows of
 * (key, members, activity_count) to be summed per key. A member enters a group's count when active
 * in the window and leaves it when active only in the totals.
 */
export function groupsCorrectedBy(scope: TotalsScope, dimension: string, edges: SQL): SQL {
  const g = scoreWindowGroups;
  return sql`select ${g.key} as key, ${g.members} as members, ${g.activityCount} as activity_count from ${g}
      where ${g.accountId} = ${scope.accountId} and ${g.windowId} = ${scope.windowId} and ${g.brandId} = ${scope.brandId}
        and ${g.dimension} = ${dimension}
      union all
      select key, (live > 0)::int - (kept > 0)::int, live - kept from ${edges}`;
}
