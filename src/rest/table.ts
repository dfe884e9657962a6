import type { RestRoute } from './route.js';
import { appInfoRoute, brandCustomFieldsRoute, networkVerificationRoute, signInErrorsRoute, unwhitelistRoute, whitelistRoute } from './routes/tenancy.routes.js';
import { accountUsageRoute } from './routes/usage.routes.js';
import { memberRoutes } from './routes/members.routes.js';
import { activityRoutes } from './routes/activities.routes.js';
import { listingRoutes } from './routes/listings.routes.js';
import { activityFeedRoute } from './routes/feed.routes.js';
import { brandRoutes } from './routes/brands.routes.js';
import { segmentRoutes } from './routes/segments.routes.js';
import { statsRoutes } from './routes/stats.routes.js';
import { authRoute } from './routes/auth.routes.js';
import { privacyRoutes } from './routes/privacy.routes.js';

/** The `/v1.1` route table: every REST operation, each a mapping onto one GraphQL document. */
export const restRoutes: readonly RestRoute[] = [
  accountUsageRoute,
  appInfoRoute,
  whitelistRoute,
  unwhitelistRoute,
  networkVerificationRoute,
  signInErrorsRoute,
  brandCustomFieldsRoute,
  ...memberRoutes,
  ...privacyRoutes,
  ...activityRoutes,
  ...listingRoutes,
  activityFeedRoute,
  ...brandRoutes,
  ...segmentRoutes,
  ...statsRoutes,
  authRoute,
];
