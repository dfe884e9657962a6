import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Field, ObjectType } from 'type-graphql';
import { invalidParameter } from './errors.js';

@ObjectType('PageInfo', { description: 'Where a page stands in its list: whether items follow or precede it, and the cursors of its first and last items.' })
export class PageInfo {
  @Field(() => Boolean, { description: 'True when items follow this page: pass endCursor as after to read them.' }) hasNextPage!: boolean;
  @Field(() => Boolean, { description: 'True when the page does not start at the beginning of the list: it starts from a cursor or an offset.' }) hasPreviousPage!: boolean;
  @Field(() => String, { nullable: true, description: "The cursor of the page's first item; null for an empty page." }) startCursor!: string | null;
  @Field(() => String, { nullable: true, description: "The cursor of the page's last item; null for an empty page." }) endCursor!: string | null;
}

/** The most items a page may ask for: a larger `first` or `last` is refused, not cut (REST cuts its own `limit` first, rest/params.ts). */
export const maxPageSize = 1000;

/** Offsets beyond this are refused: deep pages go by cursor. */
export const maxOffset = 100_000;

/**
 * The page size from `first` (or the argument named by `param`): 1 to `max`, a size outside refused
 * (never cut, so a client never takes a short page for the end of the list). Errors name the
 * GraphQL argument, REST maps it (rest/error-params.ts).
 */
export function pageSize(first: number | null | undefined, fallback = 10, param = 'first', max = maxPageSize): number {
  const size = first ?? fallback;
  if (!Number.isInteger(size) || size < 1) throw invalidParameter(param, 'expected at least 1 item');
  if (size > max) throw invalidParameter(param, `expected at most ${max} items per page`);
  return size;
}

/** Which way a page is read: forward (`first`, `after`) or backward (`last`, `before`), and how many items. */
export interface PageRequest {
  /** true: the page ends just before `before` (or at the end of the list), read with `last`. */
  backward: boolean;
  size: number;
  /** The cursor the page starts after (forward) or ends before (backward), as given. */
  cursor: string | null;
  /** The argument that carried the cursor, for its errors. */
  cursorParam: 'after' | 'before';
}

/**
 * The Relay arguments of a connection, checked once: `last` or `before` reads backward (`last`
 * items, `first`'s size when left out), else forward. `after` with `before` is refused, and so is
 * `offset` with a cursor or with a backward page (offsets count from the start of the list only).
 */
export function pageRequest(args: { first?: number | null; after?: string | null; last?: number | null; before?: string | null; offset?: number | null }, fallback = 10): PageRequest {
  if (args.after && args.before) throw invalidParameter('before', 'give after or before, not both');
  const backward = (args.last !== null && args.last !== undefined) || Boolean(args.before);
  if (args.offset !== null && args.offset !== undefined) {
    if (args.after || args.before) throw invalidParameter('offset', 'offset counts from the start of the list: not with a cursor (after, before)');
    if (backward) throw invalidParameter('offset', 'offset counts from the start of the list: not with last');
  }
  if (backward) return { backward, size: pageSize(args.last ?? args.first, fallback, args.last !== null && args.last !== undefined ? 'last' : 'first'), cursor: args.before ?? null, cursorParam: 'before' };
  return { backward, size: pageSize(args.first, fallback), cursor: args.after ?? null, cursorParam: 'after' };
}

export function pageOffset(offset: number | null | undefined): number {
  const value = offset ?? 0;
  if (!Number.isInteger(value) || value < 0 || value > maxOffset) throw invalidParameter('offset', `the offset is from 0 to ${maxOffset}`);
  return value;
}

/** Cursors are opaque to callers: base64url JSON of the position they stand for. */
export function encodeCursor(position: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position a cursor stands for; errors name `param`, the cursor's GraphQL argument (`after`, `before`). */
export function decodeCursor<T extends Record<string, unknown>>(cursor: string | null | undefined, param: string, check: (value: Record<string, unknown>) => value is T): T | undefined {
  if (!cursor) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== 'object' || !check(value as Record<string, unknown>)) throw invalidParameter(param, 'expected a cursor from an earlier page');
  return value as T;
}

/** Signs a cursor's text: a keyed hash, so a cursor the gateway did not make is refused. */
export type CursorSigner = (text: string) => string;

/** The signer of the keyset cursors, from SECRET_KEY under its own HKDF label: cursors stay valid across restarts and instances. */
export function createCursorSigner(secretKey: string): CursorSigner {
  if (!secretKey) throw new Error('Cursors need a secret key (SECRET_KEY).');
  const key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'marquee cursor v1', 32));
  return (text) => createHmac('sha256', key).update(text, 'utf8').digest('base64url').slice(0, 22);
}

/** A signed cursor: the position as base64url JSON, a dot, and its signature. */
export function sealCursor(sign: CursorSigner, position: Record<string, unknown>): string {
  const body = encodeCursor(position);
  return `${body}.${sign(body)}`;
}

/**
 * The position a signed cursor stands for; a cursor altered, made elsewhere or of another shape is
 * refused under `param` with the same words, so a refusal tells nothing of why.
 */
export function openCursor<T extends Record<string, unknown>>(sign: CursorSigner, cursor: string | null | undefined, param: string, check: (value: Record<string, unknown>) => value is T): T | undefined {
  if (!cursor) return undefined;
  const refused = () => invalidParameter(param, 'expected a cursor from an earlier page of this list');
  if (cursor.length > 1000) throw refused();
  const dot = cursor.lastIndexOf('.');
  if (dot < 1) throw refused();
  const body = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1));
  const expected = Buffer.from(sign(body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) || !check(value as Record<string, unknown>)) throw refused();
  return value as T;
}
