import type { FastifyInstance } from 'fastify';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Limits } from '../graphql/limits.js';
import type { HeavyRequests } from '../graphql/heavy-requests.js';
import { runCounted } from '../db/roundtrips.js';
import { tracedOperation } from '../graphql/tracing-plugin.js';
import { assertAccess } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { restParam } from './error-params.js';
import { Params } from './params.js';
import { planOf } from './plans.js';
import { prepareRoutes, routeCost, runRoute, type RestRoute } from './route.js';

/**
 * Registers the `/v1.1` route table. Each handler reads the parameters, runs the route's GraphQL
 * document in-process with the request's context, within the limits of `/graphql`, and shapes the data into the interface's body.
 * A heavy call (a large page) waits for one of its key's heavy slots, as on `/graphql`.
 */
export function registerRestRoutes(app: FastifyInstance, schema: GraphQLSchema, routes: readonly RestRoute[], limits: Limits, heavy?: HeavyRequests): void {
  // The limits of /graphql on the fixed documents: depth, aliases and definitions, checked here once.
  prepareRoutes(schema, routes, limits);
  for (const route of routes) {
    app.route({
      method: [...route.methods],
      url: `/v1.1${route.path}`,
      config: { kind: 'rest' },
      handler: async (request) => {
        // The key is checked before the parameters, so a caller without one learns that first.
        if (request.context.caller.kind === 'anonymous') assertAccess(request.context.caller, []);
        // The plan the document's resolvers declare, checked before the parameters so a basic plan learns that first.
        const plan = planOf(route.document);
        if (plan) assertAccess(request.context.caller, [plan]);
        const params = Params.fromRequest(request);
        const variables = route.variables(params, request);
        const release = heavy ? await heavy.admit(request.context.caller, routeCost(schema, route, variables), request.roundTrips.statements?.signal) : () => {};
        // The slot is given back once the document has run (its statements and execution); shaping is light next to it.
        const data = await runCounted(request.roundTrips, () => tracedOperation(route.document as DocumentNode, () => runRoute(schema, route, request.context, variables)))
          .finally(release)
          .catch((error: unknown) => {
            if (error instanceof AppError && error.extensions.param) {
              const graphqlParam = error.extensions.param;
              error.extensions.param = route.errorParam?.(graphqlParam, params, error) ?? restParam(graphqlParam);
              // "The parameter 'first' is invalid" names the parameter the caller sent, too.
              error.message = error.message.replace(`The parameter '${graphqlParam}'`, `The parameter '${error.extensions.param}'`);
            }
            throw error;
          });
        return route.shape(data, params, request);
      },
    });
  }
  registerWrongMethods(app, routes);
}

/** Methods a caller might try on a `/v1.1` path; each path answers 405 for those it does not take. */
const triedMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A path called with a method it does not take answers 405 with the error body and an `Allow`
 * header, rather than falling through to a parametric route (`GET /member/register` is not member
 * show of a member named "register") or to "no such operation".
 */
function registerWrongMethods(app: FastifyInstance, routes: readonly RestRoute[]): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    for (const method of route.methods) methods.add(method);
    methodsByPath.set(route.path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const missing = triedMethods.filter((method) => !methods.has(method));
    if (!missing.length) continue;
    // Fastify answers HEAD for every GET route.
    const allowed = [...methods].flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ');
    app.route({
      method: missing,
      url: `/v1.1${path}`,
      config: { kind: 'rest' },
      handler: async (request, reply) => {
        reply.header('allow', allowed);
        const url = request.url.split('?')[0];
        throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url}; use ${[...methods].join(' or ')}.`, null);
      },
    });
  }
}
