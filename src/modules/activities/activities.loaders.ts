import DataLoader from 'dataloader';
import type { Context } from '../../core/context.js';
import { accountOf } from '../../core/auth.js';
import { indexByKey, lazily } from '../../lib/batching.js';
import { definitionsByIds, type DefinitionRow } from './activities.queries.js';

export type ActivityLoaders = ReturnType<typeof createActivityLoaders>;

/** The activities module's per-request loaders (context.loaders.activities). */
export function createActivityLoaders(context: Context) {
  return lazily({
    /** Activity definitions by id (deleted ones too: old records still name them), one query per page. */
    definitions: () =>
      new DataLoader<number, DefinitionRow | null>(async (ids) => {
        const rows = await definitionsByIds(context.database.db, accountOf(context), ids);
        return indexByKey(ids, rows, (row) => row.id);
      }),
  });
}
