import DataLoader from 'dataloader';
import type { Context } from '../../core/context.js';
import { accountOf } from '../../core/auth.js';
import { groupByKey, indexByKey, lazily } from '../../lib/batching.js';
import { domainsOfMembers, findMembersByIds, lastUserAgentsOfMembers, serviceSummariesOfMembers, servicesOfMembers } from './members.queries.js';

export type MemberLoaders = ReturnType<typeof createMemberLoaders>;

/** The members module's per-request loaders (context.loaders.members). */
export function createMemberLoaders(context: Context) {
  return lazily({
    /** Linked services of many members in one query. */
    services: () =>
      new DataLoader(async (memberIds: readonly number[]) => {
        const rows = await servicesOfMembers(context.database.db, accountOf(context), memberIds);
        return groupByKey(memberIds, rows, (row) => row.memberId);
      }),
    /** Network, user id and validity of many members' services in one query: for selections that ask no more. */
    serviceSummaries: () =>
      new DataLoader(async (memberIds: readonly number[]) => {
        const rows = await serviceSummariesOfMembers(context.database.db, accountOf(context), memberIds);
        return groupByKey(memberIds, rows, (row) => row.memberId);
      }),
    /** Domain visits of many members in one query (per service; members' lists are derived). */
    domains: () =>
      new DataLoader(async (memberIds: readonly number[]) => {
        const rows = await domainsOfMembers(context.database.db, accountOf(context), memberIds);
        return groupByKey(memberIds, rows, (row) => row.memberId);
      }),
    /** Per member, the user agent of the latest visit on each domain (domain → user agent). */
    userAgents: () =>
      new DataLoader(async (memberIds: readonly number[]) => {
        const rows = await lastUserAgentsOfMembers(context.database.db, accountOf(context), memberIds);
        return groupByKey(memberIds, rows, (row) => row.memberId).map((list) => new Map(list.map((row) => [row.domain, row.userAgent])));
      }),
    /**
     * Member rows by id, for the fields a Member object does not carry (the sealed access token, the
     * custom fields): one query for a whole page instead of one per member.
     */
    rows: () =>
      new DataLoader(async (ids: readonly number[]) => {
        const rows = await findMembersByIds(context.database.db, accountOf(context), ids);
        return indexByKey(ids, rows, (row) => row.id);
      }),
  });
}
