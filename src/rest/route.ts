import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { FastifyRequest } from 'fastify';
import { execute, getOperationAST, OperationTypeNode, specifiedRules, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { Context } from '../core/context.js';
import { compileDocument, planAnswer, type SqlAnswer } from '../graphql/execution.js';
import { documentAnswers } from '../graphql/answers.js';
import { costKey, limitRules, operationCost, type Limits } from '../graphql/limits.js';
import { AppError, invalidParameter } from '../core/errors.js';
import type { Params } from './params.js';
import { isId, maxIntegerId } from '../lib/ids.js';
import type { ResponseSchemaName } from './openapi/schemas.js';

export type HttpMethod = 'GET' | 'POST';

/**
 * A document's data as a route shapes it: its root fields without null. On `/graphql` a lookup by
 * id (`brand`, `member`, `brandStats`, `presaveJob`) is nullable, so that one not found spares the
 * request's other fields; it is null only with its error, and runRoute throws that error (the
 * route's 404) before anything is shaped.
 */
export type RouteData<TData> = { [K in keyof TData]: NonNullable<TData[K]> };

/**
 * One `/v1.1` operation: which GraphQL document it runs, how the parameters become its variables,
 * and how its data becomes the interface's envelope. A route never touches the database itself.
 */
export interface RestRoute<TData = unknown, TVariables = Record<string, unknown>> {
  methods: readonly HttpMethod[];
  /** Fastify path below `/v1.1`, such as `/member/:id`. */
  path: string;
  /**
   * What the operation does, for the OpenAPI document (`/v1.1/openapi.json`) and its reference
   * page: the first sentence is the operation's summary. The parameters are not listed here: the
   * document reads them from `variables` itself.
   */
  description: string;
  /** The schema of a success body (src/rest/openapi/schemas.ts); without one the document promises a JSON value. */
  response?: ResponseSchemaName;
  /**
   * Values that make a valid call, where a made-up value would be refused before the others are
   * read (`interval=day`): the document shows them as examples and discovers parameters with them.
   */
  examples?: Record<string, string>;
  document: TypedDocumentNode<TData, TVariables>;
  variables(params: Params, request: FastifyRequest): TVariables;
  shape(data: RouteData<TData>, params: Params, request: FastifyRequest): unknown;
  /**
   * The REST parameter an error's GraphQL argument is on this route, where the route spells it
   * otherwise than the shared table (rest/error-params.ts); undefined leaves it to the table. The
   * error is given for a route whose parameter depends on what failed (see the merge route).
   */
  errorParam?(graphqlParam: string, params: Params, error: AppError): string | undefined;
}

/** A numeric id from the path (`/member/:id`), checked before anything runs. */
export function pathId(request: FastifyRequest, param = 'id'): string {
  const value = (request.params as Record<string, string | undefined>)[param] ?? '';
  if (!/^\d{1,10}$/.test(value) || !isId(Number(value))) throw invalidParameter(param, `expected a numeric id from 1 to ${maxIntegerId} in the path`);
  return value;
}

/** Keeps each route's data and variable types tied to its document. */
export function defineRoute<TData, TVariables>(route: RestRoute<TData, TVariables>): RestRoute {
  return route as unknown as RestRoute;
}

/**
 * Every route's document validated once, at start, by the rules `/graphql` applies (graphql's and
 * graphql/limits.ts's depth, alias and definition limits): a broken route, or one the limits
 * refuse, stops the boot. The documents are fixed, so nothing of this is done again per call.
 *
 * The cost limit is not applied: it exists because a `/graphql` caller writes any document with
 * any page size, whereas a route's document is fixed and its page size bounded by the interface
 * (at most 1000 items, REST.md), which is the contract existing integrations rely on; a listing of
 * 1000 full member records prices above `/graphql`'s default cost limit (see docs/errors.md).
 */
export function prepareRoutes(schema: GraphQLSchema, routes: readonly RestRoute[], limits: Limits): void {
  const rules = [...specifiedRules, ...limitRules(limits)];
  for (const route of routes) {
    const errors = validate(schema, route.document, rules);
    if (errors.length) {
      throw new Error(`REST route ${route.path}: its GraphQL document is invalid: ${errors.map((e) => e.message).join('; ')}`);
    }
  }
}

/** Costs kept per route: a route's cost varies with its page size and `extended` only, so a few each. */
const routeCosts = new WeakMap<RestRoute, Map<string, number>>();
const routeCostsKept = 100;

/**
 * What the call costs by `/graphql`'s estimate (graphql/limits.ts): not limited on a route (see
 * prepareRoutes), but what decides whether it is a heavy request (graphql/heavy-requests.ts).
 * Variables the estimator cannot read price the call as light; running it reports them as before.
 */
export function routeCost(schema: GraphQLSchema, route: RestRoute, variables: Record<string, unknown>): number {
  const document = route.document as DocumentNode;
  const operation = getOperationAST(document);
  if (!operation) return 0;
  let costs = routeCosts.get(route);
  if (!costs) {
    costs = new Map();
    routeCosts.set(route, costs);
  }
  const key = costKey('', null, operation, variables);
  let cost = costs.get(key);
  if (cost === undefined) {
    try {
      cost = operationCost(schema, document, variables);
    } catch {
      return 0;
    }
    costs.set(key, cost);
    if (costs.size > routeCostsKept) costs.delete(costs.keys().next().value!);
  }
  return cost;
}

/**
 * Each route's document compiled once per schema (graphql-jit), on the route's first call, with the
 * answer that may run it without its resolvers (graphql/answers.ts); `query` null when it cannot be
 * compiled, and the route then runs through graphql-js.
 */
interface CompiledRoute {
  query: CompiledQuery | null;
  answer: SqlAnswer | undefined;
}
const compiledRoutes = new WeakMap<GraphQLSchema, Map<RestRoute, CompiledRoute>>();

function compiledRoute(schema: GraphQLSchema, route: RestRoute): CompiledRoute {
  let routes = compiledRoutes.get(schema);
  if (!routes) {
    routes = new Map();
    compiledRoutes.set(schema, routes);
  }
  let compiled = routes.get(route);
  if (compiled === undefined) {
    const document = route.document as DocumentNode;
    // Mutations keep graphql-js's execution: their fields run one after another, and the writes dominate.
    const operation = getOperationAST(document);
    const query = operation?.operation === OperationTypeNode.QUERY;
    compiled = {
      query: (query && compileDocument(schema, document)) || null,
      answer: query ? planAnswer(documentAnswers, schema, document, operation) : undefined,
    };
    routes.set(route, compiled);
  }
  return compiled;
}

/**
 * Runs the route's document in-process, with the request's context; the first error is thrown, so
 * a lookup that found nothing answers the route's not found as before, not a null (RouteData).
 */
export async function runRoute(schema: GraphQLSchema, route: RestRoute, context: Context, variables: Record<string, unknown>): Promise<RouteData<Record<string, unknown>>> {
  const { query, answer } = compiledRoute(schema, route);
  const result: ExecutionResult =
    (answer && (await answer(context as never, variables))) ??
    (query ? await query.query(undefined, context, variables) : await execute({ schema, document: route.document, contextValue: context, variableValues: variables }));
  if (result.errors?.length) {
    const [first] = result.errors;
    throw first.originalError instanceof AppError ? first.originalError : (first.originalError ?? first);
  }
  if (!result.data) throw new Error(`REST route ${route.path} returned no data`);
  const empty = Object.keys(result.data).find((field) => result.data![field] === null);
  if (empty !== undefined) throw new Error(`REST route ${route.path}: ${empty} is null without an error`);
  return result.data as RouteData<Record<string, unknown>>;
}
