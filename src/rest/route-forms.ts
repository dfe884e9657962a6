import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { FastifyRequest } from 'fastify';
import type { ResponseSchemaName } from './openapi/schemas.js';
import type { Params } from './params.js';
import { defineRoute, pathId, type RestRoute, type RouteData } from './route.js';

/**
 * The forms several route files share, so each route states only what is its own: a delete by the
 * path's id, a list of records, variables from the path alone. A route file imports these and the
 * records, never another route file.
 */

/** `{ id }` from the path (`/brand/:id/...`). */
export const idFromPath = (_params: unknown, request: FastifyRequest) => ({ id: pathId(request) });

/** `{ brandId }` from the path (`/brand/:id/...`). */
export const brandFromPath = (_params: unknown, request: FastifyRequest) => ({ brandId: pathId(request) });

/** The value of a document's one root field: `{ deleteBrand: true }` → true. */
export function rootField<TData>(data: RouteData<TData>): RouteData<TData>[keyof TData] {
  return Object.values(data)[0] as RouteData<TData>[keyof TData];
}

/** A page of a connection: `limit` (`n` or `offset,n`) as GraphQL's `first` and `offset`. */
export function pageOf(params: Params, ...limit: Parameters<Params['limit']>) {
  const { offset, limit: first } = params.limit(...limit);
  return { first, offset };
}

/** The listing envelope of a whole list: `{ totalSize, items }`, each item shaped as its record. */
export function listOf<T, R>(rows: readonly T[], record: (row: T) => R) {
  return { totalSize: rows.length, items: rows.map(record) };
}

/**
 * `POST /<thing>/:id/delete`: the id from the path, and `{ Result }` from the document's one
 * mutation field (true once deleted).
 */
export function deleteRoute<TData extends Record<string, boolean>>(path: string, description: string, document: TypedDocumentNode<TData, { id: string }>): RestRoute {
  return defineRoute({
    methods: ['POST'],
    path,
    description,
    response: 'Result',
    document,
    variables: idFromPath,
    shape: (data) => ({ Result: rootField(data) }),
  });
}

/** What a create or edit route is: its path and description, the schema of its answer, its document. */
interface ChangeRoute<TData, TVariables> {
  path: string;
  description: string;
  response?: ResponseSchemaName;
  document: TypedDocumentNode<TData, TVariables>;
  errorParam?: RestRoute['errorParam'];
}

/** `POST /<thing>/create`: `input` from the parameters, the record of what the document's one mutation field answers. */
export function createRoute<TInput, TResult>(route: ChangeRoute<Record<string, TResult>, { input: TInput }>, input: (params: Params) => TInput, record: (result: TResult) => unknown): RestRoute {
  return defineRoute({ ...route, methods: ['POST'], variables: (params) => ({ input: input(params) }), shape: (data) => record(rootField(data)) });
}

/** `POST /<thing>/:id/edit`: the id from the path, `input` from the parameters, the record of what it answers. */
export function editRoute<TInput, TResult>(route: ChangeRoute<Record<string, TResult>, { id: string; input: TInput }>, input: (params: Params) => TInput, record: (result: TResult) => unknown): RestRoute {
  return defineRoute({
    ...route,
    methods: ['POST'],
    variables: (params, request) => ({ id: pathId(request), input: input(params) }),
    shape: (data) => record(rootField(data)),
  });
}
