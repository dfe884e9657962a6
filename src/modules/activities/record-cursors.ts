import { createHash } from 'node:crypto';
import { openCursor, sealCursor, type CursorSigner, type PageRequest } from '../../core/connection.js';
import { invalidParameter } from '../../core/errors.js';
import type { ResolvedWindow } from '../../filters/window.js';
import { toActivityRecord } from './activities.mapping.js';
import type { ActivityRecordConnection } from './activities.types.js';
import type { KeyedRecordRow, RecordKeyset } from './feed.queries.js';

/**
 * What a cursor of a list of records carries (the activity feed, Member.activities): the account
 * and the list it belongs to, the first page's window and time, and a place in the list. Signed
 * (core/connection.ts): a cursor altered, of another account or of another list is refused.
 */
interface RecordCursor extends Record<string, unknown> {
  /** The account. */
  a: number;
  /** The list: a digest of the arguments that decide its items and order. */
  l: string;
  /** The first page's window, start and end in milliseconds. */
  s: number;
  e: number;
  /** The first page's time, in milliseconds: the list holds the records stored by then. */
  t: number;
  /** The place: the ordering time in microseconds, and the record id. */
  k: string;
  i: number;
}

const cursorFields = ['a', 'l', 's', 'e', 't', 'k', 'i'];

const isRecordCursor = (value: Record<string, unknown>): value is RecordCursor =>
  Object.keys(value).length === cursorFields.length &&
  ['a', 's', 'e', 't', 'i'].every((name) => Number.isSafeInteger(value[name])) &&
  typeof value.l === 'string' &&
  typeof value.k === 'string' &&
  /^-?\d{1,20}$/.test(value.k);

/** A short digest of the arguments that make a list, so a cursor continues only the list it came from. */
export function listDigest(args: unknown): string {
  return createHash('sha256').update(JSON.stringify(args)).digest('base64url').slice(0, 16);
}

/** The list a page reads: its window, the time that bounds it, and where the page starts. */
export interface RecordList {
  accountId: number;
  digest: string;
  window: ResolvedWindow;
  /** The first page's time: cursors carry it on. */
  asOf: Date;
  /** Set on a page continued from a cursor: only records stored by the first page's time. */
  recordedBy?: Date;
  /** The place the page starts after (forward) or ends before (backward). */
  from?: RecordKeyset;
}

/**
 * The list a page continues: from its cursor the first page's window and time, else a new list of
 * `window` as of `now`. A cursor of another account or list is refused as a made-up one is.
 */
export function openRecordList(sign: CursorSigner, page: PageRequest, list: { accountId: number; digest: string; window: ResolvedWindow }, now = new Date()): RecordList {
  const cursor = openCursor(sign, page.cursor, page.cursorParam, isRecordCursor);
  if (!cursor) return { ...list, asOf: now };
  if (cursor.a !== list.accountId || cursor.l !== list.digest || cursor.s >= cursor.e) throw invalidParameter(page.cursorParam, 'expected a cursor from an earlier page of this list');
  const asOf = new Date(cursor.t);
  return { ...list, window: { start: new Date(cursor.s), end: new Date(cursor.e) }, asOf, recordedBy: asOf, from: { key: cursor.k, id: cursor.i } };
}

/** The order a page's rows are read in: the list's, or its reverse for a page read backward. */
export function readDirection(listDirection: 'ASC' | 'DESC', page: PageRequest): 'ASC' | 'DESC' {
  if (!page.backward) return listDirection;
  return listDirection === 'ASC' ? 'DESC' : 'ASC';
}

/**
 * A page of records as a connection: `rows` were read in the page's reading order with one row more
 * than its size, which tells whether another page follows (or, read backward, precedes). Each
 * edge's cursor carries the list's window and time with the record's place.
 */
export function keysetRecordPage(
  sign: CursorSigner,
  list: RecordList,
  page: PageRequest,
  read: readonly KeyedRecordRow[],
  options: { offset?: number; totalCount: () => Promise<number> },
): ActivityRecordConnection {
  const more = read.length > page.size;
  const rows = read.slice(0, page.size);
  if (page.backward) rows.reverse();
  const place = { a: list.accountId, l: list.digest, s: list.window.start.getTime(), e: list.window.end.getTime(), t: list.asOf.getTime() };
  const edges = rows.map((row) => ({ cursor: sealCursor(sign, { ...place, k: row.cursorKey, i: row.id }), node: toActivityRecord(row) }));
  return {
    edges,
    nodes: edges.map((edge) => edge.node),
    pageInfo: {
      hasNextPage: page.backward ? Boolean(page.cursor) : more,
      hasPreviousPage: page.backward ? more : Boolean(page.cursor) || (options.offset ?? 0) > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: options.totalCount,
  };
}
