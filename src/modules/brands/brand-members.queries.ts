import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { typedArray } from '../../db/arrays.js';
import type { Database, Executor } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { preparedRowsOf } from '../../db/statements.js';
import { keptDataWorkName, nameTransaction } from '../../db/work-names.js';
import { brandMemberCounts, brandMemberRechecks, brandMembers, memberActivityDaily, members, optins } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import { addBrandMemberCounts } from '../kept-data/kept-writes.js';

/**
 * A brand's members: opted into it now, or active on it at any time (a daily rollup row on it).
 * `brand_members` keeps them (see src/db/schema/catalogue.ts and docs/kept-data.md): the writers of
 * the rollup and the opt-ins add new pairs as they appear and queue pairs that may have ended for a
 * recheck. So the kept set holds every member of the brand, and possibly some queued
 * pairs that no longer hold; readers leave those out, and `settleBrandMembers` removes them.
 */

/**
 * Whether the pair in `alias` still holds: a rollup row on the brand, or a current opt-in to it.
 * The account is the statement's value, not the pair's column: on a Citus cluster a statement that
 * also reads a set-returning function (a filter's activity list) is refused when a subquery reaches
 * a distributed table only through another table's column.
 */
const stillMember = (alias: string, accountId: number): SQL => {
  const pair = sql.raw(alias);
  return sql`(exists (select 1 from ${memberActivityDaily} d where d.account_id = ${accountId} and d.member_id = ${pair}.member_id and d.brand_id = ${pair}.brand_id)
    or exists (select 1 from ${optins} o where o.account_id = ${accountId} and o.brand_id = ${pair}.brand_id and o.member_id = ${pair}.member_id and o.opted_out_at is null))`;
};

/**
 * How many members the brand has: its count rows, less the queued pairs that no longer hold. One
 * statement, so the counts and the queue are read in one snapshot; its cost is the number of count
 * rows and queued pairs, whatever the brand's size.
 */
export async function brandMemberTotal(db: Executor, accountId: number, brandId: number): Promise<number> {
  const [row] = await preparedRowsOf<{ total: number }>(
    db,
    sql`select
      (select coalesce(sum(members), 0) from ${brandMemberCounts} where account_id = ${accountId} and brand_id = ${brandId})::int
      - (select count(*) from ${brandMemberRechecks} r
          join ${brandMembers} bm on bm.account_id = r.account_id and bm.brand_id = r.brand_id and bm.member_id = r.member_id
          where r.account_id = ${accountId} and r.brand_id = ${brandId} and not ${stillMember('r', accountId)})::int as total`,
  );
  return Number(row.total);
}

/** How many of the brand's members meet the filter's member conditions (over the kept pairs). */
export async function brandMemberCountWhere(db: Executor, filter: CompiledFilter, brandId: number): Promise<number> {
  const { accountId } = filter;
  const queued = sql`exists (select 1 from ${brandMemberRechecks} r
    where r.account_id = ${accountId} and r.brand_id = ${brandMembers.brandId} and r.member_id = ${brandMembers.memberId})`;
  const [row] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(brandMembers)
    .innerJoin(members, and(eq(members.accountId, accountId), eq(members.id, brandMembers.memberId)))
    .where(and(eq(brandMembers.accountId, accountId), eq(brandMembers.brandId, brandId), isNull(members.mergedIntoId), filter.member(), sql`(not ${queued} or ${stillMember('brand_members', accountId)})`));
  return row.total;
}

/**
 * Settles an account's queued pairs (removing those that no longer hold, with their count rows)
 * and sums each brand's count rows into one. Run by the kept-data worker. Every transaction that
 * adds pairs holds their member's row (`for key share` or stronger) until it commits
 * (kept-data/kept-writes.ts), so the removal first locks the queued pairs' members `for update
 * skip locked`: a member some writer holds is left for the next pass (readers correct for its
 * queued pairs meanwhile) rather than making recordings wait, and a writer that comes after waits
 * for this transaction, then adds its pair again. The removal then reads, in a snapshot taken
 * after the locks, whether each pair still holds. A pair whose member is gone has no writer.
 */
export async function settleBrandMembers(db: Database, accountId: number): Promise<void> {
  await db.transaction(async (tx) => {
    await nameTransaction(tx, keptDataWorkName);
    const free = await executeRows<{ id: number }>(
      tx,
      sql`
      select m.id from ${members} m
      where m.account_id = ${accountId} and m.id in (select r.member_id from ${brandMemberRechecks} r where r.account_id = ${accountId})
      order by m.id for update of m skip locked`,
    );
    const ids = typedArray(
      free.map((row) => Number(row.id)),
      'int',
    );
    const removed = await executeRows<CountRow>(
      tx,
      sql`
      with due as (
        delete from ${brandMemberRechecks} r
        where r.account_id = ${accountId}
          and (r.member_id = any(${ids})
            or not exists (select 1 from ${members} m where m.account_id = ${accountId} and m.id = r.member_id))
        returning brand_id, member_id),
      gone as (
        delete from ${brandMembers} bm using due
        where bm.account_id = ${accountId} and bm.brand_id = due.brand_id and bm.member_id = due.member_id and not ${stillMember('bm', accountId)}
        returning bm.brand_id)
      select brand_id, -count(*)::int as members from gone group by brand_id`,
    );
    await addCountRows(tx, accountId, removed);
    // Count rows removed by a concurrent summing are skipped by this one, so each is summed once.
    const summed = await executeRows<CountRow>(
      tx,
      sql`
      with several as (select brand_id from ${brandMemberCounts} where account_id = ${accountId} group by brand_id having count(*) > 1),
      gone as (
        delete from ${brandMemberCounts} c using several
        where c.account_id = ${accountId} and c.brand_id = several.brand_id
        returning c.brand_id, c.members)
      select brand_id, sum(members)::int as members from gone group by brand_id`,
    );
    await addCountRows(tx, accountId, summed);
  });
}

/** A brand's change of members, one row per brand, as the statement that removed what it counts returns it. */
interface CountRow {
  brand_id: number;
  members: number;
}

/**
 * Adds the count rows a removal returned, by a statement of its own: an `INSERT` that reads a
 * data-modifying CTE is pulled through the coordinator on Citus (docs/scaling.md).
 */
const addCountRows = (db: Executor, accountId: number, rows: readonly CountRow[]) =>
  addBrandMemberCounts(
    db,
    accountId,
    rows.map((row) => ({ brandId: Number(row.brand_id), members: Number(row.members) })),
  );

/** Accounts with queued pairs or a brand of several count rows: what `settleBrandMembers` has to do. */
export async function accountsToSettle(db: Executor): Promise<number[]> {
  const rows = await executeRows<{ account_id: number }>(
    db,
    sql`
    select account_id from ${brandMemberRechecks}
    union
    select account_id from ${brandMemberCounts} group by account_id, brand_id having count(*) > 1
    order by 1`,
  );
  return rows.map((row) => Number(row.account_id));
}

/**
 * Makes an account's brand members from its rollup and opt-ins, for data loaded with triggers off
 * (the benchmark's generator). The account must have none yet.
 */
export async function buildBrandMembers(db: Executor, accountId: number): Promise<number> {
  await db.execute(sql`
    insert into ${brandMembers} (account_id, brand_id, member_id)
    select account_id, brand_id, member_id from ${memberActivityDaily} where account_id = ${accountId} and brand_id is not null
    union
    select account_id, brand_id, member_id from ${optins} where account_id = ${accountId} and brand_id is not null and opted_out_at is null`);
  const counted = await executeRows<{ members: number }>(
    db,
    sql`insert into ${brandMemberCounts} (account_id, brand_id, members)
      select account_id, brand_id, count(*) from ${brandMembers} where account_id = ${accountId} group by account_id, brand_id
      returning members`,
  );
  return counted.reduce((sum, row) => sum + Number(row.members), 0);
}

/**
 * Takes deleted members out of the kept brand members at once, in the deleting transaction (an
 * erasure): their pairs and queued rechecks go, and each brand's count loses them by a delta row,
 * as the worker's settling would have done later. Nothing holds for a member who no longer exists,
 * so no pair is checked; the members' rows are locked (deleted) by the transaction, so no
 * recording adds a pair of theirs meanwhile.
 */
export async function forgetMemberPairs(db: Executor, accountId: number, memberIds: readonly number[]): Promise<void> {
  if (!memberIds.length) return;
  const ids = typedArray(memberIds, 'int');
  await db.execute(sql`delete from ${brandMemberRechecks} where account_id = ${accountId} and member_id = any(${ids})`);
  const removed = await executeRows<CountRow>(
    db,
    sql`
    with gone as (
      delete from ${brandMembers} where account_id = ${accountId} and member_id = any(${ids})
      returning brand_id)
    select brand_id, -count(*)::int as members from gone group by brand_id`,
  );
  await addCountRows(db, accountId, removed);
}
