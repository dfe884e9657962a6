import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { buildGateway, type Gateway } from '../../src/http/server.js';
import type { Plan } from '../../src/db/schema/index.js';
import { clearKeyCache, createApplication } from '../../src/modules/tenancy/tenancy.service.js';
import type { NetworkOptions } from '../../src/modules/networks/registry.js';
import { createTestDatabase } from './database.js';
import { graphql, rest, type GraphqlAnswer, type RestAnswer, type RestMethod, type RestOptions, type RestParams } from './rest.js';

export interface Tenant {
  accountId: number;
  applicationId: number;
  apiKey: string;
}

export interface TestGateway {
  gateway: Gateway;
  database: DatabaseHandle;
  config: Config;
  /** A new account with one application of the given plan, and its key. */
  tenant(plan?: Plan, accountName?: string): Promise<Tenant>;
  /** A real HTTP request through Fastify's injector; JSON bodies are parsed. */
  request(options: InjectOptions): Promise<LightMyRequestResponse & { body: string; json: <T = any>() => T }>;
  /** A /v1.1 call with the tenant's key and the parameters in the query string; any method, headers, a body (see rest.ts). */
  rest<T = any>(tenant: Pick<Tenant, 'apiKey'> | null, method: RestMethod, path: string, params?: RestParams, options?: RestOptions): Promise<RestAnswer<T>>;
  /** A GraphQL operation posted to /graphql with the key in the x-api-key header (see rest.ts). */
  graphql<T = any>(apiKey: string | undefined, query: string, variables?: Record<string, unknown>, options?: { operationName?: string; headers?: Record<string, string> }): Promise<GraphqlAnswer<T>>;
  close(): Promise<void>;
}

let tenantCounter = 0;

/** Every test gateway seals and signs with this secret, so gateways can share a database. */
export const testSecretKey = 'test-secret-key-of-at-least-32-characters';

/** The /metrics token of a production test gateway: production refuses to start with /metrics public (config.ts). */
export const testMetricsToken = 'test-metrics-token-0123456789';

export async function startTestGateway(
  env: Record<string, string> = {},
  database?: DatabaseHandle,
  options: { networks?: NetworkOptions; demoApiKey?: string; /** Where the gateway's log lines go (info and above), to read them. */ logSink?: DestinationStream } = {},
): Promise<TestGateway> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    USAGE_FLUSH_SECONDS: '3600',
    // Round-trip counts must not depend on how slow the machine is: a key looked up stays cached.
    API_KEY_CACHE_SECONDS: '3600',
    SECRET_KEY: testSecretKey,
    ...(env.NODE_ENV === 'production' && !env.METRICS_ADDRESS ? { METRICS_TOKEN: testMetricsToken } : {}),
    ...env,
  });
  const db = database ?? (await createTestDatabase());
  // TEST_GATEWAY_LOG=error (or another level) shows what the gateways of a run log, to see a 500's cause.
  const gateway = await buildGateway({
    config,
    database: db,
    logger: options.logSink ? pino({ level: 'info' }, options.logSink) : pino({ level: process.env.TEST_GATEWAY_LOG ?? 'silent' }),
    networks: options.networks ?? {},
    demoApiKey: options.demoApiKey,
  });
  clearKeyCache();
  const request: TestGateway['request'] = (options) => gateway.app.inject(options);
  return {
    gateway,
    database: db,
    config,
    async tenant(plan = 'advanced', accountName) {
      tenantCounter += 1;
      const created = await createApplication(db.db, {
        accountName: accountName ?? `account-${process.pid}-${tenantCounter}`,
        name: `app-${tenantCounter}`,
        plan,
      });
      return { accountId: created.account.id, applicationId: created.application.id, apiKey: created.apiKey };
    },
    request,
    rest: (tenant, method, path, params, options) => rest({ request }, tenant, method, path, params, options),
    graphql: (apiKey, query, variables, options) => graphql({ request }, apiKey, query, variables, options),
    async close() {
      await gateway.close();
      if (!database) await db.close();
    },
  };
}
