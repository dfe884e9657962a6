import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startMetricsListener } from '../../src/http/metrics-endpoint.js';
import { OperationNames } from '../../src/graphql/operation-metrics.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/** What an operator alerts on, from /metrics: operations, errors, the queue, subscriptions, presaves, the lag. */
let t: TestGateway;
let tenant: Tenant;
const token = 'metrics-token-0123456789';

async function scrape(target: TestGateway = t): Promise<string> {
  const response = await target.request({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
}

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('/metrics', () => {
  beforeAll(async () => {
    t = await startTestGateway({ METRICS_TOKEN: token });
    tenant = await t.tenant();
  });
  afterAll(async () => t?.close());

  it('refuses a scrape without the token, or with another', async () => {
    expect((await t.request({ url: '/metrics' })).statusCode).toBe(401);
    const wrong = await t.request({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456780' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toContain('Bearer');
    expect(wrong.body).not.toContain('marquee_');
  });

  it('counts GraphQL operations by name and type, and errors by code', async () => {
    await t.graphql(tenant.apiKey, 'query AppName { application { name } }');
    await t.graphql(tenant.apiKey, '{ application { name } }');
    await t.graphql(tenant.apiKey, 'query Broken { nope }');
    await t.rest(tenant, 'GET', '/member/999999999');
    const text = await scrape();
    expect(sample(text, 'marquee_graphql_operations_total', { operation: 'AppName', type: 'query', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'marquee_graphql_operations_total', { operation: 'anonymous', type: 'query', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'marquee_graphql_operations_total', { operation: 'invalid', type: 'unknown', outcome: 'error' })).toBe(1);
    expect(sample(text, 'marquee_graphql_operation_duration_seconds_count', { operation: 'AppName', type: 'query' })).toBe(1);
    expect(sample(text, 'marquee_errors_total', { surface: 'graphql', code: 'GRAPHQL_VALIDATION_FAILED' })).toBe(1);
    expect(sample(text, 'marquee_errors_total', { surface: 'rest', code: 'NOT_FOUND' })).toBeGreaterThanOrEqual(1);
  });

  it('reports the queue, open subscriptions, presave jobs and the kept-window lag', async () => {
    const text = await scrape();
    expect(sample(text, 'marquee_activity_queue_depth')).toBe(0);
    expect(sample(text, 'marquee_activity_queue_oldest_age_seconds')).toBe(0);
    expect(sample(text, 'marquee_subscriptions_open')).toBe(0);
    expect(sample(text, 'marquee_presave_jobs', { state: 'queued' })).toBe(0);
    expect(sample(text, 'marquee_presave_jobs', { state: 'running' })).toBe(0);
    expect(text).toContain('# TYPE score_window_lag_seconds gauge');
    if (t.database.kind === 'postgres') {
      expect(sample(text, 'marquee_db_pool_connections', { pool: 'primary', state: 'waiting' })).toBe(0);
      expect(sample(text, 'marquee_db_pool_size', { pool: 'primary' })).toBeGreaterThan(0);
    }
  });

  it('caps the operation names it labels: known names, then the first few, then "other"', () => {
    const names = new OperationNames(new Set(['Known']), 2);
    expect(['Known', 'A', 'B', 'C', 'A', null, 'x'.repeat(65)].map((name) => names.label(name))).toEqual(['Known', 'A', 'B', 'other', 'A', 'anonymous', 'other']);
  });

  it('serves /metrics on an address of its own with METRICS_ADDRESS, and not on the API port', async () => {
    const separate = await startTestGateway({ METRICS_ADDRESS: '127.0.0.1:0' });
    const listener = await startMetricsListener(separate.gateway.metrics, { host: '127.0.0.1', port: 0 });
    try {
      expect((await separate.request({ url: '/metrics' })).statusCode).toBe(404);
      const response = await fetch(listener.url);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('marquee_http_requests_total');
      expect((await fetch(listener.url.replace('/metrics', '/graphql'))).status).toBe(404);
    } finally {
      await listener.close();
      await separate.close();
    }
  });

  it('refuses a malformed METRICS_TOKEN or METRICS_ADDRESS at start', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_ADDRESS: '9464' })).toThrow(/METRICS_ADDRESS/);
    expect(loadConfig({ METRICS_ADDRESS: '[::1]:9464' }).metrics.address).toEqual({ host: '::1', port: 9464 });
  });

  /** /metrics names every operation and error count of every tenant: in production nobody reads it unasked. */
  it('refuses to start in production with /metrics public: METRICS_TOKEN or METRICS_ADDRESS is required', () => {
    const production = { NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(32) };
    expect(() => loadConfig(production)).toThrow(/METRICS_TOKEN or METRICS_ADDRESS: one is required in production/);
    expect(loadConfig({ ...production, METRICS_TOKEN: token }).metrics).toEqual({ token, address: undefined });
    expect(loadConfig({ ...production, METRICS_ADDRESS: '127.0.0.1:9464' }).metrics).toEqual({ token: undefined, address: { host: '127.0.0.1', port: 9464 } });
    // Outside production (npm start, the tests) /metrics stays open on the API port.
    expect(loadConfig({}).metrics).toEqual({ token: undefined, address: undefined });
  });
});
