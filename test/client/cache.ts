import { InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';

/**
 * The cache a front end would configure for this schema (docs/graphql.md, "Building a front end"):
 * entities are normalized by id (Apollo's default keyFields), and the activity feed's pages are
 * merged into one list per filter, window and order, so fetchMore appends. BrandStats has no id of
 * its own: keyed by its brand's id, reports of two windows (a chart's week and month) merge into one
 * entry instead of the second answer replacing the first.
 */
export function frontEndCache(): InMemoryCache {
  return new InMemoryCache({
    typePolicies: {
      BrandStats: { keyFields: ['brand', ['id']] },
      Query: {
        fields: {
          activityFeed: relayStylePagination(['filter', 'window', 'keyword', 'allMemberActions', 'orderByRecorded', 'sort']),
        },
      },
    },
  });
}
