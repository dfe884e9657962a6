import { applicationCaller } from '../../core/auth.js';
import { decodeCursor, encodeCursor, pageOffset, pageSize } from '../../core/connection.js';
import type { Context } from '../../core/context.js';
import { asksFor } from '../../core/selection.js';
import { invalidParameter } from '../../core/errors.js';
import { listingWindow } from '../../filters/window.js';
import type { GraphQLResolveInfo } from 'graphql';
import { listedMemberSelection, memberReadsOf, toMember } from '../members/members.mapping.js';
import type { Member } from '../members/members.types.js';
import * as q from './scoring.queries.js';
import type { Keyset, ListedMember } from './scoring.queries.js';
import { sharedCatchUpRead } from './catch-up-reads.js';
import { chooseTotals, type TotalsChoice } from './score-windows.ranking.js';
import { compileScope, scopeFor, scoreLoader, type ScoringScope } from './scoring.scope.js';
import { MemberOrder, type ListingRank, type MemberConnection, type MemberListingArgs } from './scoring.types.js';

/** A member listed by a members listing: its score and lastActivity without arguments default to the listing's filter and window (deprecated there: MemberEdge's). */
export type ListedNode = Member & { listing?: ScoringScope };

interface Position extends Record<string, unknown> {
  p?: number;
  i?: number;
  o?: number;
}
const isPosition = (value: Record<string, unknown>): value is Position => ['p', 'i', 'o'].every((name) => value[name] === undefined || Number.isSafeInteger(value[name]));

/** The position a page starts from: the `from` keyset, or the one an opaque cursor carries. */
function startPosition(args: MemberListingArgs): { position: Position | undefined; before: boolean } {
  const { from, after, before } = args;
  if (!from) return { position: decodeCursor(before ?? after, before ? 'before' : 'after', isPosition), before: Boolean(before) };
  if (after || before) throw invalidParameter('from', 'give from or a cursor (after, before), not both');
  if (args.orderBy !== MemberOrder.SCORE && args.orderBy !== MemberOrder.ID) throw invalidParameter('from', 'from applies to the SCORE and ID orders');
  const id = from.memberId;
  if (args.orderBy === MemberOrder.SCORE && (from.points === null || from.points === undefined)) throw invalidParameter('from', 'a SCORE listing continues from points and memberId');
  // An ID listing's position is the id alone.
  return { position: { p: args.orderBy === MemberOrder.SCORE ? (from.points ?? undefined) : undefined, i: id }, before: Boolean(from.before) };
}

function extendedPath(orderField: string | null | undefined): string[] | undefined {
  if (!orderField) return undefined;
  if (!/^extended\./i.test(orderField)) throw invalidParameter('orderField', 'expected extended.<field>, such as extended.points');
  const path = orderField.slice('extended.'.length).split('.');
  if (path.some((part) => !/^[A-Za-z0-9_-]{1,64}$/.test(part))) throw invalidParameter('orderField', 'expected extended.<field>, dotted for nested fields');
  return path;
}

/**
 * The deepest rank a listing tells: beyond it `MemberEdge.rank` is null and `rankCapped` true. A
 * page that starts from a keyset counts the members before it, up to this many.
 */
export const rankCap = 10_000;

/** The rank of a page's member at `index`, `before` members (counted up to rankCap) ahead of the page. */
function rankAt(before: number, index: number): ListingRank {
  const rank = before + index + 1;
  return before >= rankCap || rank > rankCap ? { rank: null, capped: true } : { rank, capped: false };
}

/** `work` run on first call only, its promise shared by later calls. */
function once<T>(work: () => Promise<T>): () => Promise<T> {
  let done: Promise<T> | undefined;
  return () => (done ??= work());
}

/**
 * One page of a members listing: `Query.members`, and `Brand.members`, which passes its brand as
 * the filter's brandId. Members under the filter, ranked by score in the window or in a plain order.
 */
export async function listMembers(context: Context, args: MemberListingArgs, info?: GraphQLResolveInfo): Promise<MemberConnection> {
  const { filter, window, orderBy, orderField, sort, first, offset } = args;
  applicationCaller(context);
  if (orderBy === MemberOrder.EXTENDED && !orderField) throw invalidParameter('orderField', 'EXTENDED needs orderField, such as extended.points');
  const path = orderBy === MemberOrder.SCORE ? undefined : extendedPath(orderField);
  if (orderBy === MemberOrder.LAST_LOGIN && filter?.activityIds?.length) throw invalidParameter('activityIds', 'an activity filter does not apply when listing by last login');
  const { position: cursor, before } = startPosition(args);
  const last = args.last ?? null;
  // A listing reads backward from a place only (its orders break ties one way in both directions).
  if (last !== null && !before) throw invalidParameter('last', 'a members listing reads backward from a place: give before (a cursor), or from with before: true');
  const limit = last !== null ? pageSize(last, 10, 'last') : pageSize(first);
  let scope = await scopeFor(context, filter, window, listingWindow);
  const db = context.database.db;
  const keyed = orderBy === MemberOrder.SCORE || orderBy === MemberOrder.ID;
  const keyset: Keyset | undefined = cursor && keyed ? { key: cursor.p ?? null, id: cursor.i ?? 0, before: Boolean(before) } : undefined;
  const start = pageOffset(offset) + (cursor && !keyed ? (cursor.o ?? -1) + 1 : 0);
  const page = { limit: limit + 1, offset: keyset ? 0 : start, keyset };

  let rows: ListedMember[];
  let rankedCount: (() => Promise<number>) | undefined;
  if (orderBy === MemberOrder.SCORE) {
    // A page ranked from the kept totals reads its members' services, domains and opt-ins with them,
    // and its count with its edge members when the selection asks for it.
    const count = info ? asksFor(info, 'totalCount') : false;
    const reads = info && memberReadsOf(info, ['edges', 'node']);
    const rank = (under: ScoringScope, choice?: TotalsChoice) => q.membersByScore(db, { filter: under.filter, window: under.window, direction: sort, page, reads, count, choice });
    const choice = await chooseTotals(db, scope.filter, scope.window);
    if (choice.lagging) {
      // Its window catches up: requests asking this very page share one read (sharedCatchUpRead),
      // its window resolved when it runs, and its count with it.
      const key = JSON.stringify([filter, window, sort, page, reads, count]);
      ({
        scope,
        rows,
        count: rankedCount,
      } = await sharedCatchUpRead(db, { accountId: scope.filter.accountId, window: scope.window, key }, async () => {
        const now = await compileScope(context, filter, window, listingWindow);
        const ranked = await rank(now);
        const total = count ? await (ranked.count?.() ?? q.countMembersByScore(db, now.filter, now.window)) : undefined;
        return { scope: now, rows: ranked.rows, count: total === undefined ? undefined : () => Promise.resolve(total) };
      }));
    } else {
      ({ rows, count: rankedCount } = await rank(scope, choice));
    }
  } else {
    // Plain orders other than by join or login date list members whatever the window.
    const windowed = orderBy === MemberOrder.CREATED || orderBy === MemberOrder.LAST_LOGIN;
    const filterScope = windowed ? scope.filter : { ...scope.filter, window: undefined };
    // A page selecting only what the narrow columns serve reads those (see listedMemberSelection).
    const narrow = info && listedMemberSelection(info);
    rows = await q.membersInOrder(db, { filter: filterScope, orderBy, direction: sort, page, extendedPath: path, narrow });
  }
  const more = rows.length > limit;
  if (more) rows = keyset?.before ? rows.slice(1) : rows.slice(0, limit);

  const scores = scoreLoader(context, scope);
  const ranked = scope;
  // The members before the page: its offset, or, for a page from a keyset (after, before, from),
  // those the listing orders before its first member, counted once when an edge asks for its rank.
  const head = rows[0];
  const ahead = once(() => {
    if (!keyset || !head) return Promise.resolve(start);
    if (orderBy === MemberOrder.SCORE) {
      const row = { points: head.score?.points ?? 0, memberId: head.member.id };
      return q.countBeforeByScore(db, { filter: ranked.filter, window: ranked.window, direction: sort, row, cap: rankCap });
    }
    return q.countBeforeById(db, { ...ranked.filter, window: undefined }, sort, head.member.id, rankCap);
  });
  const edges = rows.map((row, index) => {
    if (row.score) scores.prime(row.member.id, row.score);
    const node: ListedNode = { ...toMember(row.member), listing: scope };
    const position: Position = orderBy === MemberOrder.SCORE ? { p: row.score?.points ?? 0, i: row.member.id } : keyed ? { i: row.member.id } : { o: start + index };
    const rank = async () => rankAt(await ahead(), index);
    return { cursor: encodeCursor(position), node, place: { scope, memberId: row.member.id, rank } };
  });
  return {
    edges,
    nodes: edges.map((edge) => edge.node),
    pageInfo: {
      hasNextPage: keyset?.before ? true : more,
      hasPreviousPage: keyset?.before ? more : Boolean(cursor) || start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    brandId: scope.filter.brandId,
    totalCount: () =>
      orderBy === MemberOrder.SCORE
        ? (rankedCount?.() ?? q.countMembersByScore(db, scope.filter, scope.window))
        : q.countMembersInOrder(db, orderBy === MemberOrder.CREATED || orderBy === MemberOrder.LAST_LOGIN ? scope.filter : { ...scope.filter, window: undefined }, orderBy),
  };
}
