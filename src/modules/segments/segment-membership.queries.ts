import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { members, segmentMembers, segments } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import type { ResolvedWindow } from '../../filters/window.js';
import { countedRows } from '../scoring/counted-rows.queries.js';

/** What a filter segment's members are computed from: the compiled filter, its window, and whether activity counts. */
export interface SegmentMatch {
  filter: CompiledFilter;
  window: ResolvedWindow;
  /** Members must have counted activity in the window (the filter is about activity). */
  aboutActivity: boolean;
  /** Only this member (member show's `refresh`), or everyone. */
  memberId?: number;
}

function membersOf(db: Executor, match: SegmentMatch) {
  const { filter, window, memberId } = match;
  const counted = match.aboutActivity ? countedRows(db, filter, window, memberId ? [memberId] : undefined) : undefined;
  return db
    .select({ id: members.id })
    .from(members)
    .where(
      and(
        eq(members.accountId, filter.accountId),
        isNull(members.mergedIntoId),
        memberId ? eq(members.id, memberId) : undefined,
        filter.member(),
        counted ? inArray(members.id, db.selectDistinct({ id: counted.memberId }).from(counted)) : undefined,
      ),
    );
}

/** Forgets who was in the segment (or whether this member was). */
export async function clearSegmentMembers(db: Executor, accountId: number, segmentId: number, memberId?: number): Promise<void> {
  await db.delete(segmentMembers).where(and(eq(segmentMembers.accountId, accountId), eq(segmentMembers.segmentId, segmentId), memberId ? eq(segmentMembers.memberId, memberId) : undefined));
}

/** Stores the members the match finds as the segment's, in one statement; returns how many. */
export async function insertMatchingMembers(db: Executor, accountId: number, segmentId: number, match: SegmentMatch): Promise<number> {
  const matched = membersOf(db, match).as('matched');
  const inserted = await executeRows(
    db,
    sql`insert into ${segmentMembers} (account_id, segment_id, member_id)
    select ${accountId}, ${segmentId}, ${matched.id} from ${matched} returning 1`,
  );
  return inserted.length;
}

/** The account's live filter segments with their saved filters. */
export function filterSegmentsOf(db: Executor, accountId: number) {
  return db
    .select({ id: segments.id, filter: segments.filter })
    .from(segments)
    .where(and(eq(segments.accountId, accountId), eq(segments.kind, 'filter'), isNull(segments.deletedAt)));
}
