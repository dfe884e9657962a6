import { and, asc, count, eq, gt, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { members, optins, segmentMembers } from '../../db/schema/index.js';

/**
 * The statements of a CSV export of fans: a count first, then keyset batches by member id, each one
 * short statement (it fits the statement timeout, PGlite, a cluster's routing and the tenancy
 * check). No cursor or COPY: both hold a connection for the whole download, COPY skips the
 * formula escaping, and PGlite streams neither.
 */

/** The columns of an exported fan, in the CSV's order. */
export const exportColumns = {
  id: members.id,
  email: members.email,
  verified_email: members.verifiedEmail,
  first_name: members.firstName,
  surname: members.surname,
  username: members.username,
  gender: members.gender,
  birth_date: members.birthDate,
  country: members.country,
  state: members.state,
  city: members.city,
  post_code: members.postCode,
  created_at: sql<string>`to_char(${members.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`,
  last_login_at: sql<string | null>`to_char(${members.lastLoginAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`,
};
export type ExportRow = { [K in keyof typeof exportColumns]: unknown } & { id: number };

/** Which fans an export lists: a segment's (opted in to a list, or computed for a filter segment) or a member filter's. */
export type ExportSource =
  { kind: 'list-segment'; accountId: number; segmentId: number } | { kind: 'filter-segment'; accountId: number; segmentId: number } | { kind: 'filter'; accountId: number; condition: SQL | undefined };

/** The fans of the source after `afterId`, by id, `limit` of them. */
export function exportBatch(db: Executor, source: ExportSource, afterId: number, limit: number): Promise<ExportRow[]> {
  const { accountId } = source;
  const current = and(eq(members.accountId, accountId), isNull(members.mergedIntoId));
  if (source.kind === 'list-segment') {
    // One current opt-in per member and list (a unique index): no member twice.
    return db
      .select(exportColumns)
      .from(optins)
      .innerJoin(members, and(eq(members.accountId, accountId), eq(members.id, optins.memberId)))
      .where(and(eq(optins.accountId, accountId), eq(optins.segmentId, source.segmentId), isNull(optins.optedOutAt), gt(optins.memberId, afterId), current))
      .orderBy(asc(optins.memberId))
      .limit(limit);
  }
  if (source.kind === 'filter-segment') {
    return db
      .select(exportColumns)
      .from(segmentMembers)
      .innerJoin(members, and(eq(members.accountId, accountId), eq(members.id, segmentMembers.memberId)))
      .where(and(eq(segmentMembers.accountId, accountId), eq(segmentMembers.segmentId, source.segmentId), gt(segmentMembers.memberId, afterId), current))
      .orderBy(asc(segmentMembers.memberId))
      .limit(limit);
  }
  return db
    .select(exportColumns)
    .from(members)
    .where(and(current, gt(members.id, afterId), source.condition))
    .orderBy(asc(members.id))
    .limit(limit);
}

/** How many fans the source lists, counted up to `cap` + 1 (so a count over the cap says so without counting on). */
export async function countExport(db: Executor, source: ExportSource, cap: number): Promise<number> {
  const { accountId } = source;
  const current = and(eq(members.accountId, accountId), isNull(members.mergedIntoId));
  let listed;
  if (source.kind === 'list-segment') {
    listed = db
      .select({ id: optins.memberId })
      .from(optins)
      .innerJoin(members, and(eq(members.accountId, accountId), eq(members.id, optins.memberId)))
      .where(and(eq(optins.accountId, accountId), eq(optins.segmentId, source.segmentId), isNull(optins.optedOutAt), current));
  } else if (source.kind === 'filter-segment') {
    listed = db
      .select({ id: segmentMembers.memberId })
      .from(segmentMembers)
      .innerJoin(members, and(eq(members.accountId, accountId), eq(members.id, segmentMembers.memberId)))
      .where(and(eq(segmentMembers.accountId, accountId), eq(segmentMembers.segmentId, source.segmentId), current));
  } else {
    listed = db.select({ id: members.id }).from(members).where(and(current, source.condition));
  }
  const [row] = await db.select({ count: count() }).from(listed.limit(cap + 1).as('listed'));
  return Number(row.count);
}
