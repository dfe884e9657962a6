import type { Executor } from '../../db/client.js';
import { decodeCursor, encodeCursor } from '../../core/connection.js';
import { invalidParameter } from '../../core/errors.js';
import { isId } from '../../lib/ids.js';
import { branchMatches, searchFanRows, type FanHitRow, type FanMatch, type SearchKind, type SearchPosition, type SearchValues } from './fan-search.queries.js';

export type { FanMatch, SearchKind } from './fan-search.queries.js';

/** The longest search the console takes: a name, an address or an id is far shorter. */
export const maxSearchLength = 200;
/** Hits per page at most (and by default, 20). */
export const maxSearchPage = 50;
const defaultSearchPage = 20;

/** One fan found, with what matched and the cursor of its place in the list. */
export interface FanHit {
  member: Omit<FanHitRow, 'branch' | 'key' | 'exact'>;
  matchedOn: FanMatch;
  exact: boolean;
  cursor: string;
}

export interface FanSearchPage {
  kind: SearchKind;
  hits: FanHit[];
  /** More hits follow: pass the last hit's cursor as `after`. No total is counted. */
  hasNextPage: boolean;
}

// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const controlCharacters = /[\u0000-\u001F\u007F]/;

/** The input trimmed and bounded, or a clear refusal naming `search`. */
export function readSearchText(input: string): string {
  const text = (input ?? '').trim().replace(/\s+/g, ' ');
  if (!text) throw invalidParameter('search', 'type a name, an email address, a username, a member id or a network user id');
  if (text.length > maxSearchLength) throw invalidParameter('search', `at most ${maxSearchLength} characters`);
  if (controlCharacters.test(text)) throw invalidParameter('search', 'control characters are not allowed');
  return text;
}

/** `like` takes `%`, `_` and its escape character `\` as themselves once escaped. */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * What the input is and the values its branches bind: only digits is an id (a member's, or a
 * network user id); with an `@`, an address; anything else a name, a username or a network user id.
 */
export function classifySearch(text: string): { kind: SearchKind; values: SearchValues } {
  const values: SearchValues = { text, prefix: likePrefix(text) };
  if (/^\d+$/.test(text)) {
    const id = text.length <= 10 ? Number(text) : NaN;
    return { kind: 'digits', values: { ...values, ...(isId(id) ? { id } : {}) } };
  }
  if (text.includes('@')) return { kind: 'email', values };
  const space = text.indexOf(' ');
  if (space > 0) {
    const rest = text.slice(space + 1);
    return { kind: 'name', values: { ...values, first: text.slice(0, space), rest, restPrefix: likePrefix(rest) } };
  }
  return { kind: 'name', values };
}

const isPosition = (value: Record<string, unknown>): value is { b: number; k: string | null; i: number } =>
  Number.isInteger(value.b) && (value.b as number) >= 0 && (value.k === null || typeof value.k === 'string') && isId(value.i as number);

/**
 * The account's fans matching the input, exact matches first (docs/console.md, "Fan search"):
 * one statement per page, `first` (at most 50) hits, keyset paged by `after`. Merged members are
 * left out, except one named by its exact id, which is listed with `mergedIntoId`.
 */
export async function searchFans(db: Executor, accountId: number, input: string, page: { first?: number | null; after?: string | null } = {}): Promise<FanSearchPage> {
  const text = readSearchText(input);
  const first = page.first ?? defaultSearchPage;
  if (!Number.isInteger(first) || first < 1 || first > maxSearchPage) throw invalidParameter('first', `from 1 to ${maxSearchPage}`);
  const { kind, values } = classifySearch(text);
  const cursor = decodeCursor(page.after, 'after', isPosition);
  const matches = branchMatches(kind, values);
  if (cursor && cursor.b >= matches.length) throw invalidParameter('after', 'expected a cursor from an earlier page of this search');
  const after: SearchPosition | undefined = cursor && { branch: cursor.b, key: cursor.k, id: cursor.i };
  const rows = await searchFanRows(db, accountId, kind, values, first + 1, after);
  const hits = rows.slice(0, first).map(({ branch, key, exact, ...member }) => ({
    member: { ...member, createdAt: asDate(member.createdAt)!, lastLoginAt: asDate(member.lastLoginAt) },
    matchedOn: matches[branch],
    exact: Boolean(exact),
    cursor: encodeCursor({ b: branch, k: key, i: member.id }),
  }));
  return { kind, hits, hasNextPage: rows.length > first };
}

function asDate(value: Date | string | null): Date | null {
  if (value === null) return null;
  return value instanceof Date ? value : new Date(value);
}
