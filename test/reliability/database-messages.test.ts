import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * A value the parameter rules let through to the database (a NUL in a GraphQL string) is refused
 * by the database's own check: the caller gets code 4 with the classified message, never the
 * failed statement with its parameters.
 */
let t: TestGateway;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('enterprise');
});
afterAll(() => t.close());

describe('database refusals over GraphQL', () => {
  it.each([
    ['brands(type:)', 'query ($v: String) { brands(type: $v) { totalCount } }'],
    ['member(lookup: { email })', 'query ($v: String) { member(lookup: { email: $v }) { id } }'],
    ['optIn(input: { email })', 'mutation ($v: String) { optIn(input: { email: $v }) { id } }'],
  ])('%s with a NUL answers code 4 without the statement', async (_name, query) => {
    const { body } = await t.graphql(tenant.apiKey, query, { v: 'a\u0000b' });
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4 });
    expect(body.errors[0].message).toBe('A parameter is invalid: a text contains bytes that are not valid UTF-8.');
    expect(JSON.stringify(body)).not.toMatch(/select|Failed query|params:/i);
  });
});
