import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/client.js';
import type { Plan } from '../db/schema/index.js';

/** Who is calling, decided once per request from the credentials it carries. */
export type Caller =
  | { kind: 'anonymous' }
  /** An application's API key: the usual caller, scoped to one account and one plan. */
  | { kind: 'application'; accountId: number; applicationId: number; applicationName: string; plan: Plan; keyId: number }
  /** The account's global key: usage totals across applications, nothing else. */
  | { kind: 'account'; accountId: number; keyId: number };

export interface Context {
  requestId: string;
  log: FastifyBaseLogger;
  database: DatabaseHandle;
  caller: Caller;
  /** Per-request DataLoaders, created lazily by `loaderFor` (see loaders.ts). */
  loaderCache: Map<unknown, unknown>;
}

export function createContext(fields: Omit<Context, 'loaderCache'>): Context {
  return { ...fields, loaderCache: new Map() };
}
