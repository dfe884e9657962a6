import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('answers 200 with the error in errors when a lookup finds nothing, or finds another tenant\'s', async () => {
    const brand = await t.graphql(other.apiKey, 'mutation { createBrand(input: { name: "Theirs", type: "Music" }) { id } }');
    const theirs = brand.body.data?.createBrand?.id ?? '1';
    for (const id of ['999999999', theirs]) {
      const answer = await t.graphql(tenant.apiKey, 'query($id: ID!) { member(lookup: { id: $id }) { id } }', { id });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(answer.text).not.toContain('Theirs');
    }
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
