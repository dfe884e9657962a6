import DataLoader from 'dataloader';
import { accountOf } from '../../graphql/auth.js';
import { defineLoader, groupByKey } from '../../graphql/loaders.js';
import { currentOptInsOf } from './optins.queries.js';

/** Current opt-ins of a page of members in one query. */
export const optInsByMember = defineLoader(
  (context) =>
    new DataLoader(async (memberIds: readonly number[]) => {
      const rows = await currentOptInsOf(context.database.db, accountOf(context), memberIds);
      return groupByKey(memberIds, rows, (row) => row.memberId);
    }),
);
