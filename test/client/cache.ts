import { InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';

/**
 * The cache a front end would configure for this schema (docs/graphql.md, "Building a front end"):
 * entities are normalized by id (Apollo's default keyFields), and the activity feed's pages are
 * merged into one list per filter, window and order, so fetchMore appends.
 */
export function frontEndCache(): InMemoryCache {
  return new InMemoryCache({
    typePolicies: {
      Query: {
        fields: {
          activityFeed: relayStylePagination(['filter', 'window', 'keyword', 'allMemberActions', 'orderByRecorded', 'sort']),
        },
      },
    },
  });
}
