import { eq, sql } from 'drizzle-orm';
import { execute, getOperationAST, parse } from 'graphql';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonText } from '../../src/core/json-text.js';
import { brands, members, optins, segments } from '../../src/db/schema/index.js';
import { createContext } from '../../src/graphql/context.js';
import { getSchema } from '../../src/graphql/schema.js';
import { memberPageAnswer } from '../../src/modules/scoring/listing-json.js';
import { resolveApiKey } from '../../src/modules/tenancy/tenancy.service.js';
import { insertBrand, insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

// A plain page of members answered by one statement that builds the response (listing-json.ts)
// must answer exactly what the resolvers answer, for every selection it takes, and decline the rest.

let t: TestGateway;
let tenant: Tenant;
let other: Tenant;
const schema = await getSchema();

beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('advanced');
  other = await t.tenant('advanced');
  const ids = await insertMembers(
    t,
    tenant,
    Array.from({ length: 40 }, (_, index) => ({ network: index % 3 ? 'spotify' : 'email' })),
  );
  await insertMembers(
    t,
    other,
    Array.from({ length: 10 }, () => ({})),
  );
  const brand = await insertBrand(t, tenant, 'Listed "Brand"');
  const gone = await insertBrand(t, tenant, 'Gone Brand');
  const [segment] = await t.database.db.insert(segments).values({ accountId: tenant.accountId, brandId: brand, name: 'Front row', label: 'VIP' }).returning();
  const optIn = (memberId: number, list: { kind: 'brand' | 'segment' | 'global'; brandId?: number; segmentId?: number }, optedOutAt?: Date) =>
    t.database.db.insert(optins).values({ accountId: tenant.accountId, memberId, ...list, optedOutAt, ...(optedOutAt ? { optedInAt: new Date(optedOutAt.getTime() - 60_000) } : {}) });
  for (const id of ids.slice(0, 12)) await optIn(id, { kind: 'brand', brandId: brand });
  for (const id of ids.slice(5, 9)) await optIn(id, { kind: 'segment', segmentId: segment.id });
  for (const id of ids.slice(2, 6)) await optIn(id, { kind: 'global' });
  for (const id of ids.slice(0, 3)) await optIn(id, { kind: 'brand', brandId: gone });
  await optIn(ids[20], { kind: 'brand', brandId: gone }, new Date());
  await t.database.db.update(brands).set({ deletedAt: new Date() }).where(eq(brands.id, gone));
  // A merged member is no longer listed.
  await t.database.db.update(members).set({ mergedIntoId: ids[0] }).where(eq(members.id, ids[7]));
  await t.database.db.execute(sql`update members set first_name = null where id = ${ids[9]}`);
});
afterAll(() => t.close());

async function contextFor(apiKey: string) {
  const caller = (await resolveApiKey(t.database.db, apiKey))!;
  return createContext({ requestId: 'listing-json', log: pino({ level: 'silent' }), database: t.database, caller, identity: undefined as never, activityQueue: undefined as never });
}

/** The resolvers' answer and the statement's, or undefined when the statement declines. */
async function bothWays(source: string, variables: Record<string, unknown> = {}, apiKey = tenant.apiKey) {
  const document = parse(source);
  const operation = getOperationAST(document)!;
  // As the response carries it: times as ISO strings.
  const expected = JSON.parse(JSON.stringify(await execute({ schema, document, contextValue: await contextFor(apiKey), variableValues: variables })));
  const answer = memberPageAnswer(schema, document, operation);
  const answered = answer && (await answer(await contextFor(apiKey), variables));
  if (!answered) return { expected, actual: undefined };
  const data = answered.data as Record<string, unknown>;
  const actual = Object.fromEntries(Object.entries(data).map(([key, value]) => [key, value instanceof JsonText ? JSON.parse(value.text) : value]));
  return { expected, actual: { data: actual } };
}

const node = 'id email firstName surname username __typename services { id network userId valid __typename } optins { id kind brandId segmentId name label optedInAt optedOutAt __typename }';

describe('the plain page of members answered by one statement', () => {
  it('answers what the resolvers answer, for every selection and page it takes', async () => {
    const documents: [string, Record<string, unknown>?][] = [
      [`{ members(first: 100, orderBy: ID, sort: ASC) { edges { node { id email firstName services { network userId valid } optins { id kind } } } } }`],
      [`{ members(first: 5, orderBy: ID, sort: ASC) { __typename edges { __typename cursor node { ${node} } } pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor } } }`],
      [`{ members(first: 7, orderBy: ID) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`],
      [
        `{ page: members(orderBy: ID, sort: ASC) { list: edges { at: cursor member: node { key: id mail: email links: services { net: network } lists: optins { what: kind since: optedInAt } } } info: pageInfo { more: hasNextPage } } }`,
      ],
      [
        `query ($first: Int!, $sort: SortDirection!, $order: MemberOrder!) { members(first: $first, orderBy: $order, sort: $sort) { edges { node { ${node} } } pageInfo { hasNextPage startCursor endCursor } } }`,
        { first: 13, sort: 'ASC', order: 'ID' },
      ],
      [`query ($first: Int!, $sort: SortDirection!) { members(first: $first, orderBy: ID, sort: $sort) { edges { node { ${node} } } } }`, { first: 13, sort: 'DESC' }],
      [`{ members(first: 1000, orderBy: ID, sort: ASC) { edges { node { id optins { kind name label } } } pageInfo { hasNextPage hasPreviousPage } } }`],
      [`{ members(first: 2, orderBy: ID, sort: ASC) { pageInfo { hasNextPage } } }`],
      // The edges' ranks (MemberEdge.rank, rankCapped): the page's places.
      [`{ members(first: 9, orderBy: ID, sort: ASC) { edges { rank rankCapped cursor node { id } } } }`],
      [`{ members(first: 9, orderBy: ID) { edges { place: rank capped: rankCapped } } }`],
    ];
    for (const [source, variables] of documents) {
      const { expected, actual } = await bothWays(source, variables);
      expect(expected.errors, source).toBeUndefined();
      expect(actual, source).toEqual(expected);
    }
    // Paging forwards by cursor, to the last page and past it.
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { expected, actual } = await bothWays(
        'query ($after: String) { members(first: 6, orderBy: ID, sort: ASC, after: $after) { edges { cursor rank rankCapped node { id optins { id } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }',
        { after },
      );
      expect(actual).toEqual(expected);
      // After a cursor the ranks go on from the page before: 1 to 39 over the whole walk.
      const ranks = (expected.data as { members: { edges: { rank: number }[] } }).members.edges.map((edge) => edge.rank);
      expect(ranks).toEqual(ranks.map((_, index) => pages * 6 + index + 1));
      pages += 1;
      const info = (expected.data as { members: { pageInfo: { hasNextPage: boolean; endCursor: string | null } } }).members.pageInfo;
      if (!info.hasNextPage) break;
      after = info.endCursor;
    }
    expect(pages).toBe(7); // 39 listed members (one merged away), 6 per page
  });

  it('lists only the caller account’s members', async () => {
    const { actual } = await bothWays('{ members(first: 100, orderBy: ID, sort: ASC) { edges { node { id } } } }', {}, other.apiKey);
    expect((actual!.data.members as { edges: unknown[] }).edges).toHaveLength(10);
    const { actual: own } = await bothWays('{ members(first: 100, orderBy: ID, sort: ASC) { edges { node { id } } } }');
    const ids = (answer: typeof actual) => (answer!.data.members as { edges: { node: { id: string } }[] }).edges.map((edge) => edge.node.id);
    expect(ids(actual).filter((id) => ids(own).includes(id))).toEqual([]);
  });

  it('leaves every other document and request to the resolvers', async () => {
    const declined = [
      '{ members(first: 5) { edges { node { id } } } }', // by score
      '{ members(first: 5, orderBy: ID) { totalCount } }',
      '{ members(first: 5, orderBy: ID) { edges { node { id uuid } } } }',
      '{ members(first: 5, orderBy: ID) { edges { node { id services { id token } } } } }',
      '{ members(first: 5, orderBy: ID) { edges { node { id optins { brand { name } } } } } }',
      '{ members(first: 5, orderBy: ID, filter: { countries: ["GB"] }) { edges { node { id } } } }',
      '{ members(first: 5, orderBy: ID, offset: 2) { edges { node { id } } } }',
      '{ members(first: 5000, orderBy: ID, sort: ASC) { edges { node { id } } } }', // refused by the resolvers: more than 1000
      '{ members(first: 5, orderBy: ID) { nodes { id } } }',
      '{ members(first: 5, orderBy: ID) { edges { node { ...fields } } } } fragment fields on Member { id }',
      '{ members(first: 5, orderBy: ID) { edges { node { id @include(if: true) } } } }',
      '{ members(first: 5, orderBy: ID) { edges { node { id id: email } } } }',
      '{ application { id } members(first: 5, orderBy: ID) { edges { node { id } } } }',
      // The listing's figures on the edges need its window: the resolvers read them.
      '{ members(first: 5, orderBy: ID) { edges { rank score { points } } } }',
      '{ members(first: 5, orderBy: ID) { edges { lastActivity { id } } } }',
    ];
    for (const source of declined) {
      const document = parse(source);
      const plan = memberPageAnswer(schema, document, getOperationAST(document)!);
      expect(plan && (await plan(await contextFor(tenant.apiKey), {})), source).toBeUndefined();
    }
    const variablesDocument = parse(
      'query ($first: Int!, $after: String, $sort: SortDirection!, $order: MemberOrder!) { members(first: $first, orderBy: $order, sort: $sort, after: $after) { edges { node { id } } } }',
    );
    const answer = memberPageAnswer(schema, variablesDocument, getOperationAST(variablesDocument)!)!;
    const context = await contextFor(tenant.apiKey);
    const base = { first: 5, after: null, sort: 'ASC', order: 'ID' };
    expect(await answer(context, base)).toBeDefined();
    for (const variables of [
      { ...base, first: 0 }, // the resolvers' error
      { ...base, first: 'five' },
      { ...base, order: 'SCORE' },
      { ...base, after: 'not a cursor' },
      { ...base, sort: 'DESC', after: Buffer.from('{"i":3}').toString('base64url') },
    ]) {
      expect(await answer(context, variables), JSON.stringify(variables)).toBeUndefined();
    }
    // A member's token or no key: the resolvers' errors.
    expect(await answer({ ...context, caller: { kind: 'anonymous' } }, base)).toBeUndefined();
  });

  it('answers a repeated document over HTTP in one statement, as the first (resolved) answer did', async () => {
    const query = `{ members(first: 25, orderBy: ID, sort: ASC) { edges { cursor node { ${node} } } pageInfo { hasNextPage endCursor } } }`;
    const ask = () => t.request({ method: 'POST', url: '/graphql', headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, payload: { query } });
    const first = await ask(); // graphql-js: a document is compiled (and planned) on its second use
    const second = await ask();
    const third = await ask();
    expect(first.json().errors).toBeUndefined();
    expect(second.json()).toEqual(first.json());
    expect(third.json()).toEqual(first.json());
    expect(Number(third.headers['x-sql-round-trips'])).toBe(1);
    // PostgreSQL's own JSON layout: the response was not made by serialising objects.
    expect(third.body).not.toBe(first.body);
  });
});
