import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { runCounted } from '../db/roundtrips.js';
import { assertAccess } from '../graphql/auth.js';
import { AppError } from '../graphql/errors.js';
import { Params } from './params.js';
import { prepareRoutes, runRoute, type RestRoute } from './route.js';

/**
 * Registers the `/v1.1` route table. Each handler reads the parameters, runs the route's GraphQL
 * document in-process with the request's context, and shapes the data into the interface's body.
 */
export function registerRestRoutes(app: FastifyInstance, schema: GraphQLSchema, routes: readonly RestRoute[]): void {
  prepareRoutes(schema, routes);
  for (const route of routes) {
    app.route({
      method: [...route.methods],
      url: `/v1.1${route.path}`,
      config: { kind: 'rest' },
      handler: async (request) => {
        // The key is checked before the parameters, so a caller without one learns that first.
        if (request.context.caller.kind === 'anonymous') assertAccess(request.context.caller, []);
        if (route.plan) assertAccess(request.context.caller, [route.plan]);
        const params = Params.fromRequest(request);
        const variables = route.variables(params, request) as Record<string, unknown>;
        const data = await runCounted(request.roundTrips, () => runRoute(schema, route, request.context, variables)).catch((error: unknown) => {
          if (route.errorParam && error instanceof AppError && error.extensions.param) {
            error.extensions.param = route.errorParam(error.extensions.param, params);
          }
          throw error;
        });
        return route.shape(data, params, request);
      },
    });
  }
}
