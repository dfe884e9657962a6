import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { classifyError } from '../core/errors.js';

/**
 * A GraphQL response that failed because the database is unavailable answers HTTP 503, like the
 * REST interface, so load balancers and clients see a retryable outage rather than a 200 or a bug.
 * classifyError (core/errors.ts) decides; the error itself is formatted by `formatError`
 * (DATABASE_UNAVAILABLE, aeCode 20).
 */
export const databaseUnavailablePlugin: ApolloServerPlugin = {
  async requestDidStart() {
    let unavailable = false;
    return {
      async didEncounterErrors({ errors }) {
        unavailable ||= errors.some((error) => {
          const { kind, status } = classifyError(unwrapResolverError(error), { surface: 'graphql' });
          return kind === 'database' && status === 503;
        });
      },
      async willSendResponse({ response }) {
        if (unavailable) response.http.status = 503;
      },
    };
  },
};
