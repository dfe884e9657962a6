import { and, eq, isNull, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Transaction } from '../../db/client.js';
import { addBrandMembers, recheckBrandMembers } from '../kept-data/kept-writes.js';
import { loginEvents, memberDomains, members, memberServices, optins, segmentMembers } from '../../db/schema/index.js';
import { databaseClock } from '../../db/timestamps.js';
import type { MemberRow } from './members.queries.js';

/**
 * Every table holding rows that belong to a member. A merge moves their rows to the survivor, so
 * nothing is lost; a module that adds such a table adds it here. Tables whose unique keys involve
 * the member (records and rollups, current opt-ins, segment membership) are merged on their own.
 */
const memberOwnedTables: { table: PgTable; accountId: PgColumn; memberId: PgColumn }[] = [
  { table: memberServices, accountId: memberServices.accountId, memberId: memberServices.memberId },
  { table: memberDomains, accountId: memberDomains.accountId, memberId: memberDomains.memberId },
  { table: loginEvents, accountId: loginEvents.accountId, memberId: loginEvents.memberId },
];

/** Gives the rows of every member-owned table from one member to another. */
export async function moveOwnedRows(tx: Transaction, accountId: number, fromId: number, toId: number): Promise<void> {
  for (const owned of memberOwnedTables) {
    await tx
      .update(owned.table)
      // Every owned table names its column `memberId`; the registry's type cannot say so.
      .set({ memberId: toId })
      .where(and(eq(owned.accountId, accountId), eq(owned.memberId, fromId)));
  }
}

/**
 * Closes `memberId`'s current opt-ins to lists `keeperId` is currently in (their history stays),
 * then gives all its opt-ins to `keeperId`.
 */
export async function moveOptIns(tx: Transaction, accountId: number, memberId: number, keeperId: number): Promise<void> {
  // The database's clock, and never before the opt-in began (the optins check rule); read first,
  // as a volatile function may not be in an UPDATE of a distributed table (databaseClock).
  const at = await databaseClock(tx);
  await tx
    .update(optins)
    .set({ optedOutAt: sql`greatest(${at}::timestamptz, ${optins.optedInAt})` })
    .where(
      and(
        eq(optins.accountId, accountId),
        eq(optins.memberId, memberId),
        isNull(optins.optedOutAt),
        sql`exists (select 1 from ${optins} kept where kept.account_id = ${accountId} and kept.member_id = ${keeperId}
          and kept.kind = ${optins.kind} and coalesce(kept.brand_id, 0) = coalesce(${optins.brandId}, 0)
          and coalesce(kept.segment_id, 0) = coalesce(${optins.segmentId}, 0) and kept.opted_out_at is null)`,
      ),
    );
  const moved = await tx
    .update(optins)
    .set({ memberId: keeperId })
    .where(and(eq(optins.accountId, accountId), eq(optins.memberId, memberId)))
    .returning({ brandId: optins.brandId, optedOutAt: optins.optedOutAt });
  // The brand members follow (kept-data/kept-writes.ts): the keeper's current brand opt-ins, and
  // every brand the merged member was on, to recheck.
  const onBrand = moved.filter((row) => row.brandId !== null);
  await addBrandMembers(
    tx,
    accountId,
    onBrand.filter((row) => row.optedOutAt === null).map((row) => ({ brandId: row.brandId!, memberId: keeperId })),
  );
  await recheckBrandMembers(
    tx,
    accountId,
    onBrand.map((row) => ({ brandId: row.brandId!, memberId })),
  );
}

/** Puts `keeperId` in every computed segment `memberId` was in, and takes `memberId` out of them. */
export async function moveSegmentMemberships(tx: Transaction, accountId: number, memberId: number, keeperId: number): Promise<void> {
  const memberships = await tx
    .delete(segmentMembers)
    .where(and(eq(segmentMembers.accountId, accountId), eq(segmentMembers.memberId, memberId)))
    .returning();
  if (memberships.length) {
    await tx
      .insert(segmentMembers)
      .values(memberships.map((row) => ({ ...row, memberId: keeperId })))
      .onConflictDoNothing();
  }
}

/** The survivor's row after a merge: the profile fields it takes over and its merged custom fields. */
export async function updateSurvivor(tx: Transaction, accountId: number, id: number, values: Partial<MemberRow>): Promise<void> {
  await tx
    .update(members)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(members.accountId, accountId), eq(members.id, id)));
}

/**
 * Makes `mergedId` a pointer to `survivorId`, and members merged earlier into `mergedId` point at
 * the survivor directly.
 */
export async function pointAtSurvivor(tx: Transaction, accountId: number, mergedId: number, survivorId: number): Promise<void> {
  await tx
    .update(members)
    .set({ mergedIntoId: survivorId })
    .where(and(eq(members.accountId, accountId), eq(members.mergedIntoId, mergedId)));
  await tx
    .update(members)
    .set({ mergedIntoId: survivorId, updatedAt: new Date() })
    .where(and(eq(members.accountId, accountId), eq(members.id, mergedId)));
}
