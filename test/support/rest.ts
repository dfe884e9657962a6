import type { OutgoingHttpHeaders } from 'node:http';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { Gateway } from '../../src/http/server.js';
import type { TestGateway, Tenant } from './gateway.js';

/** What a call goes through: a test gateway, or a gateway built by hand (production settings, a log kept). */
export type Target = Pick<TestGateway, 'request'> | Pick<Gateway, 'app'>;

export type RestMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export type RestParams = Record<string, string | number | boolean | null | undefined>;

export interface RestOptions {
  /** Where the key goes: the query string as apiKey (the default) or the x-api-key header. */
  key?: 'query' | 'header';
  /** More request headers; one named here replaces the key's header. */
  headers?: Record<string, string>;
  /** A request body: an object is sent as JSON, a string as it is (its content-type in `headers`). */
  payload?: InjectOptions['payload'];
  /** The address the request comes from (limits by address key on it). */
  remoteAddress?: string;
}

/** An answer: the status, the parsed JSON (undefined when the body is not JSON), the body as sent and the headers. */
export interface RestAnswer<T = any> {
  status: number;
  json: T;
  body: string;
  headers: OutgoingHttpHeaders;
}

/** A /graphql answer: the status, the parsed body (undefined when it is not JSON), the body as sent and the headers. */
export interface GraphqlAnswer<T = any> {
  status: number;
  body: { data?: T; errors?: any };
  text: string;
  headers: OutgoingHttpHeaders;
}

function send(target: Target, options: InjectOptions) {
  return 'request' in target ? target.request(options) : target.app.inject(options);
}

function parsed<T>(response: { json: <J>() => J }): T {
  try {
    return response.json<T>();
  } catch {
    return undefined as T;
  }
}

/**
 * Calls a /v1.1 route as an application would: the tenant's key (in the query string as apiKey,
 * or in the x-api-key header), every parameter in the query string (null and undefined left out),
 * `path` under /v1.1 unless it starts with it. A query string already in `path` is sent as written,
 * for encodings a test wants exactly. Without a tenant the request carries no key.
 */
export async function rest<T = any>(target: Target, tenant: Pick<Tenant, 'apiKey'> | null, method: RestMethod, path: string, params: RestParams = {}, options: RestOptions = {}): Promise<RestAnswer<T>> {
  const keyInHeader = options.key === 'header';
  const search = new URLSearchParams(tenant && !keyInHeader ? { apiKey: tenant.apiKey } : {});
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) search.append(name, String(value));
  }
  const query = search.toString();
  let url = path.startsWith('/v1.1/') ? path : `/v1.1${path}`;
  if (query) url += `${url.includes('?') ? '&' : '?'}${query}`;
  const headers = { ...(tenant && keyInHeader ? { 'x-api-key': tenant.apiKey } : {}), ...options.headers };
  const response = await send(target, { method, url, headers, payload: options.payload, remoteAddress: options.remoteAddress });
  return { status: response.statusCode, json: parsed<T>(response), body: response.body, headers: response.headers };
}

/** Posts a GraphQL operation to /graphql as JSON, with the key in the x-api-key header (none without one). */
export async function graphql<T = any>(
  target: Target,
  apiKey: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
  options: { operationName?: string; headers?: Record<string, string> } = {},
): Promise<GraphqlAnswer<T>> {
  const response = await send(target, {
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}), ...options.headers },
    payload: { query, variables, ...(options.operationName ? { operationName: options.operationName } : {}) },
  });
  return { status: response.statusCode, body: parsed(response), text: response.body, headers: response.headers };
}

/** The answer's JSON, once its status is 200 (the body is the failure's message otherwise). */
export async function ok<T = any>(answer: RestAnswer<T> | Promise<RestAnswer<T>>): Promise<T> {
  const { status, body, json } = await answer;
  expect(status, body).toBe(200);
  return json;
}
