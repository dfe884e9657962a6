import { GraphQLError } from 'graphql';

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
