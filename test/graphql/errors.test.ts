import { GraphQLError } from 'graphql';
import pino from 'pino';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { formatError } from '../../src/graphql/apollo.js';
import { AppError, notFound } from '../../src/core/errors.js';
import { buildGateway, type Gateway } from '../../src/http/server.js';
import { toRestFailure } from '../../src/rest/errors.js';
import { createTestDatabase } from '../support/database.js';
import { startTestGateway, testMetricsToken, testSecretKey, type TestGateway } from '../support/gateway.js';

describe('GraphQL error formatting', () => {
  const unexpected = new GraphQLError('relation "members" does not exist', { originalError: new Error('relation "members" does not exist') });

  it('keeps a known error with its code, numeric code and parameter', () => {
    const formatted = formatError(false)({ message: 'Not here' }, notFound('Member', 'id'));
    expect(formatted.extensions).toEqual({ code: 'NOT_FOUND', aeCode: 5, param: 'id' });
  });

  it('masks an unexpected error outside development', () => {
    const formatted = formatError(false)({ message: unexpected.message, path: ['application'] }, unexpected);
    expect(formatted.message).not.toMatch(/relation/);
    expect(formatted).toMatchObject({ path: ['application'], extensions: { code: 'INTERNAL', aeCode: 20 } });
  });

  it('shows the detail in development', () => {
    expect(formatError(true)({ message: unexpected.message }, unexpected).message).toMatch(/relation/);
  });
});

describe('REST error bodies', () => {
  it('carry a known error as it is', () => {
    const failure = toRestFailure(new AppError('PLAN_REQUIRED', 'This operation needs an advanced plan.'), 'req-1');
    expect(failure).toEqual({
      status: 403,
      unexpected: false,
      body: { error: { code: 9, type: 'PLAN_REQUIRED', message: 'This operation needs an advanced plan.', param: null } },
    });
  });

  it('mask anything else, naming the request id', () => {
    const failure = toRestFailure(new TypeError('cannot read properties of undefined'), 'req-2');
    expect(failure.status).toBe(500);
    expect(failure.unexpected).toBe(true);
    expect(failure.body.error).toEqual({ code: 20, type: 'INTERNAL', message: expect.stringContaining('req-2'), param: null, requestId: 'req-2' });
  });
});

describe('an unexpected failure in production', () => {
  let gateway: Gateway;
  const logLines: string[] = [];
  let t: TestGateway;

  beforeAll(async () => {
    // A tenant made through the test helper, then a production gateway over the same database,
    // with a log we can read.
    const database = await createTestDatabase();
    t = await startTestGateway({}, database);
    const sink = new Writable({ write: (chunk, _encoding, done) => (logLines.push(String(chunk)), done()) });
    gateway = await buildGateway({
      config: loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'error', USAGE_FLUSH_SECONDS: '3600', SECRET_KEY: testSecretKey, METRICS_TOKEN: testMetricsToken }),
      database: { ...database, db: brokenDatabase(database.db) },
      logger: pino({ level: 'error' }, sink),
    });
    outage = true;
  });
  afterAll(async () => {
    await gateway.close().catch(() => {});
    await t.close();
    await t.database.close();
  });

  it('answers the error body with the request id, and logs the detail under that id', async () => {
    const tenant = await t.tenant('basic');
    const response = await gateway.app.inject({ url: '/v1.1/app/info', headers: { 'x-api-key': tenant.apiKey, 'x-request-id': 'trace-42' } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      error: { code: 20, type: 'INTERNAL', message: expect.stringContaining('trace-42'), param: null, requestId: 'trace-42' },
    });
    expect(response.body).not.toMatch(/simulated outage/);
    const logged = logLines.map((line) => JSON.parse(line)).find((line) => line.reqId === 'trace-42' || line.requestId === 'trace-42');
    expect(JSON.stringify(logged)).toMatch(/simulated outage/);
  });
});

let outage = false;

/** A database whose queries all fail once `outage` is set, as during an outage. */
function brokenDatabase<T extends object>(db: T): T {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (outage && ['select', 'insert', 'update', 'delete', 'execute', 'transaction'].includes(String(property))) {
        return () => {
          throw new Error('simulated outage: connection refused');
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}
