import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config.js';
import { requestIdPlugin, sharedOptions } from '../graphql/apollo.js';
import { executedRequestStatusPlugin } from '../graphql/http-status.js';
import { costLimit } from '../graphql/limits.js';
import { databaseUnavailablePlugin } from '../graphql/unavailable.js';
import type { ConsoleContext } from './context.js';

/**
 * The console's Apollo Server, beside the public one: the same limits (depth, aliases, tokens,
 * cost), the same error formatting (classifyError: codes, request ids, masking) and statuses. No
 * landing page, and no drain plugin: the public server's already closes Fastify, and the gateway
 * stops this one after it (http/server.ts). Apollo's CSRF prevention stays on, behind the
 * console's own check (console/csrf.ts).
 */
export function createConsoleApollo(app: FastifyInstance, schema: GraphQLSchema, config: Config): ApolloServer<ConsoleContext> {
  return new ApolloServer<ConsoleContext>({
    schema,
    ...sharedOptions(app, config),
    plugins: [
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginLandingPageDisabled(),
      costLimit<ConsoleContext>(schema, config.graphqlLimits),
      requestIdPlugin,
      executedRequestStatusPlugin,
      databaseUnavailablePlugin,
    ],
  });
}
