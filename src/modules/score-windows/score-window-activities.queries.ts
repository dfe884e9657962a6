import { sql, type SQL } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/client.js';
import { unnestRows } from '../../db/arrays.js';
import { rowsOfAccount } from '../kept-data/account-rows.js';
import { executeRows } from '../../db/rows.js';
import { preparedRowsOf } from '../../db/statements.js';
import { timestampParam } from '../../db/timestamps.js';
import { activityDefinitions, scoreWindowActivityTotals } from '../../db/schema/index.js';
import { addToGroups, groupsCorrectedBy, roomToAggregate } from './score-window-groups.queries.js';
import { holdTotalsLock } from './score-windows.locks.js';
import type { TotalsScope } from './score-windows.queries.js';

/**
 * The activity and timeline reports' groups: a brand's members active in a standard window by the
 * activity of their records, its type, or the records' network. Unlike a profile attribute, a member
 * is in several groups of one dimension at once, so the groups are made from each member's records
 * per activity and network (`score_window_activity_totals`), and a change to those tells which
 * groups a member enters or leaves.
 */
export type ActivityDimension = 'activity' | 'type' | 'service';

/**
 * Each dimension's key for the row `r` (with activity_id and service, '' for none) of the activity
 * whose definition is `d` (with type): rows of (dimension, key). The one definition of these keys.
 */
function activityKeys(r: SQL, d: SQL): SQL {
  return sql`(values ('activity', ${r}.activity_id::text), ('type', ${d}.type), ('service', ${r}.service)) as k(dimension, key)`;
}

const definitionOf = (accountId: number, r: SQL) => sql`join ${activityDefinitions} d on d.account_id = ${accountId} and d.id = ${r}.activity_id`;

/**
 * Group changes of members whose activity rows go from `kept` to `kept + change`: `rows` is a
 * relation of (window_id, brand_id, member_id, activity_id, service, kept, change), any number of
 * rows per key. A member enters a group when its records there go from none to some, and leaves it
 * the other way round.
 */
function groupChanges(accountId: number, rows: SQL, dimension?: ActivityDimension): SQL {
  return sql`select window_id, brand_id, dimension, key, sum(((kept + change) > 0)::int - (kept > 0)::int)::int, sum(change)::int
    from (
      select r.window_id, r.brand_id, r.member_id, k.dimension, k.key, sum(r.kept) as kept, sum(r.change) as change
      from ${rows} r ${definitionOf(accountId, sql`r`)}
      cross join lateral ${activityKeys(sql`r`, sql`d`)}
      ${dimension ? sql`where k.dimension = ${dimension}` : sql``}
      group by 1, 2, 3, 4, 5
    ) per_member
    group by 1, 2, 3, 4`;
}

/** A changed activity row: the change summed per key, beside the key's record count before it. */
interface ChangedActivityRow {
  window_id: number;
  brand_id: number;
  member_id: number;
  activity_id: number;
  service: string;
  activity_count: number;
  old_count: number;
  kept: boolean;
}

/** An activity row's key columns, as unnestRows takes them. */
const activityKeyColumns = [
  ['window_id', 'smallint'],
  ['brand_id', 'int'],
  ['member_id', 'int'],
  ['activity_id', 'int'],
  ['service', 'text'],
] as const;

/**
 * Adds `delta` — rows of (window_id, brand_id, member_id, activity_id, service, activity_count),
 * keys may repeat, brand 0 rows ignored — to the activity totals and their groups, and removes rows
 * left with no records. The caller holds the totals lock (see score-windows.locks.ts).
 *
 * As applyTotalsDelta, and for the same reasons (each write routed to the account's shard on
 * Citus, bounded rows as array parameters): the change is read once beside each row's count
 * before it; the groups are counted from the changed members' rows as they are before the change;
 * then the rows left with records are upserted and those left with none deleted.
 */
export async function applyActivityDelta(tx: Transaction, accountId: number, delta: SQL): Promise<void> {
  const a = scoreWindowActivityTotals;
  const changed = await executeRows<ChangedActivityRow>(
    tx,
    sql`select d.window_id, d.brand_id, d.member_id, d.activity_id, d.service, d.activity_count,
        coalesce(k.activity_count, 0)::int as old_count, k.activity_count is not null as kept
      from (select window_id, brand_id, member_id, activity_id, service, sum(activity_count)::int as activity_count
        from (${delta}) d where brand_id <> 0
        group by 1, 2, 3, 4, 5 having sum(activity_count) <> 0) d
      left join lateral (select k.activity_count from ${a} k where k.account_id = ${accountId} and k.window_id = d.window_id
        and k.brand_id = d.brand_id and k.member_id = d.member_id and k.activity_id = d.activity_id and k.service = d.service limit 1) k on true
      order by 1, 2, 3, 4, 5`,
  );
  if (!changed.length) return;
  const change = sql`(select * from ${unnestRows(changed, 'd', [...activityKeyColumns, ['activity_count', 'int']])})`;
  // Every row of the members changed, as they are before this change, beside the change: probed
  // per member (fenced with offset 0): joined, the planner hashed the whole table.
  await tx.execute(
    addToGroups(
      accountId,
      groupChanges(
        accountId,
        sql`(select m.window_id, m.brand_id, m.member_id, a.activity_id, a.service, a.activity_count as kept, 0 as change
          from (select distinct window_id, brand_id, member_id from ${change} d) m
          cross join lateral (select a.activity_id, a.service, a.activity_count from ${a} a where a.account_id = ${accountId}
            and a.window_id = m.window_id and a.brand_id = m.brand_id and a.member_id = m.member_id offset 0) a
          union all select window_id, brand_id, member_id, activity_id, service, 0, activity_count from ${change} d)`,
      ),
    ),
  );
  const upserted = changed.filter((row) => Number(row.old_count) + Number(row.activity_count) > 0);
  if (upserted.length) {
    await tx.execute(sql`
      insert into ${a} (account_id, window_id, brand_id, member_id, activity_id, service, activity_count)
      select k.account_id, d.window_id, d.brand_id, d.member_id, d.activity_id, d.service, d.activity_count
      from ${rowsOfAccount(accountId, unnestRows(upserted, 'd', [...activityKeyColumns, ['activity_count', 'int']]))}
      on conflict (account_id, window_id, brand_id, member_id, activity_id, service) do update
        set activity_count = ${a}.activity_count + excluded.activity_count`);
  }
  const emptied = changed.filter((row) => row.kept && Number(row.old_count) + Number(row.activity_count) <= 0);
  if (emptied.length) {
    await tx.execute(sql`
      delete from ${a} a using ${unnestRows(emptied, 'e', activityKeyColumns)}
      where a.account_id = ${accountId} and a.window_id = e.window_id and a.brand_id = e.brand_id and a.member_id = e.member_id
        and a.activity_id = e.activity_id and a.service = e.service`);
  }
}

/** The activity totals' change of records `r` (with member_id, brand_id, activity_id, service), each counted `sign` times per window `s`. */
export const activityDeltaOf = (r: SQL, windowId: SQL, sign: SQL) =>
  sql`${windowId} as window_id, ${r}.brand_id, ${r}.member_id, ${r}.activity_id, coalesce(${r}.service, '') as service, ${sign} as activity_count`;

/** A member's activity totals, taken out (`sign` -1) or given to `toMemberId` (`sign` 1). */
export function memberActivityTotals(accountId: number, memberId: number, sign: 1 | -1, toMemberId = memberId): SQL {
  const a = scoreWindowActivityTotals;
  return sql`select window_id, brand_id, ${toMemberId}::int as member_id, activity_id, service, ${sign}::int * activity_count as activity_count
    from ${a} where account_id = ${accountId} and member_id = ${memberId}`;
}

/**
 * First coverage of an account: the activity totals of the windows `starts` (rows of window_id,
 * start_at) ending at `until`, from one pass over the records; their groups follow, a dimension at a
 * time (buildActivityGroups). The account has none yet, and the caller holds the windows and totals
 * locks on its behalf (see buildWindows: this may run in a session of its own).
 */
export async function buildActivityTotals(db: Executor, accountId: number, starts: SQL, until: Date): Promise<void> {
  const a = scoreWindowActivityTotals;
  await roomToAggregate(db);
  await db.execute(sql`
    insert into ${a} (account_id, window_id, brand_id, member_id, activity_id, service, activity_count)
    select r.account_id, w.window_id, r.brand_id, r.member_id, r.activity_id, coalesce(r.service, ''), count(*)::int
    from activity_records r
    cross join lateral (select window_id from ${starts} where r.completed_at >= s.start_at) w
    where r.account_id = ${accountId} and not r.one_time and r.completed_at < ${timestampParam(until)} and r.brand_id is not null
    group by 1, 2, 3, 4, 5, 6
    order by 2, 3, 4, 5, 6`);
  // The groups are counted member by member in the table's key order, which its index gives
  // without sorting; without statistics on the rows just written the planner cannot know that,
  // and sorted tens of millions of rows on disk instead (an account's first coverage at scale).
  await db.execute(sql`analyze ${a}`);
}

export const activityDimensions: readonly ActivityDimension[] = ['activity', 'type', 'service'];

/** The groups of one dimension, counted from an account's first activity totals (it has none of them yet). */
export async function buildActivityGroups(db: Executor, accountId: number, dimension: ActivityDimension): Promise<void> {
  const a = scoreWindowActivityTotals;
  await roomToAggregate(db);
  await db.execute(
    addToGroups(
      accountId,
      groupChanges(accountId, sql`(select window_id, brand_id, member_id, activity_id, service, 0 as kept, activity_count as change from ${a} where account_id = ${accountId})`, dimension),
    ),
  );
}

/**
 * Before an activity's type changes to `type`: moves the members with records of it between the
 * type groups (a member leaves the old type's group only when no other activity of that type kept
 * them in it). Reads the account's activity totals for the activity's rows: an occasional edit.
 */
export async function retypeActivity(tx: Transaction, accountId: number, activityId: number, type: string): Promise<void> {
  await holdTotalsLock(tx, accountId);
  const a = scoreWindowActivityTotals;
  await tx.execute(
    addToGroups(
      accountId,
      sql`select window_id, brand_id, 'type'::text, type, sum(sign * (records > 0)::int)::int, sum(sign * records)::int
      from (
        select m.window_id, m.brand_id, m.member_id, p.sign, case when p.sign = 1 and a.activity_id = ${activityId} then ${type} else d.type end as type,
          sum(a.activity_count) as records
        from (select distinct window_id, brand_id, member_id from ${a} where account_id = ${accountId} and activity_id = ${activityId}) m
        join ${a} a on a.account_id = ${accountId} and a.window_id = m.window_id and a.brand_id = m.brand_id and a.member_id = m.member_id
        ${definitionOf(accountId, sql`a`)}
        cross join (values (-1), (1)) as p(sign)
        group by 1, 2, 3, 4, 5
      ) per_member
      group by 1, 2, 4
      having sum(sign * (records > 0)::int) <> 0 or sum(sign * records) <> 0`,
    ),
  );
}

// ——— reading ———

export interface ActivityGroupCount {
  /** The activity id, type or network; null for records without a network. */
  key: string | null;
  members: number;
  activityCount: number;
}

/**
 * The edge members' activity rows in the requested window: `corrections` (rows of member_id,
 * activity_id, service, change: the correction spans' records, see scoring/kept-totals.queries.ts)
 * beside the same members' kept rows, as (member_id, activity_id, service, kept, change). The kept
 * rows are a lateral subquery fenced with `offset 0`: the planner cannot know how few edge members
 * there are, and unfenced it hashes every row of the brand's window instead of probing per member.
 */
function edgeRows(scope: TotalsScope, corrections: SQL): SQL {
  const a = scoreWindowActivityTotals;
  return sql`(
    select c.member_id, c.activity_id, c.service, 0 as kept, c.change from ${corrections} c
    union all
    select a.member_id, a.activity_id, a.service, a.activity_count, 0
    from (select distinct member_id from ${corrections} e) e
    cross join lateral (select member_id, activity_id, service, activity_count from ${a}
      where account_id = ${scope.accountId} and window_id = ${scope.windowId} and brand_id = ${scope.brandId} and member_id = e.member_id
      offset 0) a
  )`;
}

/**
 * A brand's active members and their records in the requested window, per group of a dimension:
 * the kept groups corrected by the edge members, in one statement (one snapshot), most records
 * first. `corrections` is the correction spans' records per member, activity and network.
 */
export async function activityGroupCounts(db: Executor, scope: TotalsScope, corrections: SQL, dimension: ActivityDimension): Promise<ActivityGroupCount[]> {
  if (!scope.brandId || scope.memberConditions) throw new Error('activity groups are kept per brand, for every member');
  // Prepared, like the rankings' edge members: one text per shape of the corrections.
  const rows = await preparedRowsOf<{ key: string | null; members: number; activity_count: number }>(
    db,
    sql`with corrections as (${corrections}),
    edges as (
      select k.key, sum(r.kept) as kept, sum(r.kept + r.change) as live
      from ${edgeRows(scope, sql`corrections`)} r ${definitionOf(scope.accountId, sql`r`)}
      cross join lateral ${activityKeys(sql`r`, sql`d`)}
      where k.dimension = ${dimension}
      group by r.member_id, k.key
    ),
    counted as (${groupsCorrectedBy(scope, dimension, sql`edges`)})
    select nullif(key, '') as key, sum(members)::int as members, sum(activity_count)::int as activity_count
    from counted group by key having sum(members) > 0
    -- The rollup's report order: most records first, then by key as text.
    order by 3 desc, 1`,
  );
  return rows.map((row) => ({ key: row.key, members: Number(row.members), activityCount: Number(row.activity_count) }));
}

/**
 * Distinct members of the brand active in the requested window in any of the groups `keys` of a
 * dimension (null: records without a network). Reads the brand's activity totals in those groups:
 * for reports that show only some of the groups.
 */
export async function activeMembersInGroups(db: Executor, scope: TotalsScope, corrections: SQL, dimension: ActivityDimension, keys: readonly (string | null)[]): Promise<number> {
  const a = scoreWindowActivityTotals;
  const wanted = sql`k.dimension = ${dimension} and k.key in ${keys.map((key) => key ?? '')}`;
  const [row] = await executeRows<{ members: number }>(
    db,
    sql`with corrections as (${corrections}),
    edges as (
      select r.member_id, sum(r.kept + r.change) filter (where ${wanted}) as live
      from ${edgeRows(scope, sql`corrections`)} r ${definitionOf(scope.accountId, sql`r`)}
      cross join lateral ${activityKeys(sql`r`, sql`d`)}
      group by r.member_id
    )
    select (
      (select count(distinct a.member_id) from ${a} a ${definitionOf(scope.accountId, sql`a`)}
        cross join lateral ${activityKeys(sql`a`, sql`d`)}
        where a.account_id = ${scope.accountId} and a.window_id = ${scope.windowId} and a.brand_id = ${scope.brandId} and ${wanted}
          and a.member_id not in (select member_id from edges))
      + (select count(*) from edges where live > 0)
    )::int as members`,
  );
  return Number(row.members);
}
