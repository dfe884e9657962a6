/**
 * The activity types the interface names; others are refused so statistics group into known
 * kinds. The service checks them and the REST document lists them from here. GraphQL has them as
 * the enum ActivityType (activities.types.ts): the names are GraphQL's (LISTENED), the values the
 * interface's words, as stored ('Listened').
 */
export enum ActivityType {
  LISTENED = 'Listened',
  WATCHED = 'Watched',
  SHARED = 'Shared',
  LIKED = 'Liked',
  FOLLOWED = 'Followed',
  VISITED = 'Visited',
  SOCIAL = 'Social',
  COMMENTED = 'Commented',
  PURCHASED = 'Purchased',
  ATTENDED = 'Attended',
  CUSTOM = 'Custom',
}

export const activityTypes: readonly ActivityType[] = Object.values(ActivityType);
