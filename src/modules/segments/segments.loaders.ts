import DataLoader from 'dataloader';
import { accountOf } from '../../graphql/auth.js';
import { defineLoader, groupByKey, indexByKey } from '../../graphql/loaders.js';
import { findSegmentsByIds, segmentsOfBrands } from './segments.queries.js';

/** Live segments of a page of brands in one query. */
export const segmentsByBrand = defineLoader(
  (context) =>
    new DataLoader(async (brandIds: readonly number[]) => {
      const rows = await segmentsOfBrands(context.database.db, accountOf(context), brandIds);
      return groupByKey(brandIds, rows, (row) => row.brandId!);
    }),
);

/** Live segments by id, for the opt-ins of a page of members. */
export const segmentsById = defineLoader(
  (context) =>
    new DataLoader(async (ids: readonly number[]) => {
      const rows = await findSegmentsByIds(context.database.db, accountOf(context), ids);
      return indexByKey(ids, rows, (row) => row.id);
    }),
);
