import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/client.js';
import type { ApplicationSettings, Plan } from '../db/schema/index.js';
import type { ActivityQueue } from '../modules/activities/activities.queue.js';
import type { LiveFeed } from '../modules/activities/live-feed.js';
import type { IdentityServices } from '../modules/members/identity-services.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Who is calling, decided once per request from the credentials it carries. */
export type Caller =
  | { kind: 'anonymous' }
  /** An application's API key: the usual caller, scoped to one account and one plan. */
  | {
      kind: 'application';
      accountId: number;
      applicationId: number;
      applicationName: string;
      plan: Plan;
      settings: ApplicationSettings;
      keyId: number;
    }
  /** A member's JWT, sent by a front end: that member's own data and nothing else. */
  | { kind: 'member'; accountId: number; applicationId: number; memberId: number }
  /** The account's global key: usage totals across applications, nothing else. */
  | { kind: 'account'; accountId: number; keyId: number };

export interface Context {
  requestId: string;
  log: FastifyBaseLogger;
  database: DatabaseHandle;
  caller: Caller;
  /** Gateway-wide helpers of the identity side: token sealing, JWT keys, login throttle, networks. */
  identity: IdentityServices;
  /** Records accepted with `async=1`, stored in the background. */
  activityQueue: ActivityQueue;
  /** The gateway's live activity feed; present on WebSocket operations only (subscriptions). */
  liveFeed?: LiveFeed;
  /**
   * The address of the connection (the forwarded one behind TRUST_PROXY); absent outside HTTP
   * requests. Sign-in throttling falls back to it when the caller does not name the fan's `ip`.
   */
  clientAddress?: string;
  /** What the sign-in widget's URLs and providers depend on; absent outside HTTP requests. */
  widget?: { baseUrl: string; allowHttpProviders: boolean };
  /**
   * The request's DataLoaders, one typed group per module (see loaders.ts). Replaced, not cleared,
   * when a long-lived context must stop reusing what it loaded (a subscription's next event).
   */
  loaders: Loaders;
}

export function createContext(fields: Omit<Context, 'loaders'>): Context {
  const context = { ...fields } as Context;
  context.loaders = createLoaders(context);
  return context;
}

/** Drops what a long-lived context loaded so far: the next reads go to the database again. */
export function renewLoaders(context: Context): void {
  context.loaders = createLoaders(context);
}
