import { and, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { preparedRows } from '../../db/statements.js';
import { executeRows } from '../../db/rows.js';
import { databaseClock } from '../../db/timestamps.js';
import { brands, optins, segments } from '../../db/schema/index.js';
import { addBrandMembers, recheckBrandMembers } from '../kept-data/kept-writes.js';
import type { OptInRow } from '../members/member-optins.queries.js';

/** One list a member can be on. */
export type OptInList = { kind: 'global' } | { kind: 'brand'; brandId: number } | { kind: 'segment'; segmentId: number };

/** An opt-in with the names of its list, as every read answers it. */
const withNames = {
  id: optins.id,
  memberId: optins.memberId,
  kind: optins.kind,
  brandId: optins.brandId,
  segmentId: optins.segmentId,
  optedInAt: optins.optedInAt,
  optedOutAt: optins.optedOutAt,
  brandName: brands.name,
  segmentName: segments.name,
  segmentLabel: segments.label,
};

function onList(accountId: number, memberId: number, list: OptInList): SQL {
  return and(
    eq(optins.accountId, accountId),
    eq(optins.memberId, memberId),
    eq(optins.kind, list.kind),
    list.kind === 'brand' ? eq(optins.brandId, list.brandId) : isNull(optins.brandId),
    list.kind === 'segment' ? eq(optins.segmentId, list.segmentId) : isNull(optins.segmentId),
  )!;
}

function selectWithNames(db: Executor) {
  return db
    .select(withNames)
    .from(optins)
    .leftJoin(brands, and(eq(brands.id, optins.brandId), eq(brands.accountId, optins.accountId)))
    .leftJoin(segments, and(eq(segments.id, optins.segmentId), eq(segments.accountId, optins.accountId)));
}

/** The member's latest opt-in row for the list (current or not). */
export async function latestOptIn(db: Executor, accountId: number, memberId: number, list: OptInList): Promise<OptInRow | undefined> {
  const [row] = await selectWithNames(db)
    .where(onList(accountId, memberId, list))
    .orderBy(desc(optins.id))
    .limit(1);
  return row;
}

/**
 * Holds, until the transaction ends, the member and the lock of its place on one list, and answers
 * the member the opt-ins belong to: the member itself, or the survivor it was merged into
 * (`members_hold_survivor`, migration 0027, holds that member `for key share`, so a merge of it
 * waits for this transaction and moves what it writes); undefined when the member is gone. Opt-ins
 * and opt-outs of the list take turns, so each sees the one before it and their times follow one
 * another. One statement: the member, then the list's lock named by it (hashed as
 * holdTransactionLock hashes names).
 */
export async function holdMemberOnList(db: Executor, accountId: number, memberId: number, list: OptInList): Promise<number | undefined> {
  const [prefix, suffix] = [`optin:${accountId}:`, `:${list.kind}:${list.kind === 'brand' ? list.brandId : 0}:${list.kind === 'segment' ? list.segmentId : 0}`];
  // The subquery keeps its volatile function: it is called once, its answer named twice.
  const [row] = await executeRows<{ member: number | null }>(
    db,
    sql`select held.member, pg_advisory_xact_lock(hashtextextended(${prefix} || held.member || ${suffix}, 0))
      from (select members_hold_survivor(${accountId}::int, ${memberId}::int) as member) held`,
  );
  return row?.member ?? undefined;
}

/**
 * A new current opt-in, unless one is current already (the partial unique index decides). Its time
 * is the database's clock when it is written (not the transaction's start, which may precede the
 * lock), and never before the member's last opt-out of the list: read first, then given to the
 * insert (databaseClock says why).
 */
export async function insertOptInIfAbsent(db: Executor, accountId: number, memberId: number, list: OptInList): Promise<void> {
  const at = await databaseClock(db, sql`select max(${optins.optedOutAt}) from ${optins} where ${onList(accountId, memberId, list)}`);
  const added = await db
    .insert(optins)
    .values({
      accountId,
      memberId,
      kind: list.kind,
      brandId: list.kind === 'brand' ? list.brandId : null,
      segmentId: list.kind === 'segment' ? list.segmentId : null,
      optedInAt: sql`${at}::timestamptz`,
    })
    .onConflictDoNothing()
    .returning({ id: optins.id });
  // A brand's new member (kept-data/kept-writes.ts); the caller holds the member (holdSurvivor).
  if (added.length && list.kind === 'brand') await addBrandMembers(db, accountId, [{ brandId: list.brandId, memberId }]);
}

/** Stamps the current opt-in as ended, by the database's clock and never before it began; false when there was none. */
export async function endOptIn(db: Executor, accountId: number, memberId: number, list: OptInList): Promise<boolean> {
  const at = await databaseClock(db);
  const rows = await db
    .update(optins)
    .set({ optedOutAt: sql`greatest(${at}::timestamptz, ${optins.optedInAt})` })
    .where(and(onList(accountId, memberId, list), isNull(optins.optedOutAt)))
    .returning({ id: optins.id });
  if (rows.length && list.kind === 'brand') await recheckBrandMembers(db, accountId, [{ brandId: list.brandId, memberId }]);
  return rows.length > 0;
}

/**
 * Current opt-ins of many members, to lists that still exist, oldest first: the loader of every
 * page that lists opt-ins, so a hand-written prepared statement (db/statements.ts).
 */
const currentOptInsText = `
  select o.id, o.member_id as "memberId", o.kind, o.brand_id as "brandId", o.segment_id as "segmentId",
    o.opted_in_at as "optedInAt", o.opted_out_at as "optedOutAt",
    b.name as "brandName", s.name as "segmentName", s.label as "segmentLabel"
  from optins o
  left join brands b on b.id = o.brand_id and b.account_id = o.account_id
  left join segments s on s.id = o.segment_id and s.account_id = o.account_id
  where o.account_id = $1 and o.member_id = any($2::int[]) and o.opted_out_at is null
    and (o.brand_id is null or b.deleted_at is null) and (o.segment_id is null or s.deleted_at is null)
  order by o.id`;

export async function currentOptInsOf(db: Executor, accountId: number, memberIds: readonly number[]): Promise<OptInRow[]> {
  const rows = await preparedRows<OptInRow>(db, currentOptInsText, [accountId, memberIds]);
  // Current opt-ins have no opt-out time; the opt-in time comes as text from the driver.
  for (const row of rows) row.optedInAt = new Date(row.optedInAt);
  return rows;
}
