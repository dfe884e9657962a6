import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

// A query is run by graphql-js on its first use and compiled (graphql-jit) from its second:
// whatever the path, the caller sees the same data, errors, limits and REST bodies.
let t: TestGateway;
let app: Tenant;
let basic: Tenant;
let memberId: string;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  const { body } = await t.graphql(
    app.apiKey,
    `mutation {
    registerMember(input: { credentials: { network: "email", email: "jit@example.com", password: "correct horse" }, profile: { firstName: "Jit" } }) { member { id } }
  }`,
  );
  memberId = body.data.registerMember.member.id;
});
afterAll(() => t.close());

/** The same request three times: the first runs through graphql-js, the others compiled. */
async function thrice(apiKey: string, query: string, variables?: Record<string, unknown>) {
  const responses = [];
  for (let i = 0; i < 3; i += 1) {
    const { status, body } = await t.graphql(apiKey, query, variables);
    for (const error of body.errors ?? []) delete error.extensions.requestId;
    responses.push({ status, body });
  }
  expect(responses[1]).toEqual(responses[0]);
  expect(responses[2]).toEqual(responses[0]);
  return responses[0];
}

describe('compiled execution of repeated documents', () => {
  it('answers the same data', async () => {
    const { status, body } = await thrice(
      app.apiKey,
      `query ($id: ID!) {
      member(lookup: { id: $id }) { id firstName age geo { country } services { network userId valid lastUpdated domains } optins { id } }
    }`,
      { id: memberId },
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.member).toMatchObject({ id: memberId, firstName: 'Jit', age: null, services: [{ network: 'email', userId: 'jit@example.com', valid: true }] });
  });

  it('applies the defaults of variables left out, non-null ones too', async () => {
    const { status, body } = await thrice(
      app.apiKey,
      `query ($id: ID! = "${memberId}", $first: Int! = 1, $sort: SortDirection! = ASC) {
      member(lookup: { id: $id }) { id } members(first: $first, orderBy: ID, sort: $sort) { edges { node { id } } }
    }`,
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({ member: { id: memberId }, members: { edges: [{ node: { id: memberId } }] } });
  });

  it('answers the same errors, with their codes, paths and locations', async () => {
    const missing = await thrice(app.apiKey, 'query ($id: ID!) { member(lookup: { id: $id }) { id } }', { id: '999999' });
    expect(missing.body.errors[0]).toMatchObject({ path: ['member'], locations: [{ line: 1, column: 20 }], extensions: { code: 'NOT_FOUND', aeCode: 5 } });
    const plan = await thrice(basic.apiKey, '{ activityCounts { count } }');
    expect(plan.body.errors[0].extensions).toMatchObject({ code: 'PLAN_REQUIRED' });
    const variables = await thrice(app.apiKey, 'query ($id: ID!) { member(lookup: { id: $id }) { id } }', { id: null });
    expect(variables.status).toBe(400);
    expect(variables.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', aeCode: 4 });
  });

  it('keeps the cost limit', async () => {
    const { status, body } = await thrice(app.apiKey, '{ members(first: 1000) { edges { node { topBrands(first: 100) { name } } } } }');
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors[0]).toMatchObject({ message: expect.stringMatching(/costs \d+, above the limit/), extensions: { aeCode: 4 } });
  });

  it('answers a REST route the same on its first call and after', async () => {
    const bodies = [];
    for (let i = 0; i < 3; i += 1) bodies.push((await t.rest(null, 'GET', `/member/${memberId}`, { apikey: app.apiKey })).json);
    expect(bodies[0].data.FirstName).toBe('Jit');
    expect(bodies[1]).toEqual({ ...bodies[0], jwt: expect.any(String) });
    expect(bodies[2]).toEqual({ ...bodies[0], jwt: expect.any(String) });
    const missing = await t.rest(null, 'GET', '/member/999999', { apikey: app.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 5, type: 'NOT_FOUND' });
  });
});
