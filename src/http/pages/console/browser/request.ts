// The console's one way to the server: typed GraphQL documents (generated/graphql.ts) posted to
// /console/graphql, and the plain JSON routes beside it (sign-in, invite). The session cookie goes
// with each request on its own; the x-console-csrf header is what a cross-site form cannot send.
import { readPageConfig } from '../../shared/browser/config.js';
import type { ConsoleConfig } from '../config.js';
import type { TypedDocumentString } from './generated/graphql.js';

const config = readPageConfig<ConsoleConfig>();

export const csrfHeaders = { 'x-console-csrf': '1' } as const;

interface ServerError {
  message: string;
  extensions?: { code?: string; param?: string };
}

/** What the server refused, with the input field it names (`param`) when it names one, so a form can flag it. */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
  }

  /** The session ended (expired, revoked, signed out elsewhere): the console goes back to sign-in. */
  get signedOut(): boolean {
    return this.status === 401 || this.code === 'STAFF_SESSION_REQUIRED' || this.code === 'UNAUTHENTICATED';
  }
}

function firstError(errors: ServerError[], status: number): RequestError {
  const [first] = errors;
  return new RequestError(errors.map((error) => error.message).join(' '), status, first.extensions?.code, first.extensions?.param);
}

/** One operation: its data, or a RequestError carrying the server's first error's code and field. */
export async function request<R, V>(document: TypedDocumentString<R, V>, variables: V, signal?: AbortSignal): Promise<R> {
  const response = await fetch(config.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...csrfHeaders },
    body: JSON.stringify({ query: document.toString(), variables }),
    signal,
  });
  let body: { data?: R | null; errors?: ServerError[] };
  try {
    body = (await response.json()) as typeof body;
  } catch {
    throw new RequestError(`The server answered HTTP ${response.status} without a GraphQL body.`, response.status);
  }
  if (body.errors?.length) throw firstError(body.errors, response.status);
  if (!body.data) throw new RequestError(`The server answered HTTP ${response.status} without data.`, response.status);
  return body.data;
}

/** A POST of JSON to one of the console's plain routes; their errors have the REST layer's shape or GraphQL's. */
export async function postJson<T = unknown>(path: string, payload: unknown): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...csrfHeaders },
    body: JSON.stringify(payload),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a proxy's page): the status alone says what happened.
  }
  if (response.ok) return body as T;
  throw errorOfBody(body, response.status);
}

/** Reads the error out of whichever body a refusal came with: `{ error: { type, code, message, param } }`, `{ errors: [...] }` or `{ message }`. */
export function errorOfBody(body: unknown, status: number): RequestError {
  const value = (body ?? {}) as {
    error?: { code?: number | string; type?: string; message?: string; param?: string | null } | string;
    errors?: ServerError[];
    message?: string;
    code?: string;
    param?: string;
  };
  if (value.errors?.length) return firstError(value.errors, status);
  if (value.error && typeof value.error === 'object') {
    // The REST layer's body: `type` is the error's name, `code` its number.
    return new RequestError(value.error.message ?? `HTTP ${status}`, status, value.error.type ?? String(value.error.code ?? ''), value.error.param ?? undefined);
  }
  const message = value.message ?? (typeof value.error === 'string' ? value.error : `The server answered HTTP ${status}.`);
  return new RequestError(message, status, value.code, value.param);
}
