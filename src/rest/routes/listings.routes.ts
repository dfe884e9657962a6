import type { FastifyRequest } from 'fastify';
import { GRAPHQL_MAX_INT } from 'graphql';
import { ListMembersDocument, type ListMembersQuery, type ListMembersQueryVariables, type MemberOrder } from '../../generated/graphql.js';
import { invalidParameter } from '../../core/errors.js';
import { memberFilterOf, windowOf } from '../filter-params.js';
import type { Params } from '../params.js';
import { defineRoute } from '../route.js';
import { maxIntegerId } from '../../lib/ids.js';
import { extendedVariables } from '../fields.js';
import { pageOf } from '../route-forms.js';
import { activeListingItem, listingItem, type ListingNode } from '../records/listings.js';

/** `fields` keeps the named fields of each item (any case); dotted `extended.x` names keep Extended. */
function trimmed(item: Record<string, unknown>, params: Params) {
  const fields = params.list('fields');
  if (!fields?.length) return item;
  const wanted = new Set(fields.filter((field) => !/^extended\./i.test(field)).map((field) => field.toLowerCase()));
  return Object.fromEntries(Object.entries(item).filter(([name]) => name === 'ID' || name === 'Extended' || wanted.has(name.toLowerCase())));
}

/** Dotted `fields` (`extended.tier`) select those fields of Extended; the activity listings have no `extended=1`. */
function dottedExtended(params: Params): Pick<ListMembersQueryVariables, 'withExtended' | 'extendedFields'> {
  const { extendedFields } = extendedVariables(params);
  return { withExtended: Boolean(extendedFields), extendedFields };
}

/** An item of members/active or members/login: trimmed by `fields`, with the Extended fields dotted names asked for. */
function activeItem(node: ListingNode, brand: ListMembersQuery['members']['brand'], params: Params) {
  return { ...trimmed(activeListingItem(node, brand), params), ...(node.extended ? { Extended: node.extended } : {}) };
}

/** The paging parameters a link replaces. */
const pagingParameters = ['after', 'before', 'score_lessthan', 'score_greaterthan', 'limit'];
/**
 * Credentials a link never repeats: a response is logged, cached and passed around more freely
 * than the request that carried the key, so the caller adds its key (and token) to the link again.
 */
const credentialParameters = ['apikey', 'accesstoken'];

/**
 * A link to another page of the same listing: the caller's own parameters with the paging ones
 * replaced, and without the API key or access token given in the query string.
 */
function pageLink(request: FastifyRequest, replace: Record<string, string>): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  for (const name of [...url.searchParams.keys()]) {
    const lower = name.toLowerCase();
    if (pagingParameters.includes(lower) || credentialParameters.includes(lower)) url.searchParams.delete(name);
  }
  for (const [name, value] of Object.entries(replace)) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * The seed's paging object, `{next, previous}`, each link null when there is no such page: one
 * shape for a typed client to decode on every page (docs/rest-reference.md, "Paging").
 */
function paging(next: string | null, previous: string | null) {
  return { next, previous };
}

/**
 * members/login answers as the seed's sample shows it: an empty array when there is neither a next
 * nor a previous page, the object otherwise.
 */
function loginPaging(links: { next: string | null; previous: string | null }) {
  return links.next || links.previous ? links : [];
}

/** Links that page by `limit=offset,n`, for the orders that have no key to continue from. */
function offsetPaging(request: FastifyRequest, params: Params, hasNext: boolean, hasPrevious = params.limit().offset > 0) {
  const { offset, limit } = params.limit();
  const next = hasNext ? pageLink(request, { limit: `${offset + limit},${limit}` }) : null;
  const previous = hasPrevious ? pageLink(request, { limit: `${Math.max(0, offset - limit)},${limit}` }) : null;
  return paging(next, previous);
}

const sortOf = (params: Params) => params.oneOf('sort', ['ASC', 'DESC'] as const) ?? 'DESC';

function baseVariables(params: Params, orderBy: MemberOrder, extra: Partial<ListMembersQueryVariables> = {}): ListMembersQueryVariables {
  return {
    ...pageOf(params),
    filter: memberFilterOf(params),
    window: windowOf(params),
    orderBy,
    sort: sortOf(params),
    withScore: false,
    withExtended: false,
    withTotal: params.boolean('totalmembercount'),
    ...extra,
  };
}

function listBody(items: unknown[], data: ListMembersQuery, paged: unknown) {
  const body: Record<string, unknown> = { totalSize: items.length, items, paging: paged };
  if (data.members.totalCount !== undefined) body.totalmembercount = data.members.totalCount;
  return body;
}

const orders: Record<string, MemberOrder> = { score: 'SCORE', created: 'CREATED', lastlogin: 'LAST_LOGIN' };

/** `score_lessthan` / `score_greaterthan` with `after` / `before`: a position in the score ranking. */
function scorePosition(params: Params): Pick<ListMembersQueryVariables, 'from'> {
  const below = params.int('score_lessthan', { min: 0 });
  const above = params.int('score_greaterthan', { min: 0 });
  const after = params.int('after', { min: 0, max: maxIntegerId });
  const before = params.int('before', { min: 0, max: maxIntegerId });
  const sort = sortOf(params);
  // Walking the ranking's direction is "after"; against it, "before".
  const forwardScore = sort === 'DESC' ? below : above;
  const backwardScore = sort === 'DESC' ? above : below;
  // No listing holds a score past GraphQL's Int: a bound above it reads as the bound itself.
  const at = (points: number, memberId: number, backward: boolean) => ({ from: { points: Math.min(points, GRAPHQL_MAX_INT), memberId, before: backward } });
  if (before !== undefined && backwardScore !== undefined) return at(backwardScore, before, true);
  if (after !== undefined && forwardScore !== undefined) return at(forwardScore, after, false);
  if (below !== undefined || above !== undefined || after !== undefined || before !== undefined) {
    throw invalidParameter('score_lessthan', 'page with the paging links: score_lessthan with after, or score_greaterthan with before (the other way round when sort=ASC)');
  }
  return {};
}

export const activeMembersRoute = defineRoute({
  methods: ['GET'],
  path: '/members/active',
  description:
    'Most active members: members with their profile, ordered by score within the window (or by `order_by` Created or LastLogin). Default window one week, at most six months; the paging links carry the position in the ranking.',
  response: 'ListingPageArray',
  document: ListMembersDocument,
  variables: (params) => {
    const order = params.string('order_by')?.toLowerCase();
    // Own keys only: `constructor` or `toString` would otherwise find Object.prototype's.
    const orderBy = order === undefined ? 'SCORE' : Object.hasOwn(orders, order) ? orders[order] : undefined;
    if (!orderBy) throw invalidParameter('order_by', 'expected Score, Created or LastLogin');
    return baseVariables(params, orderBy, { withScore: true, ...dottedExtended(params), ...(orderBy === 'SCORE' ? scorePosition(params) : {}) });
  },
  shape: (data, params, request) => {
    const { members } = data;
    const items = members.edges.map((edge) => activeItem(edge.node, members.brand, params));
    const scoreOrder = !params.string('order_by') || params.string('order_by')?.toLowerCase() === 'score';
    const sort = sortOf(params);
    const first = members.edges[0]?.node;
    const last = members.edges.at(-1)?.node;
    const scoreOf = (node: ListingNode | undefined) => String(node?.score?.points ?? 0);
    const [forward, backward] = sort === 'DESC' ? ['score_lessthan', 'score_greaterthan'] : ['score_greaterthan', 'score_lessthan'];
    if (!scoreOrder) return [listBody(items, data, offsetPaging(request, params, members.pageInfo.hasNextPage && Boolean(last), members.pageInfo.hasPreviousPage && Boolean(first)))];
    const { limit } = params.limit();
    const next = members.pageInfo.hasNextPage && last ? pageLink(request, { [forward]: scoreOf(last), after: last.id, limit: String(limit) }) : null;
    const previous = members.pageInfo.hasPreviousPage && first ? pageLink(request, { [backward]: scoreOf(first), before: first.id, limit: String(limit) }) : null;
    return [listBody(items, data, paging(next, previous))];
  },
});

function idPosition(params: Params): Pick<ListMembersQueryVariables, 'from'> {
  // before overrides after, as the seed says.
  const before = params.int('before', { min: 0, max: maxIntegerId });
  if (before !== undefined) return { from: { memberId: before, before: true } };
  const after = params.int('after', { min: 0, max: maxIntegerId });
  return after !== undefined ? { from: { memberId: after, before: false } } : {};
}

function idPagedShape(data: ListMembersQuery, params: Params, request: FastifyRequest) {
  const { members } = data;
  const items = members.edges.map((edge) => trimmed(listingItem(edge.node), params));
  const first = members.edges[0]?.node;
  const last = members.edges.at(-1)?.node;
  const { limit } = params.limit();
  const next = members.pageInfo.hasNextPage && last ? pageLink(request, { after: last.id, limit: String(limit) }) : null;
  const previous = members.pageInfo.hasPreviousPage && first ? pageLink(request, { before: first.id, limit: String(limit) }) : null;
  return listBody(items, data, paging(next, previous));
}

export const allMembersRoute = defineRoute({
  methods: ['GET'],
  path: '/members/all',
  description: 'All members, by id. `after` and `before` page by member id; `extended=1` adds the extended node.',
  response: 'ListingPage',
  document: ListMembersDocument,
  variables: (params) =>
    baseVariables(params, 'ID', {
      sort: 'ASC',
      withExtended: extendedVariables(params).extended,
      extendedFields: extendedVariables(params).extendedFields,
      ...idPosition(params),
    }),
  shape: idPagedShape,
});

export const loginMembersRoute = defineRoute({
  methods: ['GET'],
  path: '/members/login',
  description: 'Members by last login within the window. Default window one week, at most six months.',
  response: 'LoginListingPage',
  document: ListMembersDocument,
  variables: (params) => {
    return baseVariables(params, 'LAST_LOGIN', { withScore: true, ...dottedExtended(params) });
  },
  shape: (data, params, request) => {
    const { members } = data;
    const items = members.edges.map((edge) => activeItem(edge.node, members.brand, params));
    return listBody(items, data, loginPaging(offsetPaging(request, params, members.pageInfo.hasNextPage)));
  },
});

export const extendedMembersRoute = defineRoute({
  methods: ['GET'],
  path: '/members/extended',
  description: 'Members ordered by a field of their extended node (`order_by=extended.<field>`).',
  response: 'ListingPage',
  examples: { order_by: 'extended.points' },
  document: ListMembersDocument,
  variables: (params) => {
    return baseVariables(params, 'EXTENDED', {
      orderField: params.requiredString('order_by'),
      sort: sortOf(params),
      withExtended: true,
      extendedFields: extendedVariables(params).extendedFields,
    });
  },
  shape: (data, params, request) => {
    const { members } = data;
    const items = members.edges.map((edge) => trimmed(listingItem(edge.node), params));
    return listBody(items, data, offsetPaging(request, params, members.pageInfo.hasNextPage));
  },
});

export const listingRoutes = [activeMembersRoute, allMembersRoute, loginMembersRoute, extendedMembersRoute];
