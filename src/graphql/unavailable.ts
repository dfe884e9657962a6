import type { ApolloServerPlugin } from '@apollo/server';
import { databaseUnavailable } from '../db/errors.js';
import type { Context } from '../core/context.js';

/**
 * A GraphQL response that failed because the database is unavailable answers HTTP 503, like the
 * REST interface, so load balancers and clients see a retryable outage rather than a 200 or a bug.
 * The error itself is formatted by `formatError` (DATABASE_UNAVAILABLE, aeCode 20).
 */
export const databaseUnavailablePlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    let unavailable = false;
    return {
      async didEncounterErrors({ errors }) {
        unavailable ||= errors.some((error) => databaseUnavailable(error));
      },
      async willSendResponse({ response }) {
        if (unavailable) response.http.status = 503;
      },
    };
  },
};
