import { and, asc, desc, eq, gt, inArray, isNull, lt, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { brands } from '../../db/schema/index.js';

export type BrandRow = typeof brands.$inferSelect;
export type NewBrandRow = typeof brands.$inferInsert;

const live = (accountId: number) => and(eq(brands.accountId, accountId), isNull(brands.deletedAt));

export async function findBrand(db: Executor, accountId: number, id: number): Promise<BrandRow | undefined> {
  const [row] = await db
    .select()
    .from(brands)
    .where(and(live(accountId), eq(brands.id, id)));
  return row;
}

export function findBrandsByIds(db: Executor, accountId: number, ids: readonly number[]) {
  return db
    .select()
    .from(brands)
    .where(and(live(accountId), inArray(brands.id, [...ids])));
}

/**
 * Brands by id, deleted ones too: a record, an activity or a listing of a brand deleted since
 * still names it (the brand is soft-deleted, so its row stays with its last name and type).
 */
export function findBrandsWithDeletedByIds(db: Executor, accountId: number, ids: readonly number[]) {
  return db
    .select()
    .from(brands)
    .where(and(eq(brands.accountId, accountId), inArray(brands.id, [...ids])));
}

/**
 * Live brands, of one type (any case) when given, by id: those after `afterId` when given, then
 * `offset` skipped. `total` counts the whole list of the type, whatever the page.
 */
/** A page of live brands by id: after `afterId`, or (backward) the last ones before `beforeId` (or the end), read by id descending. */
export async function listBrands(db: Executor, accountId: number, type: string | undefined, page: { afterId?: number; beforeId?: number; backward?: boolean; offset: number; limit: number }) {
  const where = and(live(accountId), type ? sql`lower(${brands.type}) = ${type.toLowerCase()}` : undefined);
  const [rows, [{ total }]] = await Promise.all([
    db
      .select()
      .from(brands)
      .where(and(where, page.afterId !== undefined ? gt(brands.id, page.afterId) : undefined, page.beforeId !== undefined ? lt(brands.id, page.beforeId) : undefined))
      .orderBy(page.backward ? desc(brands.id) : asc(brands.id))
      .offset(page.offset)
      .limit(page.limit),
    db
      .select({ total: sql<number>`count(*)::int` })
      .from(brands)
      .where(where),
  ]);
  return { rows, total };
}

/** Slugs of live brands that are `base` or `base-<n>`, except the brand's own. */
export async function slugsLike(db: Executor, accountId: number, base: string, exceptId?: number): Promise<string[]> {
  const rows = await db
    .select({ slug: brands.slug })
    .from(brands)
    .where(and(live(accountId), sql`(${brands.slug} = ${base} or ${brands.slug} ~ ${`^${escapeRegExp(base)}-[0-9]+$`})`, exceptId ? ne(brands.id, exceptId) : undefined));
  return rows.map((row) => row.slug);
}

/** Inserts unless another live brand took the slug meanwhile (then undefined: pick another). */
export async function insertBrandIfSlugFree(db: Executor, values: NewBrandRow): Promise<BrandRow | undefined> {
  const [row] = await db.insert(brands).values(values).onConflictDoNothing().returning();
  return row;
}

export async function updateBrand(db: Executor, accountId: number, id: number, values: Partial<NewBrandRow>): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({ ...values, updatedAt: new Date() })
    .where(and(live(accountId), eq(brands.id, id)))
    .returning();
  return row;
}

export async function softDeleteBrand(db: Executor, accountId: number, id: number): Promise<boolean> {
  const rows = await db
    .update(brands)
    .set({ deletedAt: new Date() })
    .where(and(live(accountId), eq(brands.id, id)))
    .returning({ id: brands.id });
  return rows.length > 0;
}

/** True for a unique violation, as both drivers report it (drizzle wraps the driver's error). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code ?? (error as { cause?: { code?: unknown } })?.cause?.code;
  return code === '23505';
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
