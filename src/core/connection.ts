import { Field, ObjectType } from 'type-graphql';
import { invalidParameter } from './errors.js';

@ObjectType('PageInfo', { description: 'Where a page stands in its list: whether items follow or precede it, and the cursors of its first and last items.' })
export class PageInfo {
  @Field(() => Boolean, { description: 'True when items follow this page: pass endCursor as after to read them.' }) hasNextPage!: boolean;
  @Field(() => Boolean, { description: 'True when the page does not start at the beginning of the list: it starts from a cursor or an offset.' }) hasPreviousPage!: boolean;
  @Field(() => String, { nullable: true, description: "The cursor of the page's first item; null for an empty page." }) startCursor!: string | null;
  @Field(() => String, { nullable: true, description: "The cursor of the page's last item; null for an empty page." }) endCursor!: string | null;
}

/** Every list is capped at this many items per page. */
export const maxPageSize = 1000;

/** Offsets beyond this are refused: deep pages go by cursor. */
export const maxOffset = 100_000;

/** The page size from `first` (or the argument named by `param`); errors name the GraphQL argument, REST maps it (rest/error-params.ts). */
export function pageSize(first: number | null | undefined, fallback = 10, param = 'first'): number {
  const size = first ?? fallback;
  if (!Number.isInteger(size) || size < 1) throw invalidParameter(param, 'expected at least 1 item');
  return Math.min(size, maxPageSize);
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
