import { NetworkError, type NetworkFailure } from './adapter.js';
import type { NamedNetwork } from './declaration.js';
import { endNetworkSpan, startNetworkSpan, type CallOutcome } from './spans.js';

/** How long a network has to answer (headers and body) before it counts as unreachable. */
export const networkTimeoutMs = 5000;

/**
 * Reads a network's answer for failures its status alone does not tell (a 400 that means "bad
 * token", a 200 that carries an error). Undefined: no opinion, the status decides.
 */
export type Classifier = (status: number, body: unknown) => NetworkFailure | undefined;

/** The common rule: 401 and 403 refuse the credentials. */
export const refusedByStatus: Classifier = (status) => (status === 401 || status === 403 ? 'invalid_credentials' : undefined);

export interface NetworkRequest {
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** A form body (application/x-www-form-urlencoded). */
  form?: URLSearchParams;
  classify?: Classifier;
}

const explanations: Record<NetworkFailure, string> = {
  invalid_credentials: 'refused the credentials',
  uid_mismatch: 'named another user',
  unreachable: 'is not available',
  retired: 'is retired',
  not_supported: "refused the gateway's client",
};

/**
 * One JSON call to a network. Connection failures, timeouts, answers the classifier does not
 * explain (5xx, 429, other 4xx) and bodies that are not JSON objects are all `unreachable`.
 */
export async function callNetwork(network: NamedNetwork, url: URL | string, request: NetworkRequest = {}): Promise<Record<string, unknown>> {
  return exchange(network, url, request, (body) => {
    if (!isObject(body)) throw new NetworkError(network.id, 'unreachable', `${network.name} answered something other than a JSON object.`);
    return body;
  });
}

/**
 * A call whose answer carries nothing to read (Spotify answers a save with an empty body, Deezer
 * with `true`): failures as in `callNetwork`; any successful answer is returned as parsed, if JSON.
 */
export async function sendToNetwork(network: NamedNetwork, url: URL | string, request: NetworkRequest = {}): Promise<unknown> {
  return exchange(network, url, request, (body) => body);
}

/**
 * Every call to a network goes through here: sent, classified and read inside its span when
 * tracing is on (spans.ts), which records how it ended.
 */
async function exchange<T>(network: NamedNetwork, url: URL | string, request: NetworkRequest, read: (body: unknown) => T): Promise<T> {
  const method = request.method ?? 'GET';
  const span = startNetworkSpan(network, url, method);
  const outcome: CallOutcome = {};
  try {
    return read(await answerOf(network, url, method, request, outcome));
  } catch (error) {
    outcome.error = error;
    throw error;
  } finally {
    if (span) endNetworkSpan(span, outcome);
  }
}

/** Sends the call and returns the answer's body (parsed, if JSON) when neither its status nor the classifier says it failed. */
async function answerOf(network: NamedNetwork, url: URL | string, method: string, request: NetworkRequest, outcome: CallOutcome): Promise<unknown> {
  const { id, name } = network;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  let status: number;
  let text: string;
  try {
    const response = await fetch(url, {
      method,
      headers,
      body: request.form?.toString(),
      signal: AbortSignal.timeout(networkTimeoutMs),
    });
    status = outcome.status = response.status;
    text = await response.text();
  } catch (error) {
    outcome.unanswered = failureType(error);
    throw new NetworkError(id, 'unreachable', `${name} could not be reached (${cause(error)}).`);
  }
  const body = parseJson(text);
  const failure = (request.classify ?? refusedByStatus)(status, body);
  if (failure) throw new NetworkError(id, failure, `${name} ${explanations[failure]} (HTTP ${status}${detail(body)}).`);
  if (status < 200 || status > 299) throw new NetworkError(id, 'unreachable', `${name} answered HTTP ${status}${detail(body)}.`);
  return body;
}

/** Why a call failed, without the request's URL (which may carry a token). */
function cause(error: unknown): string {
  const type = failureType(error);
  return type === 'TimeoutError' ? `no answer within ${networkTimeoutMs / 1000} s` : type;
}

/** Why no answer came, in a word: `TimeoutError`, the socket's code (`ECONNREFUSED`), or the error's name. */
function failureType(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'TimeoutError';
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown error';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The network's own words about a failure, when it gives some: OAuth `error_description`, `error.message`, `message`. */
function detail(body: unknown): string {
  const said = [at(body, 'error_description'), at(body, 'error.message'), at(body, 'message'), at(body, 'meta.msg'), at(body, 'error')].find((value) => typeof value === 'string' && value !== '');
  return said ? `: ${(said as string).slice(0, 200)}` : '';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a dotted path (`data.id`, `items.0.snippet.customUrl`) out of a JSON body. */
export function at(body: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), body);
}

/** A non-empty string (ids may come as numbers), or undefined. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A count given as a number or a numeric string (YouTube sends strings), or undefined. */
export function count(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : undefined;
}

/** The API root and the path joined, whether or not the root ends with a slash. */
export function endpoint(baseUrl: string, path: string): URL {
  return new URL(baseUrl.replace(/\/+$/, '') + path);
}
