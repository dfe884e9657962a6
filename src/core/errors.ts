import { GraphQLError } from 'graphql';
import { databaseFailure, raceFailure, type RaceFailure } from '../db/errors.js';

/**
 * The one error catalogue of the product. GraphQL errors carry `extensions.code` (the name) and
 * `extensions.aeCode` (the number); the REST layer turns the same error into its error body with the
 * HTTP status listed here. Nothing else in the code base invents error codes.
 */
export const errorCatalogue = {
  MISSING_API_KEY: { aeCode: 1, status: 401 },
  INVALID_API_KEY: { aeCode: 2, status: 401 },
  MISSING_PARAMETER: { aeCode: 3, status: 400 },
  INVALID_PARAMETER: { aeCode: 4, status: 400 },
  NOT_FOUND: { aeCode: 5, status: 404 },
  /** A `/v1.1` path that exists, called with a method it does not take (the `Allow` header lists those). */
  METHOD_NOT_ALLOWED: { aeCode: 5, status: 405 },
  RATE_LIMITED: { aeCode: 6, status: 429 },
  WRONG_APPLICATION: { aeCode: 7, status: 403 },
  PLAN_REQUIRED: { aeCode: 9, status: 403 },
  FEATURE_NOT_ENABLED: { aeCode: 12, status: 403 },
  NO_ACCOUNT: { aeCode: 13, status: 401 },
  INVALID_TOKEN: { aeCode: 15, status: 401 },
  DOMAIN_NOT_WHITELISTED: { aeCode: 16, status: 403 },
  CONFLICT: { aeCode: 17, status: 409 },
  WRONG_PASSWORD: { aeCode: 18, status: 401 },
  /**
   * A verification of an address another member of the account holds already (AE's email
   * collision): nothing is verified or merged; the member signs in to the other account, and a
   * merge needs the merged member's own access token (member/[id]/merge).
   */
  EMAIL_IN_USE: { aeCode: 1111, status: 409 },
  /** The console (`/console`): no live staff session (signed out, expired, revoked), or a second factor owed. */
  STAFF_SESSION_REQUIRED: { aeCode: 21, status: 401 },
  /** The console: the staff member's role does not allow the operation, or a write without the console's CSRF proof; nothing was done. */
  FORBIDDEN: { aeCode: 22, status: 403 },
  INTERNAL: { aeCode: 20, status: 500 },
  /** A network (Spotify, YouTube, …) did not answer: not the caller's fault, worth a retry. */
  NETWORK_UNAVAILABLE: { aeCode: 20, status: 502 },
  /** The database is down, restarting or unreachable (src/db/errors.ts decides): worth a retry. */
  DATABASE_UNAVAILABLE: { aeCode: 20, status: 503 },
  /**
   * A statement of the request ran longer than the statement timeout (STATEMENT_TIMEOUT_MS) and was
   * cancelled (SQLSTATE 57014): the request asked for more work than the gateway gives one request,
   * or the database is overloaded. Ask for less, or retry later.
   */
  STATEMENT_TIMEOUT: { aeCode: 20, status: 503 },
  /**
   * The gateway did not finish the request within RESPONSE_TIMEOUT_MS (http/response-deadline.ts):
   * it answers this instead of keeping the client waiting, and stops the request's statements.
   */
  RESPONSE_TIMEOUT: { aeCode: 20, status: 503 },
  /** The gateway is shutting down: a request that arrives meanwhile is not started (retry elsewhere, or once it is back). */
  SHUTTING_DOWN: { aeCode: 20, status: 503 },
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export interface AppErrorExtensions {
  code: ErrorCode;
  aeCode: number;
  /** The parameter (REST) or argument (GraphQL) at fault, when there is one. */
  param: string | null;
  http: { status: number };
  [key: string]: unknown;
}

export class AppError extends GraphQLError {
  declare readonly extensions: AppErrorExtensions;

  constructor(code: ErrorCode, message: string, param: string | null = null) {
    const { aeCode, status } = errorCatalogue[code];
    super(message, { extensions: { code, aeCode, param, http: { status } } });
    this.name = 'AppError';
  }
}

export const missingParameter = (param: string, message = `The parameter '${param}' is required.`) => new AppError('MISSING_PARAMETER', message, param);

/** Throws MISSING_PARAMETER: for the right side of `??` where a value is required (`readName(name) ?? throwMissing('name')`). */
export function throwMissing(param: string): never {
  throw missingParameter(param);
}

export const invalidParameter = (param: string, expected: string) => new AppError('INVALID_PARAMETER', `The parameter '${param}' is invalid: ${expected}.`, param);

export const notFound = (what: string, param: string | null = 'id') => new AppError('NOT_FOUND', `${what} not found.`, param);

/**
 * RATE_LIMITED, with the seconds to wait before trying again: Apollo sends an error's
 * `extensions.http.headers` with it, and the other transports send `retryAfterSecondsOf` as
 * `Retry-After` (http/server.ts, the hosted pages), so every refusal of the kind carries the header.
 */
export function rateLimited(message: string, retryAfterSeconds: number, param: string | null = null): AppError {
  const error = new AppError('RATE_LIMITED', message, param);
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  Object.assign(error.extensions.http, { headers: new Map([['retry-after', String(seconds)]]), retryAfterSeconds: seconds });
  return error;
}

/** The seconds a refusal made by `rateLimited` asks the caller to wait, when it is one (or wraps one). */
export function retryAfterSecondsOf(error: unknown): number | undefined {
  const known = error instanceof GraphQLError ? appErrorOf(error) : undefined;
  const seconds = (known?.extensions.http as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === 'number' ? seconds : undefined;
}

/** True for errors raised on purpose (AppError, or one rebuilt from its extensions by graphql-js). */
export function isAppError(error: unknown): error is GraphQLError & { extensions: AppErrorExtensions } {
  if (!(error instanceof GraphQLError)) return false;
  const code = error.extensions?.code;
  return typeof code === 'string' && code in errorCatalogue && typeof error.extensions.aeCode === 'number';
}

/** Finds the AppError behind a located GraphQL error (graphql-js wraps resolver errors). */
export function appErrorOf(error: GraphQLError): (GraphQLError & { extensions: AppErrorExtensions }) | undefined {
  if (error.originalError instanceof AppError) return error.originalError;
  if (isAppError(error)) return error;
  return undefined;
}

const dataExceptionMessages: Record<string, string> = {
  '22P02': 'a value does not have the expected form',
  '22003': 'a number is out of range',
  '22021': 'a text contains bytes that are not valid UTF-8',
  '22P05': 'a text contains a character that cannot be stored',
  '22008': 'a date or time is out of range',
  '22007': 'a date or time does not have the expected form',
  '22001': 'a value is too long',
};

/**
 * What a race between clients that the database settled answers (db/errors.ts, raceFailure): the
 * loser's documented code, never a 500. Nothing of the losing request was written.
 */
const raceAnswers: { [K in RaceFailure['kind']]: (race: Extract<RaceFailure, { kind: K }>) => { code: ErrorCode; message: string; param: string | null } } = {
  'member-gone': () => ({ code: 'NOT_FOUND', message: 'Member not found (it was deleted meanwhile).', param: 'memberId' }),
  'identity-taken': ({ network }) =>
    network === undefined || network === 'email'
      ? { code: 'CONFLICT', message: 'Another member signs in with this email address.', param: 'email' }
      : { code: 'CONFLICT', message: `Another member signs in with this ${network} account.`, param: 'network' },
  'merged-meanwhile': () => ({ code: 'CONFLICT', message: 'The member was merged into another member meanwhile; nothing was changed, retry to act on the survivor.', param: 'memberId' }),
  collided: () => ({ code: 'CONFLICT', message: 'The request collided with concurrent changes of the same data and was not applied; retry it.', param: null }),
};

/** Apollo's codes for errors about the request itself (syntax, validation, variables): the caller's to fix. */
const documentErrorCodes = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PERSISTED_QUERY_HASH_MISMATCH',
]);

/**
 * Apollo's persisted-query refusals that carry no code of their own (only an HTTP 400), by their
 * message: without one they would be classified unexpected, masked and logged as a bug, when they
 * are the caller's error. PERSISTED_QUERY_HASH_MISMATCH is the Apollo Router's code for the first.
 */
const persistedQueryRefusals = new Map([
  ['provided sha does not match query', 'PERSISTED_QUERY_HASH_MISMATCH'],
  ['Unsupported persisted query version', 'PERSISTED_QUERY_NOT_SUPPORTED'],
]);

/** A request Node's HTTP parser refused, by the parser's code: its status and what the caller is told. */
function parserRefusal(code: unknown): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, message: 'The URL or the headers are too long: send long parameters in a POST body instead.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request was not sent in time.' };
  return { status: 400, message: 'The request could not be read as HTTP.' };
}

/**
 * What a thrown error is:
 * - `known`: an AppError (or one graphql-js rebuilt), reported as it is;
 * - `request`: a request the HTTP layer could not read (Fastify's own 4xx: 400; Node's parser refusals: 400, 408, 431): code 4;
 * - `document`: a GraphQL document that failed parsing, validation or its variables: Apollo's code, number 4, 400;
 * - `database`: the database unavailable (503), a statement cancelled by the statement timeout (503), or a data exception the parameter rules missed (400), its detail masked;
 * - `unexpected`: anything else, a bug: 500, masked, logged.
 */
export type ErrorKind = 'known' | 'request' | 'document' | 'database' | 'unexpected';

export interface ErrorClassification {
  kind: ErrorKind;
  /** The HTTP status the response answers. */
  status: number;
  /** The catalogue's name, or Apollo's code for a document error. */
  code: string;
  /** The number of the `/v1.1` interface (`aeCode`). */
  number: number;
  /** What the caller reads: the error's own message, or in its place the classified one when `masked`. */
  message: string;
  param: string | null;
  /** The error's own message is not shown (it may quote SQL or internals): the body names the request id, the detail is in the log. */
  masked: boolean;
  /** Whether, and at which level, the error is logged in full with the request id. */
  log: 'error' | false;
}

export interface ClassifyOptions {
  /** Who reads the message: REST masks every unexpected error; GraphQL masks it unless `exposeInternals`. */
  surface: 'rest' | 'graphql';
  /** The request's id, quoted by REST's masked message. */
  requestId?: string;
  /** Show an unexpected error's own message (GraphQL in development); it is still logged. */
  exposeInternals?: boolean;
  /** The error is Node's HTTP parser refusing the request (http/client-errors.ts), before Fastify saw it. */
  source?: 'http-parser';
}

const catalogued = (kind: ErrorKind, code: ErrorCode, message: string, param: string | null, masked: boolean): ErrorClassification => ({
  kind,
  status: errorCatalogue[code].status,
  code,
  number: errorCatalogue[code].aeCode,
  message,
  param,
  masked,
  log: masked ? 'error' : false,
});

/**
 * The one place that decides, for any thrown error, its HTTP status, its code and number, whether
 * its message is shown or masked, and whether it is logged. The REST error body (rest/errors.ts,
 * the HTTP error handler) and GraphQL's error formatting (graphql/apollo.ts, unavailable.ts) only
 * present what this answers. A GraphQL error is passed as Apollo's `unwrapResolverError` leaves it.
 */
export function classifyError(error: unknown, options: ClassifyOptions): ErrorClassification {
  if (options.source === 'http-parser') {
    const refusal = parserRefusal((error as { code?: unknown } | null)?.code);
    return { ...catalogued('request', 'INVALID_PARAMETER', refusal.message, null, false), status: refusal.status };
  }
  const known = error instanceof GraphQLError ? appErrorOf(error) : undefined;
  if (known) {
    const { code, param } = known.extensions;
    return catalogued('known', code, known.message, param, false);
  }
  const race = raceFailure(error);
  if (race) {
    const { code, message, param } = raceAnswers[race.kind](race as never);
    // The database's own message names tables and constraints: masked by the answer above, and not logged (nothing went wrong).
    return { ...catalogued('database', code, message, param, true), log: false };
  }
  const database = databaseFailure(error);
  if (database?.kind === 'unavailable') {
    return catalogued('database', 'DATABASE_UNAVAILABLE', 'The database is unavailable; retry in a few seconds.', null, true);
  }
  if (database?.kind === 'client-gone') {
    // Nobody reads this answer: the client left, and its statements were cancelled on purpose.
    return { ...catalogued('database', 'STATEMENT_TIMEOUT', 'The client went away before the answer; its statements were cancelled.', null, true), log: false };
  }
  if (database?.kind === 'cancelled') {
    const message = 'A database statement of this request ran longer than the statement timeout and was cancelled: ask for less (a shorter window, fewer filter items) or retry later.';
    return catalogued('database', 'STATEMENT_TIMEOUT', message, null, true);
  }
  if (database?.kind === 'data') {
    const message = `A parameter is invalid: ${dataExceptionMessages[database.sqlstate] ?? 'a value is not acceptable'}.`;
    return catalogued('database', 'INVALID_PARAMETER', message, null, true);
  }
  // Fastify's own refusals (malformed JSON, an unsupported body, the router's) carry a 4xx statusCode; their status stays the catalogue's 400.
  // They reach the HTTP layer's error handler only: a resolver's error that happens to carry a statusCode is unexpected on GraphQL.
  const status = options.surface !== 'rest' || error instanceof GraphQLError ? undefined : (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = error instanceof Error ? error.message : 'The request could not be read.';
    return catalogued('request', 'INVALID_PARAMETER', `The request could not be read: ${message}`, null, false);
  }
  const apolloCode = error instanceof GraphQLError ? (error.extensions?.code ?? persistedQueryRefusals.get(error.message)) : undefined;
  if (error instanceof GraphQLError && typeof apolloCode === 'string' && documentErrorCodes.has(apolloCode)) {
    return { kind: 'document', status: 400, code: apolloCode, number: errorCatalogue.INVALID_PARAMETER.aeCode, message: error.message, param: null, masked: false, log: false };
  }
  const masked = options.surface === 'rest' || !options.exposeInternals;
  const own = error instanceof Error ? error.message : String(error);
  const message = !masked
    ? own
    : options.surface === 'rest'
      ? `Internal error; quote request id ${options.requestId} when reporting it.`
      : 'Internal error: the request id in extensions identifies it in the server log.';
  return { kind: 'unexpected', status: 500, code: 'INTERNAL', number: errorCatalogue.INTERNAL.aeCode, message, param: null, masked, log: 'error' };
}
