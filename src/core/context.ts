import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/client.js';
import type { ApplicationSettings, Plan } from '../db/schema/index.js';
import type { Loaders } from './loaders.js';

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
  | { kind: 'member'; accountId: number; applicationId: number; memberId: number; sessionGeneration: number }
  /** The account's global key: usage totals across applications, nothing else. */
  | { kind: 'account'; accountId: number; keyId: number };

/**
 * What a resolver, service or loader is given for one request. The gateway-wide services that
 * belong to a module (identity helpers, the activity queue, the live feed) are added to this
 * interface by the wiring, graphql/context.ts, through declaration merging: the kernel names no
 * module, and tsc still checks every use.
 */
export interface Context {
  requestId: string;
  log: FastifyBaseLogger;
  database: DatabaseHandle;
  caller: Caller;
  /**
   * The address of the connection (the forwarded one behind TRUST_PROXY) as budgets count it (an
   * IPv6 address's IPV6_PREFIX_LENGTH prefix); absent outside HTTP requests. Sign-in throttling
   * falls back to it when the caller does not name the fan's `ip`.
   */
  clientAddress?: string;
  /** The request's User-Agent header, for the audit log's entries; absent outside HTTP requests. */
  userAgent?: string;
  /** What the sign-in widget's URLs and providers depend on; absent outside HTTP requests. */
  widget?: { baseUrl: string | undefined; allowHttpProviders: boolean };
  /**
   * The request's DataLoaders, one typed group per module (see loaders.ts). Replaced, not cleared,
   * when a long-lived context must stop reusing what it loaded (a subscription's next event).
   */
  loaders: Loaders;
}

/** Makes a context's loaders: the wiring's createLoaders (graphql/loaders.ts). */
export type LoadersFactory = (context: Context) => Loaders;

/** The factory each context's loaders came from, for renewLoaders. */
const loadersFactories = new WeakMap<Context, LoadersFactory>();

/** A context with its loaders, made by `createLoaders` (the wiring's, graphql/loaders.ts). */
export function buildContext(fields: Omit<Context, 'loaders'>, createLoaders: LoadersFactory): Context {
  const context = { ...fields } as Context;
  loadersFactories.set(context, createLoaders);
  context.loaders = createLoaders(context);
  return context;
}

/** Drops what a long-lived context loaded so far: the next reads go to the database again. */
export function renewLoaders(context: Context): void {
  const createLoaders = loadersFactories.get(context);
  if (!createLoaders) throw new Error('renewLoaders needs a context made by buildContext');
  context.loaders = createLoaders(context);
}
