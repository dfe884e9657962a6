import { classifyError, errorCatalogue, type ErrorClassification, type ErrorCode } from '../core/errors.js';

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

/** A classified error as the REST error body: a masked one names the request id the log holds it under. */
export function restFailureOf(classification: ErrorClassification, requestId: string): RestFailure {
  const { status, code, number, message, param, masked, log } = classification;
  const body: ErrorBody = { error: { code: number, type: code, message, param } };
  if (masked) body.error.requestId = requestId;
  return { status, body, unexpected: log !== false };
}

/** Any failure → the REST error body, as core/errors.ts's classifyError decides. */
export function toRestFailure(error: unknown, requestId: string): RestFailure {
  return restFailureOf(classifyError(error, { surface: 'rest', requestId }), requestId);
}
