import DataLoader from 'dataloader';
import type { Context } from '../../core/context.js';
import { accountOf } from '../../core/auth.js';
import { indexByKey, lazily } from '../../lib/batching.js';
import { findBrandsByIds, findBrandsWithDeletedByIds } from './brands.queries.js';

export type BrandLoaders = ReturnType<typeof createBrandLoaders>;

/** The brands module's per-request loaders (context.loaders.brands). */
export function createBrandLoaders(context: Context) {
  return lazily({
    /** Live brands by id, for opt-ins, segments and crossover items of a page: one query for all. */
    byId: () =>
      new DataLoader(async (ids: readonly number[]) => {
        const rows = await findBrandsByIds(context.database.db, accountOf(context), ids);
        return indexByKey(ids, rows, (row) => row.id);
      }),
    /**
     * Brands by id, deleted ones too, for what keeps naming a brand after it is deleted: records,
     * activities, a member's top brands, a listing's brand. One query per page.
     */
    withDeleted: () =>
      new DataLoader(async (ids: readonly number[]) => {
        const rows = await findBrandsWithDeletedByIds(context.database.db, accountOf(context), ids);
        return indexByKey(ids, rows, (row) => row.id);
      }),
  });
}
