import DataLoader from 'dataloader';
import { accountOf } from '../../graphql/auth.js';
import { defineLoader, indexByKey } from '../../graphql/loaders.js';
import { findBrandsByIds } from './brands.queries.js';

/** Live brands by id, for opt-ins, segments and crossover items of a page: one query for all. */
export const brandsById = defineLoader(
  (context) =>
    new DataLoader(async (ids: readonly number[]) => {
      const rows = await findBrandsByIds(context.database.db, accountOf(context), ids);
      return indexByKey(ids, rows, (row) => row.id);
    }),
);
