import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { classifyError, type ErrorCode } from '../core/errors.js';

/** Errors about the request's credential rather than a field: the request as a whole is refused. */
const credentialErrors: ReadonlySet<string> = new Set<ErrorCode>(['MISSING_API_KEY', 'INVALID_API_KEY', 'INVALID_TOKEN', 'NO_ACCOUNT']);

/**
 * GraphQL over HTTP: a request that reached execution answers HTTP 200, whatever its field errors
 * (a member not found, a plan refused), so clients such as Apollo Client's HttpLink keep the data and
 * read the errors from `errors` instead of seeing a network failure. Requests that fail before
 * execution (unreadable, invalid, over a limit, without a valid key) keep their 4xx; so does a
 * request whose credential is missing or refused, which no field of it could change (401); and an
 * unavailable database keeps its 503 (graphql/unavailable.ts, after this plugin): an outage to retry,
 * not an answer. docs/errors.md says the same to client authors.
 */
export const executedRequestStatusPlugin: ApolloServerPlugin = {
  async requestDidStart() {
    let credentialRefused = false;
    return {
      async didEncounterErrors({ errors }) {
        credentialRefused ||= errors.some((error) => credentialErrors.has(classifyError(unwrapResolverError(error), { surface: 'graphql' }).code));
      },
      async willSendResponse({ response }) {
        if (!credentialRefused && response.body.kind === 'single' && 'data' in response.body.singleResult) response.http.status = 200;
      },
    };
  },
};
