import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { activityRecords } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestGateway({ GRAPHQL_MAX_DEPTH: '10', GRAPHQL_MAX_ALIASES: '2', GRAPHQL_MAX_COST: '10' });
  tenant = await t.tenant('basic');
});
afterAll(() => t.close());

/** An error body without its request ids, which differ from one request to the next. */
const withoutRequestIds = (body: { errors?: any }) => ({ ...body, errors: body.errors.map(({ extensions: { requestId: _id, ...rest }, ...error }: any) => ({ ...error, extensions: rest })) });

const usageArgs = 'interval: HOUR, start: "2026-11-01T00:00:00Z", period: { amount: 1, unit: HOUR }';

describe('GraphQL limits', () => {
  it('accepts an operation within every limit', async () => {
    const { status, body } = await t.graphql(tenant.apiKey, '{ application { id name } }');
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });

  it('refuses a query nested deeper than GRAPHQL_MAX_DEPTH', async () => {
    // The REST routes' documents need the default depth, 10, so the gateway starts with no less.
    const deep = '{ members(first: 1) { edges { node { activities(first: 1) { edges { node { member { activities(first: 1) { edges { node { id } } } } } } } } } } }';
    const { status, body } = await t.graphql(tenant.apiKey, deep);
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors[0].message).toMatch(/depth/i);
    expect(body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', aeCode: 4 });
  });

  it('refuses more aliases than GRAPHQL_MAX_ALIASES', async () => {
    const { status, body } = await t.graphql(tenant.apiKey, '{ a: application { id } b: application { id } c: application { id } }');
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(/aliases/i);
  });

  it('refuses an operation costing more than GRAPHQL_MAX_COST, before running it', async () => {
    const { body } = await t.graphql(tenant.apiKey, `{ usage(${usageArgs}) { start end timezone interval hits buckets { start hits } applications { name hits } } }`);
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].message).toMatch(/costs \d+, above the limit of 10/);
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4 });
  });

  it('counts the cost of the operation named, not of every operation in the document', async () => {
    const document = `query Small { application { id } }
      query Large { usage(${usageArgs}) { start end timezone interval hits buckets { start hits } applications { name hits } } }`;
    const { body } = await t.graphql(tenant.apiKey, document, undefined, { operationName: 'Small' });
    expect(body).toEqual({ data: { application: { id: String(tenant.applicationId) } } });
  });

  it('prices a repeated document again when a page size changes, and checks its variables every time', async () => {
    const page = 'query ($n: Int!) { members(first: $n, orderBy: ID) { edges { cursor } } }';
    for (const [n, refused] of [
      [2, false],
      [5, true],
      [2, false],
      [5, true],
    ] as const) {
      const { body } = await t.graphql(tenant.apiKey, page, { n });
      expect(body.errors?.[0]?.message ?? '', `first: ${n}`).toMatch(refused ? /above the limit of 10/ : /^$/);
    }
    const lookup = 'query ($id: ID!) { member(lookup: { id: $id }) { id } }';
    const first = await t.graphql(tenant.apiKey, lookup, { id: null }); // priced afresh: the estimator finds the wrong variable
    await t.graphql(tenant.apiKey, lookup, { id: '1' }); // now priced and kept
    const again = await t.graphql(tenant.apiKey, lookup, { id: null }); // the kept price, the variables checked again
    expect(again.status).toBe(400);
    expect(again.status).toBe(first.status);
    expect(withoutRequestIds(again.body)).toEqual(withoutRequestIds(first.body));
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', aeCode: 4 });
  });

  it("leaves a mutation's wrong variables to execution, which refuses them alike before and after the price is kept", async () => {
    const advanced = await t.tenant('advanced'); // batches need the advanced plan
    const record = 'mutation ($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }';
    const wrong = {
      input: [
        { activityId: { not: 'an id' }, memberId: '1' },
        { activityId: '1', memberId: '1', member: { id: '1', email: 'a@example.com' } },
      ],
    };
    const first = await t.graphql(advanced.apiKey, record, wrong); // not priced: execution refuses the variables
    expect((await t.graphql(advanced.apiKey, record, { input: [] })).body).toEqual({ data: { recordActivities: { created: 0 } } }); // now priced and kept
    const again = await t.graphql(advanced.apiKey, record, wrong); // the kept price: execution refuses them again
    expect(again.status).toBe(400);
    expect(first.status).toBe(400);
    expect(withoutRequestIds(again.body)).toEqual(withoutRequestIds(first.body));
    // Both of the input's faults, the @oneOf included, each the caller's error.
    expect(again.body.errors.map((error: any) => error.extensions.code)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT']);
    expect(again.body.errors.map((error: any) => error.message).join('\n')).toMatch(/ID cannot represent[\s\S]*Exactly one key must be specified for OneOf type "MemberRef"/);
    const stored = await t.database.db.select({ n: count() }).from(activityRecords).where(eq(activityRecords.accountId, advanced.accountId));
    expect(stored).toEqual([{ n: 0 }]);
  });
});
