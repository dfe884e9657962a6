import DataLoader from 'dataloader';
import type { Context } from '../../core/context.js';
import { accountOf } from '../../core/auth.js';
import { groupByKey, indexByKey, lazily } from '../../lib/batching.js';
import { findSegmentsByIds, segmentsOfBrands } from './segments.queries.js';

export type SegmentLoaders = ReturnType<typeof createSegmentLoaders>;

/** The segments' per-request loaders (context.loaders.segments). */
export function createSegmentLoaders(context: Context) {
  return lazily({
    /** Live segments of a page of brands in one query. */
    byBrand: () =>
      new DataLoader(async (brandIds: readonly number[]) => {
        const rows = await segmentsOfBrands(context.database.db, accountOf(context), brandIds);
        return groupByKey(brandIds, rows, (row) => row.brandId!);
      }),
    /** Live segments by id, for the opt-ins of a page of members. */
    byId: () =>
      new DataLoader(async (ids: readonly number[]) => {
        const rows = await findSegmentsByIds(context.database.db, accountOf(context), ids);
        return indexByKey(ids, rows, (row) => row.id);
      }),
  });
}
