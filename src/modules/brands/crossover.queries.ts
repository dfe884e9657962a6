import { and, asc, count, desc, eq, getTableColumns, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { brands, members } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import type { ResolvedWindow } from '../../filters/window.js';
import { countedRows } from '../scoring/counted-rows.queries.js';

export interface CrossoverQuery {
  /** The brand whose members are the base; without one, the base is every active member. */
  brandId: number | undefined;
  brandType: string | undefined;
  offset: number;
  limit: number;
}

/**
 * Crossover, read from the same counted activity as scores (rollup days plus raw edges): the base
 * is the members active on the brand (or on any brand) in the window under the filter; each other
 * live brand is listed with how many base members were active on it too, most shared first.
 */
export async function crossoverOf(db: Executor, filter: CompiledFilter, window: ResolvedWindow, query: CrossoverQuery) {
  const onBrand = countedRows(db, filter, window);
  const base = db
    .selectDistinct({ memberId: onBrand.memberId })
    .from(onBrand)
    .innerJoin(members, and(eq(members.id, onBrand.memberId), eq(members.accountId, filter.accountId)))
    .where(and(query.brandId ? eq(onBrand.brandId, query.brandId) : isNotNull(onBrand.brandId), filter.member()))
    .as('base');

  const counted = countedRows(db, filter, window);
  const perBrand = db
    .select({ brandId: counted.brandId, active: sql<number>`count(distinct ${counted.memberId})::int`.as('active') })
    .from(counted)
    .innerJoin(base, eq(base.memberId, counted.memberId))
    .where(query.brandId ? ne(counted.brandId, query.brandId) : isNotNull(counted.brandId))
    .groupBy(counted.brandId)
    .as('per_brand');
  const listed = and(
    eq(brands.id, perBrand.brandId),
    eq(brands.accountId, filter.accountId),
    isNull(brands.deletedAt),
    query.brandType ? sql`lower(${brands.type}) = ${query.brandType.toLowerCase()}` : undefined,
  );

  const [rows, [{ total }], [{ baseMembers }]] = await Promise.all([
    db
      .select({ brand: getTableColumns(brands), active: perBrand.active })
      .from(perBrand)
      .innerJoin(brands, listed)
      .orderBy(desc(perBrand.active), asc(brands.id))
      .offset(query.offset)
      .limit(query.limit),
    db.select({ total: count() }).from(perBrand).innerJoin(brands, listed),
    db.select({ baseMembers: count() }).from(base),
  ]);
  return { rows, total, baseMembers };
}
