import { ActivityFeedDocument } from '../../generated/graphql.js';
import { feedItem } from '../records/feed.js';
import { memberFilterOf, windowOf } from '../filter-params.js';
import { defineRoute } from '../route.js';

export const activityFeedRoute = defineRoute({
  methods: ['GET'],
  path: '/activity/feed',
  description:
    'The activity feed: the latest action of each member in the window (every action with `all_member_actions=1`), under the shared member filters. The window defaults to one week and reaches at most six months.',
  response: 'FeedPageArray',
  document: ActivityFeedDocument,
  variables: (params) => {
    const { offset, limit } = params.limit();
    return {
      filter: memberFilterOf(params),
      window: windowOf(params),
      keyword: params.string('keyword'),
      allMemberActions: params.boolean('all_member_actions'),
      orderByRecorded: params.boolean('order_by_recorded'),
      sort: params.oneOf('sort', ['ASC', 'DESC'] as const) ?? 'DESC',
      first: limit,
      offset,
    };
  },
  shape: ({ activityFeed }) => {
    const items = activityFeed.edges.map((edge) => feedItem(edge.node));
    return [{ totalSize: items.length, items }];
  },
});
