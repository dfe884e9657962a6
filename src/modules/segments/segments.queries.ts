import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { segments } from '../../db/schema/index.js';

export type SegmentRow = typeof segments.$inferSelect;
export type NewSegmentRow = typeof segments.$inferInsert;

const live = (accountId: number) => and(eq(segments.accountId, accountId), isNull(segments.deletedAt));

export async function findSegment(db: Executor, accountId: number, id: number): Promise<SegmentRow | undefined> {
  const [row] = await db
    .select()
    .from(segments)
    .where(and(live(accountId), eq(segments.id, id)));
  return row;
}

/** Live segments of the account, or of one brand, by id. */
export function listSegments(db: Executor, accountId: number, brandId?: number) {
  return db
    .select()
    .from(segments)
    .where(and(live(accountId), brandId ? eq(segments.brandId, brandId) : undefined))
    .orderBy(asc(segments.id));
}

export async function insertSegment(db: Executor, values: NewSegmentRow): Promise<SegmentRow> {
  const [row] = await db.insert(segments).values(values).returning();
  return row;
}

export async function updateSegment(db: Executor, accountId: number, id: number, values: Partial<NewSegmentRow>) {
  const [row] = await db
    .update(segments)
    .set({ ...values, updatedAt: new Date() })
    .where(and(live(accountId), eq(segments.id, id)))
    .returning();
  return row;
}

export async function softDeleteSegment(db: Executor, accountId: number, id: number): Promise<boolean> {
  const rows = await db
    .update(segments)
    .set({ deletedAt: new Date() })
    .where(and(live(accountId), eq(segments.id, id)))
    .returning({ id: segments.id });
  return rows.length > 0;
}

export function segmentsOfBrands(db: Executor, accountId: number, brandIds: readonly number[]) {
  return db
    .select()
    .from(segments)
    .where(and(live(accountId), inArray(segments.brandId, [...brandIds])))
    .orderBy(asc(segments.id));
}

export function findSegmentsByIds(db: Executor, accountId: number, ids: readonly number[]) {
  return db
    .select()
    .from(segments)
    .where(and(live(accountId), inArray(segments.id, [...ids])));
}
