import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { getOperationAST, GraphQLError, OperationTypeNode, parse, separateOperations, specifiedRules, validate, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { handleProtocols } from 'graphql-ws';
import { WebSocketServer } from 'ws';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { databaseUnavailable } from '../db/errors.js';
import { apiKeyOf, memberJwtOf } from '../core/credentials.js';
import { budgetAddress, clientAddressOf, proxyTrust } from '../lib/client-address.js';
import type { RateLimiter } from '../lib/rate-limit.js';
import type { ActivityQueue } from '../modules/activities/activities.queue.js';
import type { LiveFeed } from '../modules/activities/live-feed.js';
import type { IdentityServices } from '../modules/members/identity-services.js';
import { resolveApiKey } from '../modules/tenancy/tenancy.service.js';
import type { UsageMeter } from '../modules/usage/usage.meter.js';
import { formatError } from './apollo.js';
import type { Caller } from '../core/context.js';
import { createContext } from './context.js';
import { AppError, classifyError } from '../core/errors.js';
import { callerKey } from '../core/caller-key.js';
import { costRefusal, limitRules, listLengthRefusal, operationCost, parseOptions } from './limits.js';
import { SubscriptionSlots, type SlotHolder } from './subscription-slots.js';
import { serveGraphqlWs } from './websocket.js';

export interface SubscriptionDependencies {
  schema: GraphQLSchema;
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
  identity: IdentityServices;
  activityQueue: ActivityQueue;
  liveFeed: LiveFeed;
  limiter: RateLimiter;
  meter: UsageMeter;
}

/** Close codes: graphql-ws's (44xx, the client's to fix) and WebSocket's "try again later". */
const closeCodes = { unauthorized: 4401, forbidden: 4403, tooManyRequests: 4429, tryAgainLater: 1013 };

/** What a connection learned at `connection_init`, kept for its subscriptions, and the subscription slots it holds. */
type Connection = SlotHolder & {
  caller?: Caller;
  /** Whom its calls are rate limited as: the key, as on HTTP. */
  limitedAs?: string;
  address?: string;
};

/** A parse or validation error is the caller's to fix (aeCode 4), as Apollo reports it on HTTP. */
const callerError = (error: GraphQLError, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED') =>
  new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { ...error.extensions, code } });

/**
 * GraphQL subscriptions over WebSocket (the graphql-ws protocol) on the HTTP server's port, at
 * /graphql. The API key comes in `connection_init`'s payload (`x-api-key`, `apiKey` or
 * `authorization: Bearer …`, as a request would carry it; browsers cannot set headers on a
 * WebSocket) or in the upgrade request's own headers, and is checked once, with the same rate
 * limit and unknown-key blocking as HTTP requests; a connection without a valid key is closed
 * with a reason. Each subscription is a call (rate limited, counted for usage) and goes through
 * the same depth, alias, token and cost limits as POST /graphql. Only subscriptions run here:
 * queries and mutations stay on HTTP, where their rules and plugins are.
 */
export function registerSubscriptions(app: FastifyInstance, deps: SubscriptionDependencies): SubscriptionSlots {
  const { schema, config, database, limiter } = deps;
  const limits = config.graphqlLimits;
  const slots = new SubscriptionSlots(config.subscriptionLimits);
  const format = formatError(config.env === 'development');
  const rules = [...specifiedRules, ...limitRules(limits)];
  // The largest message a client may send: a document, as an HTTP body may be.
  const wss = new WebSocketServer({ noServer: true, maxPayload: app.initialConfig.bodyLimit, handleProtocols });

  app.server.on('upgrade', (request: IncomingMessage, socket, head) => {
    if ((request.url ?? '').split('?')[0] !== '/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });

  // The address HTTP requests have (request.ip): the same trusted proxies, never the leftmost entry as such.
  // Only budgets read it here, so it is their key at once (an IPv6 address's prefix).
  const trust = proxyTrust(config.trustProxy);
  const clientAddress = (request: IncomingMessage) => budgetAddress(clientAddressOf(request, trust), config.ipv6PrefixLength);

  const server = serveGraphqlWs<Connection>(
    wss,
    {
      schema,
      async onConnect(ctx) {
        const { request, socket } = ctx.extra;
        const address = clientAddress(request);
        const params = ctx.connectionParams ?? {};
        // The payload's entries count as headers (x-api-key, authorization) or parameters (apiKey).
        const asHeaders = Object.fromEntries(Object.entries(params).flatMap(([name, value]) => (typeof value === 'string' ? [[name.toLowerCase(), value]] : [])));
        const carried = { headers: { ...request.headers, ...asHeaders }, query: params, body: undefined };
        const key = apiKeyOf(carried);
        const refuse = (code: number, message: string) => {
          socket.close(code, message);
          return false;
        };
        // As on HTTP (http/authenticate.ts): only a known key spends a budget of its own; anything
        // else spends the address's, so a made-up key never opens a fresh one.
        const overLimit = async (limitedAs: string) => {
          const decision = await limiter.consume(limitedAs);
          return decision.allowed ? undefined : `Rate limit of ${decision.limit} calls a minute exceeded; retry in ${decision.resetSeconds} s.`;
        };
        if (!key) {
          const limited = await overLimit(limiter.addressBudget(address));
          if (limited) return refuse(closeCodes.tooManyRequests, limited);
          return refuse(
            closeCodes.unauthorized,
            memberJwtOf(carried) ? 'A member token acts on its own member only (viewer and the viewer operations); use an API key.' : 'An API key is required: send x-api-key in connection_init.',
          );
        }
        if ((await limiter.unknownKeysBlockedFor(address)) > 0) return refuse(closeCodes.tooManyRequests, 'Too many unknown API keys from this address.');
        let caller: Caller | null;
        try {
          caller = await resolveApiKey(database.db, key, config.apiKeyCacheMs);
        } catch (error) {
          if (!databaseUnavailable(error)) throw error;
          return refuse(closeCodes.tryAgainLater, 'The database is unavailable; connect again shortly.');
        }
        if (!caller) {
          await limiter.countUnknownKey(address);
          const limited = await overLimit(limiter.addressBudget(address));
          return refuse(limited ? closeCodes.tooManyRequests : closeCodes.forbidden, limited ?? 'The API key is unknown or revoked.');
        }
        const limited = await overLimit(key);
        if (limited) return refuse(closeCodes.tooManyRequests, limited);
        // Last, so only a connection that is acknowledged is counted (and onClose counts it out).
        const tooMany = slots.connect(ctx.extra, callerKey(caller) ?? 'anonymous');
        if (tooMany) return refuse(closeCodes.tooManyRequests, tooMany);
        ctx.extra.caller = caller;
        ctx.extra.limitedAs = key;
        ctx.extra.address = address;
        return true;
      },
      async onSubscribe(ctx, id, payload) {
        const caller = ctx.extra.caller!;
        const decision = await limiter.consume(ctx.extra.limitedAs!);
        if (!decision.allowed) return [new AppError('RATE_LIMITED', `Rate limit of ${decision.limit} calls a minute exceeded; retry in ${decision.resetSeconds} s.`)];
        if (caller.kind === 'application') deps.meter.count(caller.accountId, caller.applicationId);
        let document: DocumentNode;
        try {
          document = parse(payload.query, parseOptions(limits));
        } catch (error) {
          return [callerError(error instanceof GraphQLError ? error : new GraphQLError(String(error)), 'GRAPHQL_PARSE_FAILED')];
        }
        const invalid = validate(schema, document, rules);
        if (invalid.length) return invalid.map((error) => callerError(error, 'GRAPHQL_VALIDATION_FAILED'));
        const operation = getOperationAST(document, payload.operationName);
        if (!operation) return [new AppError('INVALID_PARAMETER', 'The document names no operation to run, or several without operationName.', null)];
        if (operation.operation !== OperationTypeNode.SUBSCRIPTION) {
          return [new AppError('INVALID_PARAMETER', 'Only subscriptions run over WebSocket: send queries and mutations by POST /graphql.', null)];
        }
        const variables = payload.variables ?? {};
        const tooLong = listLengthRefusal(document, variables);
        if (tooLong) return [tooLong];
        let cost: number;
        try {
          const query = payload.operationName ? (separateOperations(document)[payload.operationName] ?? document) : document;
          cost = operationCost(schema, query, variables);
        } catch (error) {
          return [new AppError('INVALID_PARAMETER', error instanceof Error ? error.message : String(error), null)];
        }
        const refusal = costRefusal(cost, limits);
        if (refusal) return [refusal];
        // Last, so a slot is taken only by a subscription that runs (and gives it back when it ends).
        const slotRefusal = slots.take(ctx.extra, callerKey(caller) ?? 'anonymous', id);
        if (slotRefusal) return [new AppError('RATE_LIMITED', slotRefusal)];
        const requestId = randomUUID();
        const log = deps.logger.child({ reqId: requestId, subscription: id }) as unknown as FastifyBaseLogger;
        const contextValue = createContext({
          requestId,
          log,
          database,
          caller,
          identity: deps.identity,
          activityQueue: deps.activityQueue,
          liveFeed: deps.liveFeed,
          clientAddress: ctx.extra.address,
        });
        return { schema, document, operationName: payload.operationName, variableValues: variables, contextValue } satisfies ExecutionArgs;
      },
      // Errors are formatted (and masked outside development) as on HTTP, and logged when unexpected.
      onNext(_ctx, _id, _payload, args, result) {
        if (!result.errors?.length) return undefined;
        return { ...result, errors: result.errors.map((error) => formatted(error, args.contextValue)) };
      },
      onError(_ctx, _id, _payload, errors) {
        return errors.map((error) => formatted(error, undefined));
      },
      onComplete(ctx, id) {
        slots.give(ctx.extra, id);
      },
      onClose(ctx) {
        slots.giveAll(ctx.extra);
        slots.disconnect(ctx.extra);
      },
    },
    // Otherwise a connection whose hook failed unexpectedly is closed with the error's message, outside development.
    { maxBufferedBytes: config.subscriptionLimits.maxBufferedBytes, log: deps.logger, isProd: config.env !== 'development' },
  );

  function formatted(error: GraphQLError, context: unknown) {
    const body = format(error.toJSON(), error);
    // Logged when the one classifier says so, as on HTTP (a database failure included).
    if (classifyError(unwrapResolverError(error), { surface: 'graphql' }).log) {
      const log = (context as { log?: FastifyBaseLogger } | undefined)?.log ?? deps.logger;
      log.error({ err: error.originalError ?? error, path: error.path }, 'unexpected GraphQL error');
    }
    return body;
  }

  // Before the HTTP server closes: WebSocket connections would otherwise hold it open.
  app.addHook('preClose', async () => {
    await server.dispose();
  });
  return slots;
}
