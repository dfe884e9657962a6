import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/modules/tenancy/tenancy.service.js';
import { createApplicationKey } from '../../src/modules/tenancy/tenancy.service.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import packageJson from '../../package.json' with { type: 'json' };

const packageVersion = packageJson.version;

let t: TestGateway;
let advanced: Tenant;
let basic: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  advanced = await t.tenant('advanced');
  basic = await t.tenant('basic');
});
afterAll(() => t.close());

const usageQuery = 'interval=hour&start_date=2026-11-01%2000:00:00&period=2%20hour';

describe('API key', () => {
  it('absent: code 1', async () => {
    const response = await t.request({ url: `/v1.1/account/usage?${usageQuery}` });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      error: { code: 1, type: 'MISSING_API_KEY', message: expect.any(String), param: 'apiKey' },
    });
  });

  it('is reported before missing parameters', async () => {
    const response = await t.request({ url: '/v1.1/account/usage' });
    expect(response.json().error.code).toBe(1);
  });

  it('unknown: code 2', async () => {
    const response = await t.request({ url: `/v1.1/app/info?apiKey=mq_nope` });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      error: { code: 2, type: 'INVALID_API_KEY', message: 'The API key is unknown or revoked.', param: 'apiKey' },
    });
  });

  it('revoked: code 2', async () => {
    const { keyId, apiKey } = await createApplicationKey(t.database.db, advanced.applicationId);
    expect((await t.request({ url: `/v1.1/app/info?apiKey=${apiKey}` })).statusCode).toBe(200);
    await revokeApiKey(t.database.db, keyId);
    expect((await t.request({ url: `/v1.1/app/info?apiKey=${apiKey}` })).json().error.code).toBe(2);
  });

  it('is read from any case of apiKey, x-api-key, or a Bearer token', async () => {
    for (const request of [
      { url: `/v1.1/app/info?APIKEY=${advanced.apiKey}` },
      { url: `/v1.1/app/info?apikey=${advanced.apiKey}` },
      { url: '/v1.1/app/info', headers: { 'x-api-key': advanced.apiKey } },
      { url: '/v1.1/app/info', headers: { authorization: `Bearer ${advanced.apiKey}` } },
    ]) {
      const response = await t.request(request);
      expect(response.statusCode, JSON.stringify(request)).toBe(200);
      expect(response.json().ID).toBe(String(advanced.applicationId));
    }
  });
});

describe('parameter sources', () => {
  it('reads a form body', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1.1/app/whitelist',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `ApiKey=${advanced.apiKey}&Domain=form.example.com`,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().Whitelist).toContain('form.example.com');
  });

  it('reads a JSON body', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1.1/app/whitelist',
      payload: { apiKey: advanced.apiKey, domain: 'https://json.example.com/path?q=1' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().Whitelist).toContain('json.example.com');
  });

  it('lets the query string win on a clash', async () => {
    const response = await t.request({
      method: 'POST',
      url: `/v1.1/app/whitelist?apiKey=${advanced.apiKey}&domain=query.example.com`,
      payload: { domain: 'body.example.com' },
    });
    expect(response.json().Whitelist).toContain('query.example.com');
    expect(response.json().Whitelist).not.toContain('body.example.com');
  });

  it('ignores unknown parameters', async () => {
    const response = await t.request({ url: `/v1.1/app/info?apiKey=${advanced.apiKey}&turnoffdebug=1` });
    expect(response.statusCode).toBe(200);
  });

  it('answers malformed JSON with code 4', async () => {
    const response = await t.request({
      method: 'POST',
      url: `/v1.1/app/whitelist?apiKey=${advanced.apiKey}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"domain": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 4, type: 'INVALID_PARAMETER' });
  });
});

describe('parameter errors', () => {
  it('missing: code 3 naming the parameter', async () => {
    const response = await t.request({ url: `/v1.1/account/usage?apiKey=${advanced.apiKey}&start_date=2026-11-01` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 3, type: 'MISSING_PARAMETER', message: "The parameter 'interval' is required.", param: 'interval' },
    });
  });

  it('malformed: code 4 saying what is expected', async () => {
    const response = await t.request({ url: `/v1.1/account/usage?apiKey=${advanced.apiKey}&interval=week&start_date=2026-11-01&period=1%20day` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 4, type: 'INVALID_PARAMETER', message: "The parameter 'interval' is invalid: expected hour, day or month.", param: 'interval' },
    });
  });

  it('writes nothing on bad input', async () => {
    const before = (await t.request({ url: `/v1.1/app/info?apiKey=${advanced.apiKey}` })).json().Whitelist;
    const response = await t.request({ method: 'POST', url: `/v1.1/app/whitelist?apiKey=${advanced.apiKey}&domain=not_a%20host!` });
    expect(response.json().error).toMatchObject({ code: 4, param: 'domain' });
    expect((await t.request({ url: `/v1.1/app/info?apiKey=${advanced.apiKey}` })).json().Whitelist).toEqual(before);
  });
});

describe('plans', () => {
  it('refuse advanced operations to a basic plan with code 9, writing nothing', async () => {
    const response = await t.request({ method: 'POST', url: `/v1.1/app/whitelist?apiKey=${basic.apiKey}&domain=basic.example.com` });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: { code: 9, type: 'PLAN_REQUIRED', message: 'This operation needs an advanced plan.', param: null },
    });
    expect((await t.request({ url: `/v1.1/app/info?apiKey=${basic.apiKey}` })).json().Whitelist).toEqual([]);
  });
});

describe('routes', () => {
  it('an unknown /v1.1 path is not found, with the error body', async () => {
    const response = await t.request({ url: `/v1.1/nothing/here?apiKey=${advanced.apiKey}` });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toMatchObject({ code: 5, type: 'NOT_FOUND' });
  });

  it('/v1.0 is gone and names /v1.1', async () => {
    const response = await t.request({ url: `/v1.0/member/1?apiKey=${advanced.apiKey}` });
    expect(response.statusCode).toBe(410);
    expect(response.json().error.message).toContain('/v1.1');
  });

  it('every response carries a request id, and a caller-sent one is kept', async () => {
    const response = await t.request({ url: `/v1.1/app/info?apiKey=${advanced.apiKey}`, headers: { 'x-request-id': 'trace-123' } });
    expect(response.headers['x-request-id']).toBe('trace-123');
  });
});

describe('health and metrics', () => {
  it('healthz, readyz and metrics answer without a key', async () => {
    expect((await t.request({ url: '/healthz' })).json()).toEqual({ status: 'ok', version: packageVersion });
    expect((await t.request({ url: '/readyz' })).json()).toMatchObject({ status: 'ready' });
    const metrics = await t.request({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('marquee_http_requests_total');
    expect(metrics.body).toContain('marquee_sql_round_trips_per_request');
  });
});

describe('rate limit', () => {
  it('answers 429 with code 6 and Retry-After once the budget is spent', async () => {
    const limited = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '3' }, t.database);
    try {
      const url = `/v1.1/app/info?apiKey=${advanced.apiKey}`;
      const answers = [];
      for (let i = 0; i < 4; i += 1) answers.push(await limited.request({ url }));
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
      const last = answers[3];
      expect(last.json()).toEqual({ error: { code: 6, type: 'RATE_LIMITED', message: expect.stringContaining('3 calls a minute'), param: null } });
      expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
      expect(last.headers['ratelimit-limit']).toBe('3');
      expect(last.headers['ratelimit-remaining']).toBe('0');
      // Another key has its own budget.
      expect((await limited.request({ url: `/v1.1/app/info?apiKey=${basic.apiKey}` })).statusCode).toBe(200);
    } finally {
      await limited.gateway.close();
    }
  });

  // CI sets TEST_REDIS_URL; without a Redis server the shared budget cannot be exercised.
  it.skipIf(!process.env.TEST_REDIS_URL)('shares one budget between gateways through Redis', async () => {
    const env = { RATE_LIMIT_PER_MINUTE: '4', REDIS_URL: process.env.TEST_REDIS_URL! };
    const [first, second] = [await startTestGateway(env, t.database), await startTestGateway(env, t.database)];
    try {
      // A fresh key, so budgets left by earlier runs against the same Redis do not interfere.
      const { apiKey } = await createApplicationKey(t.database.db, advanced.applicationId);
      const url = `/v1.1/app/info?apiKey=${apiKey}`;
      const statuses = [];
      for (const gateway of [first, second, first, second, first]) statuses.push((await gateway.request({ url })).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await first.gateway.close();
      await second.gateway.close();
    }
  });
});
