import DataLoader from 'dataloader';
import { defineLoader, groupByKey, indexByKey } from '../../graphql/loaders.js';
import { accountOf } from '../../graphql/auth.js';
import { domainsOfMembers, findMembersByIds, serviceSummariesOfMembers, servicesOfMembers } from './members.queries.js';

/** Linked services of many members in one query. */
export const servicesByMember = defineLoader(
  (context) =>
    new DataLoader(async (memberIds: readonly number[]) => {
      const rows = await servicesOfMembers(context.database.db, accountOf(context), memberIds);
      return groupByKey(memberIds, rows, (row) => row.memberId);
    }),
);

/** Network, user id and validity of many members' services in one query: for selections that ask no more. */
export const serviceSummariesByMember = defineLoader(
  (context) =>
    new DataLoader(async (memberIds: readonly number[]) => {
      const rows = await serviceSummariesOfMembers(context.database.db, accountOf(context), memberIds);
      return groupByKey(memberIds, rows, (row) => row.memberId);
    }),
);

/** Domain visits of many members in one query (per service; members' lists are derived). */
export const domainsByMember = defineLoader(
  (context) =>
    new DataLoader(async (memberIds: readonly number[]) => {
      const rows = await domainsOfMembers(context.database.db, accountOf(context), memberIds);
      return groupByKey(memberIds, rows, (row) => row.memberId);
    }),
);

/**
 * Member rows by id, for the fields a Member object does not carry (the sealed access token, the
 * custom fields): one query for a whole page instead of one per member.
 */
export const memberRowsById = defineLoader(
  (context) =>
    new DataLoader(async (ids: readonly number[]) => {
      const rows = await findMembersByIds(context.database.db, accountOf(context), ids);
      return indexByKey(ids, rows, (row) => row.id);
    }),
);
