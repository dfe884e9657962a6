import type { Executor } from '../../db/client.js';
import { decodeCursor, encodeCursor } from '../../core/connection.js';
import { invalidParameter, notFound } from '../../core/errors.js';
import { isId } from '../../lib/ids.js';
import { findMember, type MemberRow } from '../members/members.queries.js';
import { recordsOfFan, type FanRecordRow } from './fan-page.queries.js';

export { emailsOfFan, loginEventsOfFan, optInsOfFan, servicesOfFan, widgetSessionsOfFan } from './fan-page.queries.js';
export type { FanEmailRow, FanLoginRow, FanOptInRow, FanRecordRow, FanServiceRow, FanSessionRow } from './fan-page.queries.js';
export { memberStanding as fanStanding } from '../scoring/member-rank.js';

/** A fan's id as the console sends it (GraphQL ID, a route's `:id`), or a clear refusal naming `param`. */
export function fanId(value: string | number | null | undefined, param = 'id'): number {
  const id = typeof value === 'number' ? value : /^\d{1,10}$/.test(String(value ?? '').trim()) ? Number(String(value).trim()) : NaN;
  if (!isId(id)) throw invalidParameter(param, 'expected a fan id');
  return id;
}

/**
 * The fan of this account with this id; a merged fan's id answers its survivor, as everywhere.
 * Another account's id is not found, like an id that never was.
 */
export async function requireFan(db: Executor, accountId: number, id: number, param = 'id'): Promise<MemberRow> {
  const member = await findMember(db, accountId, id);
  if (!member) throw notFound('Fan', param);
  return member;
}

/** Records per page of a fan's timeline at most (and by default, 25). */
export const maxTimelinePage = 100;

export interface TimelinePage {
  records: FanRecordRow[];
  hasNextPage: boolean;
  endCursor: string | null;
}

const isRecordPosition = (value: Record<string, unknown>): value is { t: string; i: number } =>
  typeof value.t === 'string' && !Number.isNaN(new Date(value.t).getTime()) && Number.isSafeInteger(value.i) && (value.i as number) > 0;

/** A page of the fan's activity, newest first: one statement, keyset paged by `after`. */
export async function fanTimeline(db: Executor, accountId: number, memberId: number, page: { first?: number | null; after?: string | null } = {}): Promise<TimelinePage> {
  const first = page.first ?? 25;
  if (!Number.isInteger(first) || first < 1 || first > maxTimelinePage) throw invalidParameter('first', `from 1 to ${maxTimelinePage}`);
  const cursor = decodeCursor(page.after, 'after', isRecordPosition);
  const rows = await recordsOfFan(db, accountId, memberId, first + 1, cursor && { completedAt: cursor.t, id: cursor.i });
  const records = rows.slice(0, first);
  const last = records.at(-1);
  return { records, hasNextPage: rows.length > first, endCursor: last ? encodeCursor({ t: last.position, i: last.id }) : null };
}
