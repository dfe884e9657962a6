import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import { typedArray } from '../../db/arrays.js';
import { statementRuns } from '../../db/value-rows.js';
import type { Executor } from '../../db/client.js';
import { memberMergedMeanwhileState } from '../../db/errors.js';
import { brandMemberCounts, brandMemberRechecks, brandMembers, memberActivityDaily, members, scoreWindowClaims, timelineDaysStale } from '../../db/schema/index.js';

/**
 * The write side of the kept data (docs/kept-data.md): what a statement that changes the daily
 * rollup or the opt-ins writes beside them, in the same transaction, and how a statement that
 * stores records holds its members and the windows' claim. Every statement names one account and
 * takes no advisory lock, so it runs where that account's rows are (one shard on Citus).
 */

type AccountId = number | Placeholder;

/** SQLSTATE of a batch refused because a repeatable record completes before the kept windows' claim. */
export const beforeClaimState = 'MQW01';

/**
 * The CTEs `held`, `claim` and `gate` of a statement that stores records, placed before its
 * insert, which must read `gate` (`from input cross join gate where gate.held and gate.admitted`)
 * so the locks are taken before anything is written:
 * - `held` holds the records' members (`ids`, an int[] expression of the statement's parameters:
 *   a lock that reads another CTE's rows is refused by Citus) `for key share` until commit,
 *   ascending as merges lock them. A merge of one of them waits for the records and moves them; a
 *   member merged since it was resolved turns `gate.held` false: nothing is stored and
 *   gateResult throws SQLSTATE MQM01 (memberMergedMeanwhile). A lock returns the row as the merge
 *   left it, so the check reads the merge even when the statement's snapshot is older.
 * - with `admitted`, `claim` holds the account's row of `score_window_claims` `for share` until
 *   commit, so the worker's next claim (an update of that row) waits for these records and the
 *   fold after it sees them; `gate.admitted` is true when every repeatable record (`repeatable`,
 *   a timestamptz[] expression of their completion times) completes at or after the claim, or
 *   there is none. Every account has its claim row from its creation (`-infinity` until the
 *   first claim: tenancy.queries.ts insertAccount); should one lack it, a batch with repeatable
 *   records is not admitted: it goes to a transaction that holds the coverage lock (insertRecords).
 * Without `admitted`, `gate.admitted` is true.
 */
export function recordGate(accountId: AccountId, ids: SQL, options: { admitted: false } | { admitted: true; repeatable: SQL }): SQL {
  const held = sql`held as (
      select m.merged_into_id from ${members} m where m.account_id = ${accountId}::int and m.id = any(${ids}) order by m.id for key share of m
    )`;
  if (!options.admitted) {
    return sql`${held},
    gate as (select (select count(*) filter (where merged_into_id is not null) = 0 from held) as held, true as admitted)`;
  }
  return sql`${held},
    claim as (select c.claimed_until from ${scoreWindowClaims} c where c.account_id = ${accountId}::int for share of c),
    gate as (
      select (select count(*) filter (where merged_into_id is not null) = 0 from held) as held,
        (select coalesce(bool_and(c.claimed_until <= all (${options.repeatable})), cardinality(${options.repeatable}) = 0) from claim c) as admitted
    )`;
}

/** The gate's columns, for the statement's answer: `from gate left join inserted on true`. */
export const gateColumns = sql.raw(`gate.held as "gateHeld", gate.admitted as "gateAdmitted"`);

/** An error carrying a SQLSTATE of the gateway's own, as the database's would (db/errors.ts reads `code`). */
function refusal(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * Throws when the gate refused the batch, as its columns on a statement's row say (they are the
 * same on every row): MQM01 when a member was merged meanwhile, MQW01 when a record lies before
 * the claim.
 */
export function passGate(row: Record<string, unknown> | undefined): void {
  if (row && row.gateHeld === false) throw refusal(memberMergedMeanwhileState, 'a member was merged into another meanwhile');
  if (row && row.gateAdmitted === false) throw refusal(beforeClaimState, "records before the kept score windows' claim must be counted in a transaction");
}

/**
 * The rows a gated statement inserted, with the gate's columns taken off; throws when the gate
 * refused the batch (nothing was stored): MQM01 when a member was merged meanwhile, MQW01 when a
 * record lies before the claim.
 */
export function gateResult<T extends Record<string, unknown>>(rows: readonly T[]): Omit<T, 'gateHeld' | 'gateAdmitted'>[] {
  passGate(rows[0]);
  return rows.filter((row) => row.id !== null && row.id !== undefined).map(({ gateHeld: _held, gateAdmitted: _admitted, ...row }) => row);
}

/**
 * The CTEs that keep the kept data after a statement's `inserted` CTE (records just stored):
 * - `stale_days` marks each day of a repeatable record on a brand stale (timeline_days_stale),
 *   kept day or not: the worker remakes the kept ones and drops the rest. Unconditional, so it needs
 *   no lock: the mark commits with the rollup change, and the worker takes marks before it reads
 *   the rollup (keepTimelineDaysStep).
 * - `pairs_added` adds each new (brand, member) pair to brand_members, `pairs_counted` a delta row
 *   per brand to brand_member_counts. The members are held (`held`) until commit, which is what
 *   keeps the worker from removing a pair meanwhile (settleBrandMembers).
 */
export function keptOfInserted(accountId: AccountId): SQL {
  return sql`
    stale_days as (
      insert into ${timelineDaysStale} (account_id, day)
      select distinct ${accountId}::int, (completed_at at time zone 'UTC')::date from inserted where not one_time and brand_id is not null
      order by 2
      on conflict do nothing
    ),
    pairs_added as (
      insert into ${brandMembers} (account_id, brand_id, member_id)
      select distinct ${accountId}::int, brand_id, member_id from inserted where brand_id is not null
      order by 2, 3
      on conflict do nothing
      returning brand_id
    ),
    pairs_counted as (
      insert into ${brandMemberCounts} (account_id, brand_id, members)
      select ${accountId}::int, brand_id, count(*)::int from pairs_added group by brand_id
    )`;
}

const intArray = (values: readonly number[]) => typedArray(values, 'int');

/**
 * A change to the rollup rows of `days`: marks each stale (see keptOfInserted). Call in the
 * changing transaction. Rows of values, as addBrandMembers writes: Citus routes an insert of
 * values to the account's shard, and pulls an insert from a select (of `unnest`) through the
 * coordinator first.
 */
export async function markDaysStale(db: Executor, accountId: number, days: readonly string[]): Promise<void> {
  const unique = [...new Set(days)].sort();
  if (!unique.length) return;
  for (const run of statementRuns(unique)) {
    await db
      .insert(timelineDaysStale)
      .values(run.map((day) => ({ accountId, day })))
      .onConflictDoNothing();
  }
}

export interface BrandPair {
  brandId: number;
  memberId: number;
}

/** Each pair once, in the key order every writer of pairs takes them in. */
const uniquePairs = (pairs: readonly BrandPair[]) => [...new Map(pairs.map((pair) => [`${pair.brandId}:${pair.memberId}`, pair])).values()].sort((a, b) => a.brandId - b.brandId || a.memberId - b.memberId);

const pairsOf = (pairs: readonly BrandPair[]) => {
  const unique = uniquePairs(pairs);
  return { brands: intArray(unique.map((pair) => pair.brandId)), members: intArray(unique.map((pair) => pair.memberId)), count: unique.length };
};

/**
 * Pairs that appeared (a rollup row or a current opt-in on the brand): added to brand_members with
 * their count rows. The caller holds each pair's member row (`for key share` or stronger) until it
 * commits, as every writer of a member's rows does. Two inserts of rows of values, in key order:
 * on Citus each is routed to the account's shard, whereas a statement with the pairs' insert in a
 * CTE is planned through the coordinator.
 */
export async function addBrandMembers(db: Executor, accountId: number, pairs: readonly BrandPair[]): Promise<void> {
  const unique = uniquePairs(pairs);
  if (!unique.length) return;
  const perBrand = new Map<number, number>();
  for (const run of statementRuns(unique)) {
    const added = await db
      .insert(brandMembers)
      .values(run.map(({ brandId, memberId }) => ({ accountId, brandId, memberId })))
      .onConflictDoNothing()
      .returning({ brandId: brandMembers.brandId });
    for (const { brandId } of added) perBrand.set(brandId, (perBrand.get(brandId) ?? 0) + 1);
  }
  await addBrandMemberCounts(
    db,
    accountId,
    [...perBrand].map(([brandId, members]) => ({ brandId, members })),
  );
}

/**
 * Count rows: a brand's change of members, one row per brand, which readers sum and the worker
 * sums into one. Rows of values, which Citus routes to the account's shard.
 */
export async function addBrandMemberCounts(db: Executor, accountId: number, counts: readonly { brandId: number; members: number }[]): Promise<void> {
  if (!counts.length) return;
  await db.insert(brandMemberCounts).values(counts.map(({ brandId, members }) => ({ accountId, brandId, members })));
}

/** Pairs that may have ended (a rollup row or an opt-in gone): queued for the worker to recheck. */
export async function recheckBrandMembers(db: Executor, accountId: number, pairs: readonly BrandPair[]): Promise<void> {
  const { brands, members: memberIds, count } = pairsOf(pairs);
  if (!count) return;
  await db.execute(sql`insert into ${brandMemberRechecks} (account_id, brand_id, member_id)
    select ${accountId}::int, b, m from unnest(${brands}, ${memberIds}) p(b, m) order by 2, 3
    on conflict do nothing`);
}

/** Every pair of a member about to be deleted, queued for a recheck (the member's rows leave by cascade). */
export async function recheckMemberPairs(db: Executor, accountId: number, memberIds: readonly number[]): Promise<void> {
  if (!memberIds.length) return;
  await db.execute(sql`insert into ${brandMemberRechecks} (account_id, brand_id, member_id)
    select account_id, brand_id, member_id from ${brandMembers} where account_id = ${accountId}::int and member_id = any(${intArray(memberIds)})
    order by 2, 3
    on conflict do nothing`);
}

/** The days of a member's rollup rows that count in the timeline (repeatable, on a brand). */
export async function markMemberDaysStale(db: Executor, accountId: number, memberIds: readonly number[]): Promise<void> {
  if (!memberIds.length) return;
  await db.execute(sql`insert into ${timelineDaysStale} (account_id, day)
    select distinct account_id, day from ${memberActivityDaily}
    where account_id = ${accountId}::int and member_id = any(${intArray(memberIds)}) and not one_time and brand_id is not null
    order by 2
    on conflict do nothing`);
}
