import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/client.js';
import { activityDefinitions, activityRecords, brands, memberActivityDaily, members, memberServices } from '../../db/schema/index.js';
import { within, type ResolvedWindow } from '../../filters/window.js';
import { formatDay } from '../../lib/time.js';
import { countRecordsIn } from '../scoring/score-windows.queries.js';

export type DefinitionRow = typeof activityDefinitions.$inferSelect;
export type NewDefinitionRow = typeof activityDefinitions.$inferInsert;
export type RecordRow = typeof activityRecords.$inferSelect;
export type NewRecordRow = typeof activityRecords.$inferInsert;

// ——— definitions ———

export function listDefinitions(db: Executor, accountId: number, brandId?: number) {
  return db
    .select()
    .from(activityDefinitions)
    .where(and(eq(activityDefinitions.accountId, accountId), isNull(activityDefinitions.deletedAt), brandId ? eq(activityDefinitions.brandId, brandId) : undefined))
    .orderBy(asc(activityDefinitions.id));
}

/** Definitions by id, deleted ones included (old records still name them). */
export function definitionsByIds(db: Executor, accountId: number, ids: readonly number[]) {
  return db.select().from(activityDefinitions).where(and(eq(activityDefinitions.accountId, accountId), inArray(activityDefinitions.id, [...ids])));
}

export async function findLiveDefinition(db: Executor, accountId: number, id: number) {
  const [row] = await db
    .select()
    .from(activityDefinitions)
    .where(and(eq(activityDefinitions.accountId, accountId), eq(activityDefinitions.id, id), isNull(activityDefinitions.deletedAt)));
  return row;
}

export async function insertDefinition(db: Executor, values: NewDefinitionRow) {
  const [row] = await db.insert(activityDefinitions).values(values).returning();
  return row;
}

export async function updateDefinition(db: Executor, accountId: number, id: number, values: Partial<NewDefinitionRow>) {
  const [row] = await db
    .update(activityDefinitions)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(activityDefinitions.accountId, accountId), eq(activityDefinitions.id, id), isNull(activityDefinitions.deletedAt)))
    .returning();
  return row;
}

export function brandSummariesByIds(db: Executor, accountId: number, ids: readonly number[]) {
  return db.select({ id: brands.id, name: brands.name, type: brands.type }).from(brands).where(and(eq(brands.accountId, accountId), inArray(brands.id, [...ids])));
}

/** Live brand ids of the account among `ids`. */
export async function existingBrandIds(db: Executor, accountId: number, ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: brands.id })
    .from(brands)
    .where(and(eq(brands.accountId, accountId), inArray(brands.id, [...ids]), isNull(brands.deletedAt)));
  return new Set(rows.map((row) => row.id));
}

// ——— members of records ———

/** Member ids as recorded against: a merged member's id resolves to its survivor. */
export async function resolveMemberIds(db: Executor, accountId: number, ids: readonly number[]): Promise<Map<number, number>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: members.id, mergedIntoId: members.mergedIntoId })
    .from(members)
    .where(and(eq(members.accountId, accountId), inArray(members.id, [...ids])));
  return new Map(rows.map((row) => [row.id, row.mergedIntoId ?? row.id]));
}

/** Members by the caller's partner reference (`partnerCode` + `partnerID` of their services). */
export async function membersByPartnerRefs(db: Executor, accountId: number, refs: readonly { code: string; id: string }[]) {
  if (!refs.length) return new Map<string, number>();
  const rows = await db
    .select({ code: memberServices.partnerCode, id: memberServices.partnerId, memberId: memberServices.memberId })
    .from(memberServices)
    .where(
      and(
        eq(memberServices.accountId, accountId),
        sql`(${memberServices.partnerCode}, ${memberServices.partnerId}) in (${sql.join(refs.map((ref) => sql`(${ref.code}, ${ref.id})`), sql`, `)})`,
      ),
    );
  return new Map(rows.map((row) => [`${row.code}\u0000${row.id}`, row.memberId]));
}

// ——— records and their rollups ———

export interface RollupDelta {
  accountId: number;
  memberId: number;
  day: string;
  activityId: number;
  brandId: number | null;
  service: string | null;
  oneTime: boolean;
  count: number;
  points: number;
}

/** Sums records into one delta per rollup key, in a fixed key order so concurrent writers never deadlock. */
export function rollupDeltas(records: readonly Pick<RecordRow, 'accountId' | 'memberId' | 'completedAt' | 'activityId' | 'brandId' | 'service' | 'oneTime' | 'points'>[], sign: 1 | -1) {
  const deltas = new Map<string, RollupDelta>();
  for (const record of records) {
    const day = formatDay(record.completedAt);
    const key = [record.memberId, day, record.activityId, record.brandId ?? '', record.service ?? ''].join('\u0000');
    const delta = deltas.get(key);
    if (delta) {
      delta.count += sign;
      delta.points += sign * record.points;
    } else {
      deltas.set(key, { ...record, day, count: sign, points: sign * record.points });
    }
  }
  return [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, delta]) => delta);
}

export async function applyRollupDeltas(tx: Transaction, deltas: RollupDelta[]) {
  if (!deltas.length) return;
  const daily = memberActivityDaily;
  await tx
    .insert(daily)
    .values(deltas.map(({ accountId, memberId, day, activityId, brandId, service, oneTime, count, points }) => ({ accountId, memberId, day, activityId, brandId, service, oneTime, count, points })))
    .onConflictDoUpdate({
      target: [daily.accountId, daily.memberId, daily.day, daily.activityId, daily.brandId, daily.service],
      set: { count: sql`${daily.count} + excluded.count`, points: sql`${daily.points} + excluded.points` },
    });
  if (deltas.some((delta) => delta.count < 0)) {
    const accountId = deltas[0].accountId;
    await tx.delete(daily).where(and(eq(daily.accountId, accountId), sql`${daily.count} <= 0`, inArray(daily.memberId, [...new Set(deltas.map((d) => d.memberId))])));
  }
}

/**
 * Stores records and adds them to the daily rollup in the caller's transaction. A record whose
 * marker (or one-time activity) is already stored is skipped by the unique indexes, so concurrent
 * repeats store it once; only the records actually inserted reach the rollup.
 */
export async function insertRecords(tx: Transaction, rows: NewRecordRow[]): Promise<RecordRow[]> {
  if (!rows.length) return [];
  const inserted = await tx.insert(activityRecords).values(rows).onConflictDoNothing().returning();
  await applyRollupDeltas(tx, rollupDeltas(inserted, 1));
  if (inserted.length) await countRecordsIn(tx, inserted[0].accountId, inserted, 1);
  return inserted;
}

/** The stored record a repeat refers to: by marker, or the member's one-time record. */
export async function findExistingRecord(db: Executor, row: NewRecordRow): Promise<RecordRow | undefined> {
  const [existing] = await db
    .select()
    .from(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, row.accountId),
        row.marker
          ? eq(activityRecords.marker, row.marker)
          : and(eq(activityRecords.memberId, row.memberId), eq(activityRecords.activityId, row.activityId), eq(activityRecords.oneTime, true)),
      ),
    )
    .limit(1);
  return existing;
}

/** Deletes records of a member (one, or all of an activity) and takes them out of the rollup. */
export async function deleteRecords(tx: Transaction, accountId: number, memberId: number, which: { recordId?: number; activityId?: number }) {
  const deleted = await tx
    .delete(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, accountId),
        eq(activityRecords.memberId, memberId),
        which.recordId ? eq(activityRecords.id, which.recordId) : undefined,
        which.activityId ? eq(activityRecords.activityId, which.activityId) : undefined,
      ),
    )
    .returning();
  await applyRollupDeltas(tx, rollupDeltas(deleted, -1));
  await countRecordsIn(tx, accountId, deleted, -1);
  return deleted;
}

/** How often, and when first and last, a member performed an activity in the window. */
export async function checkActivity(db: Executor, accountId: number, memberId: number, activityId: number, window: ResolvedWindow) {
  const [row] = await db
    .select({
      count: sql<number>`count(*)::int`,
      firstAt: sql<Date | null>`min(${activityRecords.completedAt})`.mapWith(activityRecords.completedAt),
      lastAt: sql<Date | null>`max(${activityRecords.completedAt})`.mapWith(activityRecords.completedAt),
    })
    .from(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, accountId),
        eq(activityRecords.memberId, memberId),
        eq(activityRecords.activityId, activityId),
        within(activityRecords.completedAt, window),
      ),
    );
  return row;
}

/** Per calendar day of the window, per activity or per network, from the rollup. */
export function dailyCounts(db: Executor, accountId: number, window: ResolvedWindow, by: 'activity' | 'service') {
  const daily = memberActivityDaily;
  const group = by === 'activity' ? daily.activityId : daily.service;
  return db
    .select({
      day: daily.day,
      group: group,
      activityName: by === 'activity' ? sql<string | null>`min(${activityDefinitions.name})` : sql<string | null>`null`,
      count: sql<number>`sum(${daily.count})::int`,
      distinctMembers: sql<number>`count(distinct ${daily.memberId})::int`,
      points: sql<number>`sum(${daily.points})::int`,
    })
    .from(daily)
    .leftJoin(activityDefinitions, and(eq(activityDefinitions.accountId, daily.accountId), eq(activityDefinitions.id, daily.activityId)))
    .where(and(eq(daily.accountId, accountId), sql`${daily.day} >= ${formatDay(window.start)} and ${daily.day} <= ${formatDay(window.end)}`))
    .groupBy(daily.day, group)
    .orderBy(asc(daily.day), sql`2`);
}
