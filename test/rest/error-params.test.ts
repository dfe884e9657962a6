import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import type { RestParams } from '../support/rest.js';

/**
 * The same failure on both surfaces: GraphQL names the argument or input field as schema.graphql
 * spells it, REST the parameter its caller sent (rest/error-params.ts and the routes' errorParam).
 */
let t: TestGateway;
let app: Tenant;
let memberId: string;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  const registered = await t.rest(app, 'POST', '/member/register', { service: 'email', email: `names-${Date.now()}@example.com`, password: 'correct horse' });
  memberId = String(registered.json[0].data.ID);
});
afterAll(() => t.close());

async function graphqlError(query: string, variables?: Record<string, unknown>) {
  const { body } = await t.graphql(app.apiKey, query, variables);
  expect(body.errors?.length, JSON.stringify(body)).toBeGreaterThan(0);
  return { message: body.errors[0].message as string, ...body.errors[0].extensions };
}

async function restError(method: 'GET' | 'POST', path: string, params: RestParams = {}) {
  const response = await t.rest(app, method, path, params);
  expect(response.status, response.body).toBeGreaterThanOrEqual(400);
  return response.json.error;
}

describe('error parameter names', () => {
  it("a merge: intoId and fromId on GraphQL; on REST the path id for either unknown member, from for the other member's errors", async () => {
    const merge = 'mutation($into: ID!, $from: ID!) { mergeMembers(intoId: $into, fromId: $from, fromAccessToken: "nope") { member { id } } }';
    expect(await graphqlError(merge, { into: '999999', from: memberId })).toMatchObject({ code: 'NOT_FOUND', param: 'intoId' });
    expect(await restError('POST', '/member/999999/merge', { from: memberId, accesstoken: 'nope' })).toMatchObject({ code: 5, param: 'id' });
    expect(await graphqlError(merge, { into: memberId, from: '999999' })).toMatchObject({ code: 'NOT_FOUND', param: 'fromId' });
    expect(await restError('POST', `/member/${memberId}/merge`, { from: 999999, accesstoken: 'nope' })).toMatchObject({ code: 5, param: 'id' });
    expect(await graphqlError(merge, { into: memberId, from: memberId })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'fromId' });
    expect(await restError('POST', `/member/${memberId}/merge`, { from: memberId, accesstoken: 'nope' })).toMatchObject({ code: 4, param: 'from' });
  });

  it('a segment brand: brandId on GraphQL, brandid on REST, the path id on /brand/:id/segments', async () => {
    const created = await graphqlError(`mutation { createSegment(input: { name: "Named", brandId: "999999" }) { id } }`);
    expect(created).toMatchObject({ code: 'NOT_FOUND', param: 'brandId' });
    expect(await restError('POST', '/segment/create', { name: 'Named', brandid: 999999 })).toMatchObject({ code: 5, param: 'brandid' });

    const malformed = await graphqlError(`mutation { createSegment(input: { name: "Named", brandId: "x" }) { id } }`);
    expect(malformed).toMatchObject({ code: 'INVALID_PARAMETER', param: 'brandId', message: "The parameter 'brandId' is invalid: expected a numeric id from 1 to 2147483647." });
    expect(await restError('POST', '/segment/create', { name: 'Named', brandid: 'x' })).toMatchObject({
      code: 4,
      param: 'brandid',
      message: "The parameter 'brandid' is invalid: expected a numeric id from 1 to 2147483647.",
    });

    expect(await graphqlError(`{ segments(brandId: "999999") { id } }`)).toMatchObject({ code: 'NOT_FOUND', param: 'brandId' });
    expect(await restError('GET', '/brand/999999/segments')).toMatchObject({ code: 5, param: 'id' });
  });

  it("an opt-in's segment: segmentId on GraphQL, segmentid or segment on REST, as sent", async () => {
    const unknown = await graphqlError(`mutation($input: OptInInput!) { optIn(input: $input) { id } }`, { input: { memberId, segmentId: '999999' } });
    expect(unknown).toMatchObject({ code: 'NOT_FOUND', param: 'segmentId' });
    expect(await restError('POST', '/optin', { id: memberId, segmentid: 999999 })).toMatchObject({ code: 5, param: 'segmentid' });
    expect(await restError('POST', '/optin', { id: memberId, segment: 999999 })).toMatchObject({ code: 5, param: 'segment' });

    const noMember = await graphqlError(`mutation($input: OptInInput!) { optIn(input: $input) { id } }`, { input: { segmentId: '999999' } });
    expect(noMember).toMatchObject({ code: 'MISSING_PARAMETER', param: 'memberId' });
    expect(await restError('POST', '/optin', { segmentid: 999999 })).toMatchObject({ code: 3, param: 'id' });
    const optIn = `mutation($memberId: ID!) { optIn(input: { memberId: $memberId }) { id } }`;
    expect(await graphqlError(optIn, { memberId: 'abc' })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'memberId', message: "The parameter 'memberId' is invalid: expected a member id." });
    expect(await restError('POST', '/optin', { id: 'abc' })).toMatchObject({ code: 4, param: 'id', message: "The parameter 'id' is invalid: expected a member id." });
    expect(await graphqlError(optIn, { memberId: '999999' })).toMatchObject({ code: 'NOT_FOUND', param: 'memberId' });
    expect(await restError('POST', '/optin', { id: 999999 })).toMatchObject({ code: 5, param: 'id' });
  });

  it('registration: authToken, network and memberId on GraphQL, authtoken, service and id on REST', async () => {
    const register = `mutation($credentials: ServiceCredentialsInput!) { registerMember(input: { credentials: $credentials }) { created } }`;
    expect(await graphqlError(register, { credentials: { network: 'spotify', uid: 'u1' } })).toMatchObject({ code: 'MISSING_PARAMETER', param: 'authToken' });
    expect(await restError('POST', '/member/register', { service: 'spotify', uid: 'u1' })).toMatchObject({ code: 3, param: 'authtoken' });
    expect(await graphqlError(register, { credentials: { network: 'myspace', uid: 'u1' } })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'network' });
    expect(await restError('POST', '/member/register', { service: 'myspace', uid: 'u1' })).toMatchObject({ code: 4, param: 'service' });

    const attach = `mutation($memberId: ID!) { attachService(memberId: $memberId, credentials: { network: "email", email: "a@example.com", password: "correct horse" }) { created } }`;
    expect(await graphqlError(attach, { memberId: '999999' })).toMatchObject({ code: 'NOT_FOUND', param: 'memberId' });
    expect(await restError('POST', '/member/999999/register', { service: 'email', email: 'a@example.com', password: 'correct horse' })).toMatchObject({ code: 5, param: 'id' });
    expect(await graphqlError(attach, { memberId: 'abc' })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'memberId' });
    expect(await restError('POST', '/member/register', { id: 'abc', service: 'email', email: 'a@example.com', password: 'correct horse' })).toMatchObject({
      code: 4,
      param: 'id',
      message: "The parameter 'id' is invalid: expected a member id.",
    });
  });

  it("an activity's short name: shortName on GraphQL, shortname on REST, in the message too", async () => {
    const long = 'x'.repeat(101);
    const graphql = await graphqlError(`mutation($input: ActivityInput!) { createActivity(input: $input) { id } }`, { input: { name: 'Listened', type: 'LISTENED', shortName: long } });
    expect(graphql).toMatchObject({ code: 'INVALID_PARAMETER', param: 'shortName' });
    expect(graphql.message).toContain("The parameter 'shortName'");
    const rest = await restError('POST', '/activity/create', { name: 'Listened', type: 'Listened', shortname: long });
    expect(rest).toMatchObject({ code: 4, param: 'shortname', message: graphql.message.replace("'shortName'", "'shortname'") });
  });
});
