import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Kind, type DocumentNode } from 'graphql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { runCounted, type RoundTripCounter } from '../db/roundtrips.js';
import { RequestStatements } from '../db/request-statements.js';
import { citusRole } from '../db/citus.js';
import { createApollo } from '../graphql/apollo.js';
import type { Context } from '../core/context.js';
import { createContext } from '../graphql/context.js';
import { assertAccess } from '../core/auth.js';
import { AppError, retryAfterSecondsOf } from '../core/errors.js';
import { getSchema } from '../graphql/schema.js';
import { UsageMeter } from '../modules/usage/usage.meter.js';
import { ActivityQueue } from '../modules/activities/activities.queue.js';
import { storeRecordGroupsAs } from '../modules/activities/activities.service.js';
import { LiveFeed } from '../modules/activities/live-feed.js';
import { registerSubscriptions } from '../graphql/subscriptions.js';
import type { SubscriptionSlots } from '../graphql/subscription-slots.js';
import { HeavyRequests } from '../graphql/heavy-requests.js';
import { RequestSlots } from './request-slots.js';
import { ScoreWindowsWorker } from '../modules/lifecycle/kept-data.worker.js';
import { RecordRetentionWorker } from '../modules/retention/retention.worker.js';
import type { EmailOutbox } from '../modules/email/outbox.js';
import { errorBody, toRestFailure } from '../rest/errors.js';
import { registerRestRoutes } from '../rest/plugin.js';
import { registerApiReference } from '../rest/openapi/reference.js';
import { restRoutes } from '../rest/table.js';
import { clientErrorHandler } from './client-errors.js';
import { createIdentityServices } from '../modules/members/identity-services.js';
import type { NetworkOptions } from '../modules/networks/registry.js';
import { registerWidget } from '../modules/widget/widget.http.js';
import { registerConsole } from '../console/console.http.js';
import { baseUrlOf } from '../modules/widget/widget.urls.js';
import { authenticate } from './authenticate.js';
import { proxyTrust } from '../lib/client-address.js';
import { createMetrics, type Metrics } from './metrics.js';
import { registerMetricsRoute } from './metrics-endpoint.js';
import { OperationNames, operationMetricsPlugin } from '../graphql/operation-metrics.js';
import { queueBacklog } from '../modules/activities/activities.queue.queries.js';
import { unfinishedJobsByStatus } from '../modules/segments/presave.queries.js';
import { assertOriginAllowed, registerCors } from './cors.js';
import { registerCompression } from './compression.js';
import { explorerLandingPage } from './pages/explorer/landing.js';
import { registerPages } from './pages/pages.http.js';
import { RateLimiter } from '../lib/rate-limit.js';
import { tracer } from '../tracing.js';
import { tracingPlugin } from '../graphql/tracing-plugin.js';
import { startResponseDeadline } from './response-deadline.js';
import { registerHttpTracing } from './tracing.js';
import { version } from '../version.js';

declare module 'fastify' {
  interface FastifyRequest {
    context: Context;
    roundTrips: RoundTripCounter;
    /** The error this request was answered with outside Apollo (sendError), counted by /metrics once answered. */
    answeredError?: { surface: 'rest' | 'graphql' | 'plain'; code: string };
  }
  interface FastifyContextConfig {
    /** Which error format a route speaks: the REST error body or GraphQL's `errors` list. */
    kind?: 'rest' | 'graphql' | 'plain';
  }
}

export interface GatewayDependencies {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
  /** Where the network adapters call (tests point them at a local fake); from the environment otherwise. */
  networks?: NetworkOptions;
  /** The demo application's key: the explorer and the dashboard prefill it outside production. */
  demoApiKey?: string;
}

export interface Gateway {
  app: FastifyInstance;
  /** What /metrics reports (served on METRICS_ADDRESS by main.ts when set). */
  metrics: Metrics;
  meter: UsageMeter;
  activityQueue: ActivityQueue;
  scoreWindows: ScoreWindowsWorker;
  /** Removes the records past each account's retention, hourly (modules/retention). */
  retention: RecordRetentionWorker;
  /** The outbox of the emails sent to fans, and its worker. */
  mail: EmailOutbox;
  /** Subscriptions to committed records (activityRecorded), over WebSocket at /graphql. */
  liveFeed: LiveFeed;
  /** The subscriptions open per key and per connection (SUBSCRIPTIONS_PER_KEY, SUBSCRIPTIONS_PER_CONNECTION). */
  subscriptionSlots: SubscriptionSlots;
  /** Heavy requests running and waiting per key (HEAVY_REQUEST_COST, HEAVY_REQUESTS_PER_KEY, HEAVY_QUEUE_PER_KEY). */
  heavyRequests: HeavyRequests;
  /** Requests running and waiting per key and account (REQUESTS_PER_KEY, REQUESTS_PER_ACCOUNT, REQUEST_QUEUE_PER_KEY). */
  requestSlots: RequestSlots;
  /** Stops taking requests, lets in-flight ones finish, flushes usage. The database stays open. */
  close(): Promise<void>;
}

const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

export async function buildGateway({ config, database, logger, networks, demoApiKey }: GatewayDependencies): Promise<Gateway> {
  const schema = await getSchema();
  // As Fastify's logger type: Fastify types the instance by the logger it is given, and `app` is a FastifyInstance.
  const loggerInstance: FastifyBaseLogger = logger;
  const app: FastifyInstance = Fastify({
    loggerInstance,
    // A caller's own request id is kept when it is sane, so logs can be joined across services.
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : randomUUID();
    },
    forceCloseConnections: 'idle',
    // Requests arriving once the close has begun answer the error body (SHUTTING_DOWN), not Fastify's.
    return503OnClosing: false,
    clientErrorHandler,
    // The router's own refusals (a malformed URL encoding, a path parameter over 100 characters)
    // answer the error body too, not Fastify's.
    frameworkErrors: (error, request, reply) => {
      sendError(error, request, reply);
    },
    trustProxy: proxyTrust(config.trustProxy),
    // A client that sends its request slowly (a body dribbled a byte at a time) holds a connection
    // and a parser only so long: Node answers 408 (http/client-errors.ts) and closes.
    requestTimeout: config.requestTimeoutMs,
    http: requestTimeouts(config.requestTimeoutMs),
  });
  const meter = new UsageMeter(database.db, logger, config.usageFlushMs);
  const limiter = await RateLimiter.create(config.rateLimitPerMinute, config.redisUrl, logger, config.ipv6PrefixLength);
  const identity = await createIdentityServices(database.db, config, { networks, log: logger });
  const activityQueue = new ActivityQueue(database.db, logger);
  // On a Citus coordinator, single records are stored in routed steps rather than one statement.
  if (database.kind === 'postgres' && (await citusRole(database.db)) === 'coordinator') storeRecordGroupsAs(database.db, 'steps');
  const liveFeed = await LiveFeed.open(database, logger, { statementTimeoutMs: config.statementTimeoutMs });
  const scoreWindows = new ScoreWindowsWorker(database.db, logger);
  const retention = new RecordRetentionWorker(database.db, logger);
  let subscriptionSlots: SubscriptionSlots | undefined;
  const metrics = createMetrics({
    scoreWindowLag: () => scoreWindows.lagSeconds(),
    pools: database.pools,
    openSubscriptions: () => subscriptionSlots?.open() ?? 0,
    activityQueue: () => queueBacklog(database.db),
    presaveJobs: () => unfinishedJobsByStatus(database.db),
  });
  const exposeRoundTrips = config.env !== 'production';

  // First of the hooks, so the request's span is current in every other (nothing when tracing is off).
  registerHttpTracing(app);
  await app.register(formbody);
  // Before the routes, which it applies to as they are added.
  await registerCompression(app);

  // Once closing, every answer (those in flight included) tells the client to drop its kept-alive
  // connection: Node closes only the connections idle when the close starts, and a client that
  // keeps the others open would hold the shutdown until the grace period runs out, usage unflushed.
  // A request that arrives on such a connection once the close has begun is not started.
  let closing = false;
  app.addHook('onRequest', async (request, reply) => {
    const statements = new RequestStatements(config.statementTimeoutMs);
    request.roundTrips = { count: 0, statements };
    // The connection closed before the answer was complete: the client is gone, and so is the use of
    // whatever the request still has running (db/request-statements.ts).
    reply.raw.once('close', () => {
      if (!reply.raw.writableEnded) statements.abandon();
    });
    startResponseDeadline(request, reply, {
      timeoutMs: config.responseTimeoutMs,
      statements,
      answer: (error) => {
        sendError(error, request, reply);
      },
    });
    reply.header('x-request-id', request.id);
    if (closing) return sendError(new AppError('SHUTTING_DOWN', 'The gateway is shutting down; send the request again.'), request, reply);
  });
  app.addHook('onSend', async (request, reply) => {
    if (exposeRoundTrips) reply.header('x-sql-round-trips', String(request.roundTrips.count));
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unknown';
    metrics.requests.inc({ route, method: request.method, status: String(reply.statusCode) });
    metrics.duration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
    metrics.roundTrips.observe({ route }, request.roundTrips.count);
    if (request.answeredError) metrics.errors.inc(request.answeredError);
    const caller = request.context?.caller;
    if (caller?.kind === 'application') meter.count(caller.accountId, caller.applicationId);
  });

  // Before the routes: a preflight is answered before anything else runs (http/cors.ts).
  registerCors(app, config.corsOrigins);

  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/v1.0/')) {
      return reply.code(410).send(errorBody('NOT_FOUND', 'Version 1.0 is retired: use the same path under /v1.1.', null));
    }
    return reply.code(404).send(errorBody('NOT_FOUND', `No operation at ${request.method} ${request.url.split('?')[0]}.`, null));
  });

  // Probes and metrics take no key and are never rate limited or metered.
  app.get('/healthz', { config: { kind: 'plain' } }, async () => ({ status: 'ok', version }));
  app.get('/readyz', { config: { kind: 'plain' } }, async (_request, reply) => {
    try {
      await database.ping();
      return { status: 'ready', database: database.kind };
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: database.kind });
    }
  });
  // On its own address instead when METRICS_ADDRESS is set (main.ts starts it).
  if (!config.metrics.address) registerMetricsRoute(app, metrics, config.metrics.token);

  // Public keys of member JWTs, for anyone verifying them (Cache-Control lets verifiers keep them a while).
  app.get('/.well-known/jwks.json', { config: { kind: 'plain' } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return identity.signingKeys.jwks();
  });

  // The /v1.1 OpenAPI document and its reference page: public, like the probes.
  await registerApiReference(app, restRoutes);

  // The sign-in widget's script, session endpoints and hosted pages: no API key, whitelists guard them.
  await registerWidget(app, { config, database, identity, limiter });

  // The staff console's sign-in and /console/graphql: a staff session cookie, no API key, not metered.
  const consoleServer = await registerConsole(app, { config, database, identity });

  // The explorer (Apollo's landing page), the dashboard and their bundles: no key, not metered.
  await registerPages(app, { config, demoApiKey });
  const heavyRequests = new HeavyRequests(config.heavyRequests);
  const requestSlots = new RequestSlots(config.requestSlots);
  const operationNames = new OperationNames(operationNamesOf(restRoutes.map((route) => route.document as DocumentNode)));
  const apollo = createApollo(app, schema, config, { explorer: () => explorerLandingPage({ apiKey: demoApiKey }) }, heavyRequests, [
    operationMetricsPlugin(metrics, operationNames),
    ...(tracer() ? [tracingPlugin()] : []),
  ]);
  await apollo.start();
  subscriptionSlots = registerSubscriptions(app, { schema, config, database, logger, identity, activityQueue, liveFeed, limiter, meter });

  await app.register(async (api) => {
    api.addHook('preHandler', async (request, reply) => {
      const caller = await authenticate(request, reply, { limiter, database, identity, metrics, apiKeyCacheMs: config.apiKeyCacheMs });
      await runCounted(request.roundTrips, () => assertOriginAllowed(request, caller, database.db));
      const widget = { baseUrl: baseUrlOf(config, request), allowHttpProviders: config.env !== 'production' };
      request.context = createContext({
        requestId: request.id,
        log: request.log,
        database,
        caller,
        identity,
        activityQueue,
        widget,
        clientAddress: identity.budgetAddress(request.ip),
        userAgent: request.headers['user-agent'],
      });
      // The caller's statements count against its account's share of the pool (db/connection-shares.ts).
      const statements = request.roundTrips.statements!;
      if ('accountId' in caller) statements.owner = `account:${caller.accountId}`;
      // A slot of the key and of the account, held until the answer is sent (http/request-slots.ts).
      const release = await requestSlots.admit(caller, statements.signal);
      if (reply.raw.destroyed || reply.raw.writableEnded) release();
      else reply.raw.once('close', release);
    });

    const graphqlHandler = fastifyApolloHandler(apollo, { context: async (request) => request.context });
    const introspectionAllowed = config.env !== 'production';
    api.route({
      method: ['GET', 'POST', 'OPTIONS'],
      url: '/graphql',
      config: { kind: 'graphql' },
      handler(request, reply) {
        if (request.context.caller.kind === 'anonymous' && !mayParseWithoutKey(documentOf(request), introspectionAllowed)) {
          assertAccess(request.context.caller, []);
        }
        return runCounted(request.roundTrips, () => graphqlHandler.call(this, request as never, reply as never));
      },
    });

    registerRestRoutes(api, schema, restRoutes, config.graphqlLimits, heavyRequests);
  });

  meter.start();
  activityQueue.start();
  scoreWindows.start();
  retention.start();
  identity.mail.start();
  return {
    app,
    metrics,
    meter,
    activityQueue,
    scoreWindows,
    retention,
    mail: identity.mail,
    liveFeed,
    subscriptionSlots,
    heavyRequests,
    requestSlots,
    async close() {
      closing = true;
      // Apollo's drain plugin closes Fastify (letting in-flight requests finish) before Apollo stops.
      await apollo.stop();
      await consoleServer.stop();
      await meter.stop();
      await activityQueue.stop();
      await scoreWindows.stop();
      await retention.stop();
      await liveFeed.close();
      await limiter.close();
      await identity.close();
    },
  };
}

/**
 * Node's own request timeouts: the whole request within `requestTimeoutMs`, its headers within the
 * same or Node's 60 s, whichever is less (Node ignores a request timeout shorter than the headers'
 * one), checked at an interval of at most a second rather than Node's 30 s, so the limit holds near
 * its value. 0: no limit, Node's defaults.
 */
function requestTimeouts(requestTimeoutMs: number) {
  if (requestTimeoutMs <= 0) return {};
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(requestTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(requestTimeoutMs, 1_000),
  };
}

/** An error before or around a route's own answer, in the route's error format; classifyError (core/errors.ts) decides what it is. */
function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const kind = request.routeOptions.config?.kind ?? (request.url.startsWith('/graphql') ? 'graphql' : 'rest');
  const failure = toRestFailure(error, request.id);
  if (failure.unexpected) request.log.error({ err: error }, 'unexpected error');
  reply.code(failure.status);
  const retryAfter = retryAfterSecondsOf(error);
  if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
  request.answeredError = { surface: kind, code: failure.body.error.type };
  if (kind === 'graphql') {
    const { code, message, type } = failure.body.error;
    return reply.send({ errors: [{ message, extensions: { code: type, aeCode: code, requestId: request.id } }] });
  }
  return reply.send(failure.body);
}

/** The names of the operations the documents define. */
function operationNamesOf(documents: readonly DocumentNode[]): Set<string> {
  const names = new Set<string>();
  for (const document of documents) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION && definition.name) names.add(definition.name.value);
    }
  }
  return names;
}

/** The GraphQL document a request carries (POST body or GET query string), if any. */
function documentOf(request: FastifyRequest): string | undefined {
  const source = (request.method === 'GET' ? request.query : request.body) as { query?: unknown } | undefined;
  return typeof source?.query === 'string' ? source.query : undefined;
}

/**
 * Without a key the only thing GraphQL answers is introspection (outside production), and an
 * introspection query is a few kilobytes. Anything else is refused before it is parsed, so a caller
 * without a key cannot make the gateway parse a large document at all.
 */
const anonymousDocumentBytes = 16 * 1024;

function mayParseWithoutKey(document: string | undefined, introspectionAllowed: boolean): boolean {
  // No document: the landing page, or a request Apollo refuses on its own without parsing.
  return document === undefined || (introspectionAllowed && document.length <= anonymousDocumentBytes);
}
