import DataLoader from 'dataloader';
import type { Context } from '../../graphql/context.js';
import { defineLoader, indexByKey } from '../../graphql/loaders.js';
import { accountOf } from '../../graphql/auth.js';
import { brandSummariesByIds, definitionsByIds, type DefinitionRow } from './activities.queries.js';

/** Activity definitions by id (deleted ones too: old records still name them), one query per page. */
export const definitionById = defineLoader(
  (context: Context) =>
    new DataLoader<number, DefinitionRow | null>(async (ids) => {
      const rows = await definitionsByIds(context.database.db, accountOf(context), ids);
      return indexByKey(ids, rows, (row) => row.id);
    }),
);

/** Id, name and type of brands (deleted ones too), as records and listings name them. */
export const brandSummaryById = defineLoader(
  (context: Context) =>
    new DataLoader<number, { id: number; name: string; type: string } | null>(async (ids) => {
      const rows = await brandSummariesByIds(context.database.db, accountOf(context), ids);
      return indexByKey(ids, rows, (row) => row.id);
    }),
);
