import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { createActivity, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';

/**
 * Every connection of the schema in one style: edges, nodes, pageInfo, totalCount and
 * first/after/last/before; a size over the maximum refused with the argument named.
 */
let t: TestGateway;
let app: Tenant;
let brandIds: number[];
let memberIds: number[];

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  brandIds = [];
  for (const name of ['A', 'B', 'C', 'D', 'E', 'F', 'G']) brandIds.push(await insertBrand(t, app, `Brand ${name}`));
  memberIds = await insertMembers(
    t,
    app,
    Array.from({ length: 9 }, () => ({ country: 'GB' })),
  );
  const activities = [];
  for (const brandId of brandIds) activities.push(await createActivity(t, app, { name: `Listen ${brandId}`, type: 'Listened', service: 'spotify', brandid: brandId, points: 1 }));
  // Brand i has i + 1 active members: a crossover ranking without ties.
  await record(
    t,
    app,
    activities.flatMap((activityId, index) => memberIds.slice(0, index + 1).map((memberId, at) => ({ activityId, memberId, completedAt: hoursAgo(1 + at + index) }))),
  );
});
afterAll(() => t.close());

async function data(query: string, variables: Record<string, unknown> = {}) {
  const result = await t.graphql(app.apiKey, query, variables);
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data;
}

async function refused(query: string, variables: Record<string, unknown> = {}) {
  const result = await t.graphql(app.apiKey, query, variables);
  expect(result.body.data).toBeNull();
  return result.body.errors[0].extensions as { code: string; param: string };
}

interface Connection<T> {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  edges: { cursor: string; node: T }[];
  nodes: T[];
}

/** Forward pages of `size`, then backward pages of `size` from the end: the same items, in the same order. */
async function bothWays<T>(read: (variables: Record<string, unknown>) => Promise<Connection<T>>, size: number) {
  const forward: T[] = [];
  let after: string | null = null;
  for (;;) {
    const page: Connection<T> = await read({ first: size, after });
    expect(page.nodes).toEqual(page.edges.map((edge) => edge.node));
    forward.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  const backward: T[] = [];
  let before: string | null = null;
  for (;;) {
    const page: Connection<T> = await read({ last: size, before });
    expect(page.pageInfo.hasNextPage).toBe(before !== null);
    backward.unshift(...page.nodes);
    if (!page.pageInfo.hasPreviousPage) break;
    before = page.pageInfo.startCursor;
  }
  return { forward, backward };
}

describe('brands', () => {
  const query = `query($first: Int, $last: Int, $after: String, $before: String, $offset: Int) {
    brands(first: $first, last: $last, after: $after, before: $before, offset: $offset) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } nodes { id }
    }
  }`;
  const read = async (variables: Record<string, unknown>) => (await data(query, variables)).brands as Connection<{ id: string }>;

  it('reads backward as forward, reversed, and refuses what it cannot serve', async () => {
    const { forward, backward } = await bothWays(read, 3);
    expect(forward.map((node) => Number(node.id))).toEqual(brandIds);
    expect(backward).toEqual(forward);
    expect((await read({ last: 2 })).totalCount).toBe(7);
    expect(await refused(query, { first: 1001 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    expect(await refused(query, { last: 1001 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'last' });
    expect(await refused(query, { last: 2, offset: 1 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'offset' });
    const cursor = (await read({ first: 1 })).pageInfo.endCursor;
    expect(await refused(query, { after: cursor, before: cursor })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'before' });
    // offset keeps its meaning with after: skipped from the cursor on.
    expect((await read({ first: 1, after: cursor, offset: 1 })).nodes).toEqual([{ id: String(brandIds[2]) }]);
  });
});

describe('crossover', () => {
  const query = `query($first: Int, $last: Int, $after: String, $before: String, $offset: Int) {
    crossover(first: $first, last: $last, after: $after, before: $before, offset: $offset) {
      totalCount baseMembers pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { brand { id } activeMembers } } nodes { brand { id } activeMembers }
    }
  }`;
  const read = async (variables: Record<string, unknown>) => (await data(query, variables)).crossover as Connection<{ brand: { id: string }; activeMembers: number }>;

  it('has edges and pageInfo, and pages both ways by cursor', async () => {
    const { forward, backward } = await bothWays(read, 2);
    expect(forward.map((node) => Number(node.brand.id))).toEqual([...brandIds].reverse());
    expect(forward.map((node) => node.activeMembers)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(backward).toEqual(forward);
    // The old way, offset alone, answers as before.
    expect((await read({ first: 2, offset: 2 })).nodes).toEqual(forward.slice(2, 4));
    expect(await refused(query, { first: 1001 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    const cursor = (await read({ first: 1 })).pageInfo.endCursor;
    expect(await refused(query, { after: cursor, offset: 1 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'offset' });
    expect(await refused(query, { after: 'bm90IGEgY3Vyc29y' })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'after' });
  });
});

describe('members', () => {
  const query = `query($first: Int, $last: Int, $after: String, $before: String) {
    members(orderBy: ID, sort: ASC, first: $first, last: $last, after: $after, before: $before) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } nodes { id }
    }
  }`;
  const read = async (variables: Record<string, unknown>) => (await data(query, variables)).members as Connection<{ id: string }>;

  it('has nodes, reads backward from a place with last, and refuses last without one', async () => {
    const first = await read({ first: 4 });
    expect(first.nodes).toEqual(first.edges.map((edge) => edge.node));
    expect(first.nodes.map((node) => Number(node.id))).toEqual(memberIds.slice(0, 4));
    const back = await read({ last: 2, before: first.edges[3].cursor });
    expect(back.nodes.map((node) => Number(node.id))).toEqual(memberIds.slice(1, 3));
    expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    expect(await refused(query, { last: 2 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'last' });
    expect(await refused(query, { first: 1001 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    expect(await refused(query, { last: 1001, before: first.edges[3].cursor })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'last' });
  });
});

describe('auditEvents', () => {
  const query = `query($first: Int, $last: Int, $after: String, $before: String) {
    auditEvents(first: $first, last: $last, after: $after, before: $before) {
      totalCount pageInfo { hasNextPage startCursor endCursor } edges { cursor node { id action } } nodes { id action }
    }
  }`;

  it('has edges with cursors and totalCount; reads forward only, saying so', async () => {
    // Three entries of the log: settings changed through the API.
    for (const domain of ['a.example.com', 'b.example.com', 'c.example.com']) await data('mutation($domain: String!) { whitelistDomain(domain: $domain) { id } }', { domain });
    const all = (await data(query, { first: 200 })).auditEvents as Connection<{ id: string }>;
    expect(all.totalCount).toBe(all.nodes.length);
    const page = (await data(query, { first: 1 })).auditEvents as Connection<{ id: string }>;
    expect(page.nodes).toEqual(page.edges.map((edge) => edge.node));
    expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
    expect(page.totalCount).toBe(all.totalCount);
    expect(all.totalCount).toBe(3);
    const next = (await data(query, { first: 1, after: page.edges[0].cursor })).auditEvents as Connection<{ id: string }>;
    expect(next.nodes).toEqual(all.nodes.slice(1, 2));
    expect(await refused(query, { last: 1 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'last' });
    expect(await refused(query, { before: page.pageInfo.endCursor ?? 'x' })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'before' });
    expect(await refused(query, { first: 201 })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
  });
});

describe('BrandStats.activity', () => {
  const query = `query($brandId: ID!, $first: Int, $limit: Int!) { brandStats(brandId: $brandId) { activity(first: $first, limit: $limit) { items { activityId } } } }`;

  it('takes first, and the deprecated limit as before', async () => {
    const read = async (variables: Record<string, unknown>) => (await data(query, { brandId: String(brandIds[0]), limit: 10, ...variables })).brandStats.activity.items;
    expect(await read({ first: 1 })).toHaveLength(1);
    expect(await read({ limit: 1 })).toHaveLength(1);
    expect(await read({ first: 5, limit: 1 })).toHaveLength(1);
    const tooMany = await t.graphql(app.apiKey, query, { brandId: String(brandIds[0]), first: 1001, limit: 10 });
    expect(tooMany.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    const tooManyLimit = await t.graphql(app.apiKey, query, { brandId: String(brandIds[0]), limit: 1001 });
    expect(tooManyLimit.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'limit' });
  });
});
