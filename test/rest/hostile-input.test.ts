import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildGateway, type Gateway } from '../../src/http/server.js';
import { unknownKeysPerMinute } from '../../src/lib/rate-limit.js';
import { createLogger } from '../../src/logger.js';
import { throttleRules } from '../../src/modules/identity/login-throttle.js';
import { startTestGateway, testMetricsToken, testSecretKey, type Tenant, type TestGateway } from '../support/gateway.js';
import { graphql } from '../support/rest.js';

/**
 * Inputs an attacker (or a careless client) sends: each answers a 4xx with the documented error
 * body, costs no more than it should, and leaves nothing secret in the log.
 */
let t: TestGateway;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('enterprise');
});
afterAll(() => t.close());

const errorBodyOf = (code: number, param?: string | null) => ({
  error: { code, type: expect.any(String), message: expect.any(String), param: param === undefined ? expect.anything() : param },
});

describe('GraphQL variables of the wrong type', () => {
  const query = 'query($n: Int!) { members(first: $n) { totalCount } }';

  it('answers 400 with code 4 for a string where an Int is declared', async () => {
    const { status, body } = await t.graphql(tenant.apiKey, query, { n: '10' });
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', aeCode: 4 });
    expect(body.errors[0].message).toMatch(/\$n/);
  });

  it('answers 400 with code 4 for a missing required variable', async () => {
    const { status, body } = await t.graphql(tenant.apiKey, query, {});
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', aeCode: 4 });
  });

  it('answers a caller error, not an internal one, for a subscription', async () => {
    const { status, body } = await t.graphql(tenant.apiKey, 'subscription { application { id } }');
    expect(status).toBe(400);
    expect(body.errors[0].extensions.aeCode).toBe(4);
  });
});

describe('documents too large to parse', () => {
  it('stops parsing at the token limit', async () => {
    const fields = Array.from({ length: 12_000 }, () => 'id').join(' ');
    const { status, body } = await t.graphql(tenant.apiKey, `{ application { ${fields} } }`);
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(/more that 10000 tokens/);
    expect(body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_PARSE_FAILED', aeCode: 4 });
  });

  it('refuses a document defining more operations than allowed', async () => {
    const document = Array.from({ length: 25 }, (_, index) => `query Q${index} { application { id } }`).join('\n');
    const { status, body } = await t.graphql(tenant.apiKey, document, undefined, { operationName: 'Q1' });
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(/25 operations and fragments; at most 20/);
  });

  it('refuses a large document without a key before parsing it', async () => {
    // Broken on purpose: had it been parsed, the answer would be a syntax error, not a missing key.
    const document = `{ ${'application { id } '.repeat(2000)}`;
    const { status, body } = await t.graphql(undefined, document);
    expect(status).toBe(401);
    expect(body.errors[0].extensions).toMatchObject({ code: 'MISSING_API_KEY', aeCode: 1 });
  });

  it('still answers introspection without a key outside production', async () => {
    const { status, body } = await t.graphql(undefined, '{ __schema { queryType { name } } }');
    expect(status).toBe(200);
    expect(body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('ids beyond what a column can hold', () => {
  it.each([
    ['/v1.1/brand/2147483648', 'id'],
    ['/v1.1/member/99999999999', 'id'],
    ['/v1.1/members/active?members=99999999999', 'members'],
    ['/v1.1/members/active?brandID=2147483648', 'brandID'],
    ['/v1.1/activity/feed?activityid=2147483648', 'activityid'],
  ])('%s answers 400 with code 4', async (url, param) => {
    const response = await t.rest(tenant, 'GET', url);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errorBodyOf(4));
    expect(response.json.error.param.toLowerCase()).toBe(param.toLowerCase());
  });

  it('GraphQL brand(id: "2147483648") answers code 4', async () => {
    const { body } = await t.graphql(tenant.apiKey, '{ brand(id: "2147483648") { id } }');
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4 });
  });
});

describe('NUL and control characters', () => {
  it.each([
    ['/v1.1/members/active?services=a%00b', 'services'],
    ['/v1.1/activity/feed?keyword=a%00b', 'keyword'],
    ['/v1.1/members/active?country=G%01B', 'country'],
  ])('%s answers 400 naming the parameter', async (url, param) => {
    const response = await t.rest(tenant, 'GET', url);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errorBodyOf(4, param));
  });

  it('a NUL in a POST body is refused and nothing is written', async () => {
    const before = await t.rest(tenant, 'GET', '/brands');
    const response = await t.rest(tenant, 'POST', '/brand/create', {}, { key: 'header', payload: { name: 'Nul\u0000Brand' } });
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errorBodyOf(4, 'name'));
    expect((await t.rest(tenant, 'GET', '/brands')).json).toEqual(before.json);
  });
});

describe('names that are not data', () => {
  it('required_fields=__proto__ is an unknown field, not a crash', async () => {
    const response = await t.rest(tenant, 'GET', '/members/active', { required_fields: '__proto__' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errorBodyOf(4, 'required_fields'));
  });
});

describe('unknown API keys', () => {
  it(`are refused by address past ${unknownKeysPerMinute} a minute, before any lookup`, async () => {
    const gateway = await startTestGateway({}, t.database);
    try {
      const answers = [];
      for (let index = 0; index < unknownKeysPerMinute + 5; index += 1) {
        const response = await gateway.rest({ apiKey: `mq_made-up-${index}` }, 'GET', '/app/info', {}, { key: 'header' });
        answers.push({ status: response.status, code: response.json.error.code, roundTrips: response.headers['x-sql-round-trips'] });
      }
      expect(answers.slice(0, unknownKeysPerMinute).every((answer) => answer.status === 401 && answer.code === 2)).toBe(true);
      for (const refused of answers.slice(unknownKeysPerMinute)) {
        expect(refused).toEqual({ status: 429, code: 6, roundTrips: '0' });
      }
      // Another address is not affected.
      const other = await gateway.rest(tenant, 'GET', '/app/info', {}, { key: 'header', remoteAddress: '10.1.2.3' });
      expect(other.status).toBe(200);
    } finally {
      await gateway.gateway.close();
    }
  });
});

describe('sign-in guessing without the ip parameter', () => {
  it("is limited by the application server's address once it passes its failures", async () => {
    // The call budget is not what this is about: high enough never to answer first.
    const gateway = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000' }, t.database);
    try {
      const login = (email: string, remoteAddress: string) =>
        gateway.rest(tenant, 'POST', '/member/login', {}, { key: 'header', remoteAddress, payload: { service: 'email', email, password: 'wrong password' } });
      for (let index = 0; index < throttleRules.failuresPerServerAddress; index += 1) {
        expect((await login(`guess-${index}@example.com`, '198.51.100.20')).json.error.code).toBe(13);
      }
      const refused = await login('another-guess@example.com', '198.51.100.20');
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual(errorBodyOf(6, null));
      // Another address is not slowed down.
      expect((await login('another-guess@example.com', '198.51.100.21')).json.error.code).toBe(13);
    } finally {
      await gateway.gateway.close();
    }
  }, 180_000);
});

describe('the request log', () => {
  let gateway: Gateway;
  const lines: string[] = [];

  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', USAGE_FLUSH_SECONDS: '3600', SECRET_KEY: testSecretKey });
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    gateway = await buildGateway({ config, database: t.database, logger: createLogger(config, sink), networks: {} });
  });
  afterAll(() => gateway.close());

  it('redacts secret parameters whose names are percent-encoded or in any case', async () => {
    await gateway.app.inject({ url: `/v1.1/app/info?api%4Bey=${tenant.apiKey}&pass%77ord=hunter2-secret&AccessToken=tok-secret` });
    const logged = lines.join('\n');
    expect(logged).toMatch(/api%4Bey=\[redacted\]/);
    expect(logged).not.toContain(tenant.apiKey);
    expect(logged).not.toContain('hunter2-secret');
    expect(logged).not.toContain('tok-secret');
  });
});

describe('in production', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', USAGE_FLUSH_SECONDS: '3600', SECRET_KEY: testSecretKey, METRICS_TOKEN: testMetricsToken });
    gateway = await buildGateway({ config, database: t.database, logger: createLogger(config), networks: {} });
  });
  afterAll(() => gateway.close());

  it('does not suggest field names', async () => {
    const { status, body } = await graphql(gateway, tenant.apiKey, '{ applicaton { id } }');
    expect(status).toBe(400);
    expect(body.errors[0].message).not.toMatch(/did you mean/i);
  });

  it('parses nothing without a key', async () => {
    const { status, body } = await graphql(gateway, undefined, '{ __schema { queryType { name } } }');
    expect(status).toBe(401);
    expect(body.errors[0].extensions).toMatchObject({ code: 'MISSING_API_KEY', aeCode: 1 });
  });
});

describe('requests the HTTP parser refuses', () => {
  it('a URL over the header limit answers 431 with the error body', async () => {
    await t.gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.gateway.app.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path: `/v1.1/app/info?x=${'a'.repeat(20_000)}` }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), body }));
      });
      request.on('error', reject);
    });
    expect(answer.status).toBe(431);
    expect(answer.type).toMatch(/application\/json/);
    expect(JSON.parse(answer.body)).toEqual(errorBodyOf(4, null));
  });
});
