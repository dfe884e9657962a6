/**
 * The activity types the interface names; others are refused so statistics group into known
 * kinds. The service checks them and the REST document lists them from here.
 */
export const activityTypes = ['Listened', 'Watched', 'Shared', 'Liked', 'Followed', 'Visited', 'Social', 'Commented', 'Purchased', 'Attended', 'Custom'] as const;
