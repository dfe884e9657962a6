import { buildContext, type Context } from '../core/context.js';
import type { ActivityQueue } from '../modules/activities/activities.queue.js';
import type { LiveFeed } from '../modules/activities/live-feed.js';
import type { IdentityServices } from '../modules/members/identity-services.js';
import { createLoaders } from './loaders.js';

/** The gateway-wide services of the modules, added to core's Context (core/context.ts), which names no module itself. */
declare module '../core/context.js' {
  interface Context {
    /** Gateway-wide helpers of the identity side: token sealing, JWT keys, login throttle, networks. */
    identity: IdentityServices;
    /** Records accepted with `async=1`, stored in the background. */
    activityQueue: ActivityQueue;
    /** The gateway's live activity feed; present on WebSocket operations only (subscriptions). */
    liveFeed?: LiveFeed;
  }
}

/** A request's context, with the loaders of every module (loaders.ts). */
export function createContext(fields: Omit<Context, 'loaders'>): Context {
  return buildContext(fields, createLoaders);
}
