import { GraphQLError } from 'graphql';
import { appErrorOf, classifyDatabaseError, errorCatalogue, type ErrorCode } from '../core/errors.js';

export interface ErrorBody {
  error: { code: number; type: string; message: string; param: string | null; requestId?: string };
}

export interface RestFailure {
  status: number;
  body: ErrorBody;
  /** True when the detail was masked and belongs in the log. */
  unexpected: boolean;
}

export function errorBody(code: ErrorCode, message: string, param: string | null = null): ErrorBody {
  return { error: { code: errorCatalogue[code].aeCode, type: code, message, param } };
}

/** Any failure → the REST error body: known errors as they are, database failures classified, the rest masked with the request id. */
export function toRestFailure(error: unknown, requestId: string): RestFailure {
  const known = error instanceof GraphQLError ? appErrorOf(error) : undefined;
  if (known) {
    const { code, param } = known.extensions;
    return { status: errorCatalogue[code].status, body: errorBody(code, known.message, param), unexpected: false };
  }
  // A database outage (503, code 20) or a data exception the checks missed (400): the driver's
  // detail is not shown, and it belongs in the log.
  const database = classifyDatabaseError(error);
  if (database) {
    const { code, param } = database.extensions;
    const body = errorBody(code, database.message, param);
    body.error.requestId = requestId;
    return { status: errorCatalogue[code].status, body, unexpected: true };
  }
  const body = errorBody('INTERNAL', `Internal error; quote request id ${requestId} when reporting it.`);
  body.error.requestId = requestId;
  return { status: 500, body, unexpected: true };
}
