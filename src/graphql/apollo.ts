import { ApolloServer, type ApolloServerOptionsWithGateway, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageProductionDefault } from '@apollo/server/plugin/landingPage/default';
import { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { context } from '@opentelemetry/api';
import type { Config } from '../config.js';
import type { Context } from '../core/context.js';
import { classifyError } from '../core/errors.js';
import { stringifyResult } from '../core/json-text.js';
import { CompiledDocuments, markedRequestErrors } from './execution.js';
import { documentAnswers } from './answers.js';
import type { HeavyRequests } from './heavy-requests.js';
import { costLimitPlugin, limitRules, parseOptions } from './limits.js';
import { executedRequestStatusPlugin } from './http-status.js';
import { databaseUnavailablePlugin } from './unavailable.js';
import { operationContext } from './tracing-plugin.js';

/**
 * The error as classifyError (core/errors.ts) decides: a known or document error keeps its message
 * and gains `aeCode`; a database failure shows the classified message; anything unexpected is
 * masked outside development. The detail goes to the log with the request id (requestIdPlugin),
 * which the response carries too.
 */
export function formatError(exposeInternals: boolean) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const { kind, code, number: aeCode, message, param, masked } = classifyError(unwrapResolverError(error), { surface: 'graphql', exposeInternals });
    if (kind === 'document' || (kind === 'unexpected' && !masked)) {
      return { ...formatted, extensions: { ...formatted.extensions, code, aeCode } };
    }
    if (kind === 'unexpected') {
      return { message, locations: formatted.locations, path: formatted.path, extensions: { code, aeCode } };
    }
    // A database failure's own message quotes the statement and its parameters: the caller gets the classified one.
    return { ...formatted, message: masked ? message : formatted.message, extensions: { code, aeCode, param } };
  };
}

/** Logs the errors classifyError says to log, in full, and adds the request id to every error of the response. */
export const requestIdPlugin: ApolloServerPlugin<Pick<Context, 'log' | 'requestId'>> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        for (const error of errors) {
          const original = unwrapResolverError(error);
          if (classifyError(original, { surface: 'graphql' }).log) {
            contextValue.log.error({ err: original, path: error.path }, 'unexpected GraphQL error');
          }
        }
      },
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
        response.body.singleResult.errors = response.body.singleResult.errors.map((error) => ({
          ...error,
          extensions: { ...error.extensions, requestId: contextValue.requestId },
        }));
      },
    };
  },
};

type Gateway = ApolloServerOptionsWithGateway<Context>['gateway'];

/**
 * Apollo's executor seam: Apollo still parses, validates (with the limits above), runs every
 * plugin and formats every error; only execution itself goes to `CompiledDocuments`, which runs a
 * repeated query as a compiled function and anything else through graphql-js as before.
 */
function compiledExecution(schema: GraphQLSchema): Gateway {
  const documents = new CompiledDocuments(schema, { compileOnUse: 2, maxEntries: 500, answers: documentAnswers });
  return {
    async load() {
      return {
        executor: async (request) => {
          const run = () =>
            documents.execute({
              key: `${request.queryHash}:${request.request.operationName ?? ''}`,
              document: request.document,
              operation: request.operation,
              operationName: request.request.operationName,
              contextValue: request.context,
              variableValues: request.request.variables,
            });
          // Traced: the resolvers and their statements run inside the operation's span (graphql/tracing-plugin.ts).
          const traced = operationContext(request.context);
          return markedRequestErrors(await (traced ? context.with(traced, run) : run()));
        },
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async stop() {},
  };
}

/**
 * What the public server and the console's (console/apollo.ts) are both made with: the limits
 * (depth, aliases, tokens), the error formatting (classifyError: codes, request ids, masking),
 * logging and JSON.
 */
export function sharedOptions(app: FastifyInstance, config: Config) {
  const production = config.env === 'production';
  return {
    introspection: !production,
    validationRules: limitRules(config.graphqlLimits),
    parseOptions: parseOptions(config.graphqlLimits),
    // "Did you mean …?" hints would spell out the schema to anyone without introspection.
    hideSchemaDetailsFromClientErrors: production,
    formatError: formatError(config.env === 'development'),
    // Errors are logged by requestIdPlugin with the request's own logger.
    logger: { debug: () => {}, info: () => {}, warn: (m: string) => app.log.warn(m), error: (m: string) => app.log.error(m) },
    includeStacktraceInErrorResponses: false,
    // main.ts owns shutdown (drain HTTP, flush usage, close the pool), in that order.
    stopOnTerminationSignals: false,
    // Compact JSON (Apollo indents by default), with fields PostgreSQL serialised spliced in as they are.
    stringifyResult,
  };
}

/** `pages.explorer` makes the landing page shown outside production: the server's explorer (http/pages/explorer). */
export function createApollo(
  app: FastifyInstance,
  schema: GraphQLSchema,
  config: Config,
  pages: { explorer?: () => ApolloServerPlugin } = {},
  heavy?: HeavyRequests,
  /** Further plugins of the gateway (operation metrics), run after the ones above. */
  more: ApolloServerPlugin<Context>[] = [],
): ApolloServer<Context> {
  const production = config.env === 'production';
  return new ApolloServer<Context>({
    gateway: compiledExecution(schema),
    ...sharedOptions(app, config),
    plugins: [
      // Cache hints are not used; left on, the plugin wraps every field resolver of every response.
      ApolloServerPluginCacheControlDisabled(),
      fastifyApolloDrainPlugin(app),
      costLimitPlugin(schema, config.graphqlLimits, heavy),
      requestIdPlugin,
      // Before databaseUnavailablePlugin, whose 503 wins over this 200.
      executedRequestStatusPlugin,
      databaseUnavailablePlugin,
      // Outside production, the explorer bundled with the gateway (no CDN); Apollo Sandbox is a link from it.
      production || !pages.explorer ? ApolloServerPluginLandingPageProductionDefault({ footer: false }) : pages.explorer(),
      ...more,
    ],
  });
}
