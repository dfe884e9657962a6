import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { classifyError, type ErrorCode } from '../core/errors.js';

/**
 * Errors about the request's own credential rather than a field: the request as a whole is refused.
 * A member token is the request's own when the error names the `authorization` it came in (a JWT
 * ended or forged); INVALID_TOKEN about a token a field was given (a network's, a merge's proof, an
 * emailed link's) is that field's error. NO_ACCOUNT and WRONG_PASSWORD are the answer of a sign-in
 * field (`login`), never the request's credential.
 */
const requestCredentialErrors: ReadonlySet<string> = new Set<ErrorCode>(['MISSING_API_KEY', 'INVALID_API_KEY']);

function refusesCredential(error: { code: string; param: string | null }): boolean {
  if (requestCredentialErrors.has(error.code)) return true;
  return error.code === ('INVALID_TOKEN' satisfies ErrorCode) && (error.param === 'authorization' || error.param === null);
}

/**
 * GraphQL over HTTP: a request that reached execution answers HTTP 200, whatever its field errors
 * (a member not found, a plan refused, a sign-in refused), so clients such as Apollo Client's
 * HttpLink keep the data and read the errors from `errors` instead of seeing a network failure.
 * Requests that fail before execution (unreadable, invalid, over a limit, without a valid key) keep
 * their 4xx; so does a request whose own key or member token is missing or refused, which no field
 * of it could change (401); and an unavailable database keeps its 503 (graphql/unavailable.ts,
 * after this plugin): an outage to retry, not an answer. docs/errors.md says the same to client authors.
 */
export const executedRequestStatusPlugin: ApolloServerPlugin = {
  async requestDidStart() {
    let credentialRefused = false;
    return {
      async didEncounterErrors({ errors }) {
        credentialRefused ||= errors.some((error) => refusesCredential(classifyError(unwrapResolverError(error), { surface: 'graphql' })));
      },
      async willSendResponse({ response }) {
        if (!credentialRefused && response.body.kind === 'single' && 'data' in response.body.singleResult) response.http.status = 200;
      },
    };
  },
};
