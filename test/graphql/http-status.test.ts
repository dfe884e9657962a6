import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertBrand, insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/** GraphQL over HTTP: 200 once a request is executed, whatever its field errors; 4xx before execution. */
let t: TestGateway;
let tenant: Tenant;
let other: Tenant;

describe('HTTP status of /graphql answers', () => {
  beforeAll(async () => {
    t = await startTestGateway();
    tenant = await t.tenant();
    other = await t.tenant('basic');
  });
  afterAll(async () => t?.close());

  it("answers 200 with the error in errors when a lookup finds nothing, or finds another tenant's", async () => {
    const [theirs] = await insertMembers(t, other, [{ email: 'theirs@example.net' }]);
    for (const id of ['999999999', String(theirs)]) {
      const answer = await t.graphql(tenant.apiKey, 'query($id: ID!) { member(lookup: { id: $id }) { id } }', { id });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(answer.text).not.toContain('theirs@example.net');
    }
  });

  it("keeps the data of the other fields when lookups by id find nothing, or find another tenant's", async () => {
    const [theirMember] = await insertMembers(t, other, [{ email: 'theirs@example.com' }]);
    const theirBrand = await insertBrand(t, other, 'Their brand');
    const lookups = `query($brand: ID!, $member: ID!) {
      application { name }
      brand(id: $brand) { id name }
      member(lookup: { id: $member }) { id email }
      brandStats(brandId: $brand) { brandId }
      presaveJob(segmentId: "999999997", id: "999999996") { id }
    }`;
    const answers = [];
    for (const [brand, member] of [
      ['999999999', '999999998'],
      [String(theirBrand), String(theirMember)],
    ]) {
      const answer = await t.graphql(tenant.apiKey, lookups, { brand, member });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data).toEqual({ application: { name: expect.any(String) }, brand: null, member: null, brandStats: null, presaveJob: null });
      expect(answer.body.data.application.name).not.toBe('');
      // Errors come in the order the fields finish: sorted by path here.
      const errors: { message: string; path: string[]; extensions: { code: string; aeCode: number; param: string } }[] = answer.body.errors;
      errors.sort((a, b) => a.path[0].localeCompare(b.path[0]));
      expect(errors.map((error) => [error.path, error.extensions])).toEqual([
        [['brand'], expect.objectContaining({ code: 'NOT_FOUND', aeCode: 5, param: 'id' })],
        [['brandStats'], expect.objectContaining({ code: 'NOT_FOUND', aeCode: 5, param: 'brandId' })],
        [['member'], expect.objectContaining({ code: 'NOT_FOUND', aeCode: 5, param: 'id' })],
        [['presaveJob'], expect.objectContaining({ code: 'NOT_FOUND', aeCode: 5 })],
      ]);
      expect(answer.text).not.toContain('Their brand');
      expect(answer.text).not.toContain('theirs@example.com');
      answers.push(errors.map(({ message, path, extensions }) => ({ message, path, code: extensions.code, aeCode: extensions.aeCode, param: extensions.param })));
    }
    // Another tenant's ids answer exactly what ids of nothing answer: nothing tells them apart.
    expect(answers[1]).toEqual(answers[0]);
  });

  it("answers 200 for a refused sign-in: NO_ACCOUNT and WRONG_PASSWORD are the field's answer, not the request's credential", async () => {
    const email = `status-${Date.now()}@example.com`;
    const registered = await t.graphql(tenant.apiKey, `mutation { registerMember(input: { credentials: { network: "email", email: "${email}", password: "correct horse" } }) { created } }`);
    expect(registered.body.errors).toBeUndefined();
    const signIn = (address: string, password: string) =>
      t.graphql(tenant.apiKey, 'mutation($email: String!, $password: String!) { login(input: { credentials: { network: "email", email: $email, password: $password } }) { jwt } }', {
        email: address,
        password,
      });
    for (const [answer, code] of [
      [await signIn('nobody-status@example.com', 'whatever1'), 'NO_ACCOUNT'],
      [await signIn(email, 'wrong password'), 'WRONG_PASSWORD'],
    ] as const) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toMatchObject({ data: null, errors: [{ path: ['login'], extensions: { code } }] });
    }
    // The same refusals as user errors of memberLogin: 200 with data.
    const payload = await t.graphql(
      tenant.apiKey,
      'mutation { memberLogin(input: { credentials: { network: "email", email: "nobody-status@example.com", password: "whatever1" } }) { userErrors { code } } }',
    );
    expect(payload.status).toBe(200);
    expect(payload.body).toEqual({ data: { memberLogin: { userErrors: [{ code: 'NO_ACCOUNT' }] } } });
  });

  it("keeps 401 for the request's own member token, ended or forged", async () => {
    const forged = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'content-type': 'application/json' },
      payload: { query: '{ viewer { id } }' },
    });
    expect(forged.statusCode).toBe(401);
  });

  it('keeps 4xx for requests that fail before execution', async () => {
    expect((await t.graphql(tenant.apiKey, '{ nope }')).status).toBe(400);
    expect((await t.graphql(tenant.apiKey, '{ application { ')).status).toBe(400);
    expect((await t.graphql(tenant.apiKey, 'query($id: ID!) { member(lookup: { id: $id }) { id } }', {})).status).toBe(400);
    expect((await t.graphql('not-a-key', '{ application { name } }')).status).toBe(401);
    expect((await t.graphql(undefined, '{ application { name } }')).status).toBe(401);
  });

  it("keeps REST's statuses", async () => {
    expect((await t.rest(tenant, 'GET', '/member/999999999')).status).toBe(404);
  });
});
