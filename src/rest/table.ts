import type { RestRoute } from './route.js';
import { appInfoRoute, unwhitelistRoute, whitelistRoute } from './routes/tenancy.routes.js';
import { accountUsageRoute } from './routes/usage.routes.js';
import { memberRoutes } from './routes/members.routes.js';

/** The `/v1.1` route table: every REST operation, each a mapping onto one GraphQL document. */
export const restRoutes: readonly RestRoute[] = [accountUsageRoute, appInfoRoute, whitelistRoute, unwhitelistRoute, ...memberRoutes];
