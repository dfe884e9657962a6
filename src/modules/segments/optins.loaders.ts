import DataLoader from 'dataloader';
import type { Context } from '../../core/context.js';
import { accountOf } from '../../core/auth.js';
import { groupByKey, lazily } from '../../lib/batching.js';
import { currentOptInsOf } from './optins.queries.js';

export type OptInLoaders = ReturnType<typeof createOptInLoaders>;

/** The opt-ins' per-request loaders (context.loaders.optIns). */
export function createOptInLoaders(context: Context) {
  return lazily({
    /** Current opt-ins of a page of members in one query. */
    byMember: () =>
      new DataLoader(async (memberIds: readonly number[]) => {
        const rows = await currentOptInsOf(context.database.db, accountOf(context), memberIds);
        return groupByKey(memberIds, rows, (row) => row.memberId);
      }),
  });
}
