import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildGateway, type Gateway } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { startTestGateway, testMetricsToken, testSecretKey, type Tenant, type TestGateway } from '../support/gateway.js';
import { graphql } from '../support/rest.js';

/**
 * The GraphQL checklist beyond test/graphql/limits.test.ts (depth, aliases, cost) and
 * test/rest/hostile-input.test.ts (token and operation limits, suggestions and keyless parsing in
 * production): batching, introspection in production with a key, CSRF prevention, documents
 * larger than a body may be, and field and directive floods. Each refusal is a 4xx with aeCode.
 */
let t: TestGateway;
let tenant: Tenant;
let production: Gateway;

beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('enterprise');
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', USAGE_FLUSH_SECONDS: '3600', SECRET_KEY: testSecretKey, METRICS_TOKEN: testMetricsToken });
  production = await buildGateway({ config, database: t.database, logger: createLogger(config), networks: {} });
});
afterAll(async () => {
  await production?.close();
  await t?.close();
});

/** The answer's first error, once it is a 4xx refusal with code 4 (a GraphQL error, or the REST error body). */
const refusedWithCode = ({ status, body }: { status: number; body: any }) => {
  expect(status).toBeGreaterThanOrEqual(400);
  expect(status).toBeLessThan(500);
  const error = body.errors?.[0] ?? body.error;
  expect(error, JSON.stringify(body)).toBeDefined();
  expect(error.extensions?.aeCode ?? error.code).toBe(4);
  return error;
};

describe('GraphQL limits', () => {
  it('refuses batched requests (an array of operations), which would multiply every per-request limit', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
      payload: [{ query: '{ application { id } }' }, { query: '{ application { id } }' }],
    });
    refusedWithCode({ status: response.statusCode, body: response.json() });
  });

  it('answers no introspection in production, even with a key, for __schema and __type alike', async () => {
    for (const query of ['{ __schema { types { name } } }', '{ __type(name: "Member") { fields { name } } }']) {
      const error = refusedWithCode(await graphql(production, tenant.apiKey, query));
      expect(error.message).toMatch(/introspection/i);
    }
    // Outside production the same key may introspect.
    expect((await t.graphql(tenant.apiKey, '{ __type(name: "Member") { name } }')).body).toEqual({ data: { __type: { name: 'Member' } } });
  });

  it('prevents cross-site requests: a GET or a simple POST without a preflight header is refused before it runs', async () => {
    const get = await t.gateway.app.inject({ method: 'GET', url: `/graphql?query=${encodeURIComponent('{ application { id } }')}`, headers: { 'x-api-key': tenant.apiKey } });
    expect(get.statusCode).toBe(400);
    expect(get.body).toMatch(/CSRF|preflight/i);
    const simple = await t.gateway.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'text/plain', 'x-api-key': tenant.apiKey },
      payload: '{"query":"mutation { deleteBrand(id: \\"1\\") }"}',
    });
    expect(simple.statusCode).toBeGreaterThanOrEqual(400);
    expect(simple.statusCode).toBeLessThan(500);
    // The same GET with the preflight header is a plain query.
    const allowed = await t.gateway.app.inject({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('{ application { id } }')}`,
      headers: { 'x-api-key': tenant.apiKey, 'apollo-require-preflight': 'true' },
    });
    expect(allowed.json()).toEqual({ data: { application: { id: String(tenant.applicationId) } } });
  });

  it('refuses a mutation sent by GET', async () => {
    const response = await t.gateway.app.inject({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('mutation { setRequiredFields(fields: []) { id } }')}`,
      headers: { 'x-api-key': tenant.apiKey, 'apollo-require-preflight': 'true' },
    });
    expect(response.statusCode).toBe(405);
    expect(response.json().errors[0].extensions.aeCode).toBe(4);
  });

  it('refuses a document larger than a request body may be (1 MiB), with the error body', async () => {
    refusedWithCode(await t.graphql(tenant.apiKey, `{ application { id } } # ${'x'.repeat(1_100_000)}`));
  });

  it('stops field and directive floods at the token limit, before validation', async () => {
    for (const query of [`{ application { ${'id '.repeat(20_000)}} }`, `{ application { id ${'@include(if: true) '.repeat(3000)}} }`]) {
      const error = refusedWithCode(await t.graphql(tenant.apiKey, query));
      expect(error.message).toMatch(/tokens/);
    }
  });
});
