import { GraphQLError } from 'graphql';
import { dataExceptionCode, databaseUnavailable } from '../db/errors.js';

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
  INTERNAL: { aeCode: 20, status: 500 },
  /** A network (Spotify, YouTube, …) did not answer: not the caller's fault, worth a retry. */
  NETWORK_UNAVAILABLE: { aeCode: 20, status: 502 },
  /** The database is down, restarting or unreachable (src/db/errors.ts decides): worth a retry. */
  DATABASE_UNAVAILABLE: { aeCode: 20, status: 503 },
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

export const missingParameter = (param: string, message = `The parameter '${param}' is required.`) =>
  new AppError('MISSING_PARAMETER', message, param);

export const invalidParameter = (param: string, expected: string) =>
  new AppError('INVALID_PARAMETER', `The parameter '${param}' is invalid: ${expected}.`, param);

export const notFound = (what: string, param: string | null = 'id') =>
  new AppError('NOT_FOUND', `${what} not found.`, param);

const dataExceptionMessages: Record<string, string> = {
  '22P02': 'a value does not have the expected form',
  '22003': 'a number is out of range',
  '22021': 'a text contains bytes that are not valid UTF-8',
  '22P05': 'a text contains a character that cannot be stored',
  '22008': 'a date or time is out of range',
  '22007': 'a date or time does not have the expected form',
  '22001': 'a value is too long',
};

export const databaseUnavailableError = () => new AppError('DATABASE_UNAVAILABLE', 'The database is unavailable; retry in a few seconds.');

/**
 * A database failure as the error the caller should see, or undefined for anything else (a bug).
 * Data exceptions are a safety net: input should be checked before it reaches SQL, but when it is
 * not, the caller gets a 400 instead of a 500.
 */
export function classifyDatabaseError(error: unknown): AppError | undefined {
  if (databaseUnavailable(error)) return databaseUnavailableError();
  const sqlstate = dataExceptionCode(error);
  if (sqlstate) {
    return new AppError('INVALID_PARAMETER', `A parameter is invalid: ${dataExceptionMessages[sqlstate] ?? 'a value is not acceptable'}.`, null);
  }
  return undefined;
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
