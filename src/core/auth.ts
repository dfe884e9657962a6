import { createParameterDecorator, type AuthChecker } from 'type-graphql';
import { AppError } from './errors.js';
import type { Caller, Context } from './context.js';

/**
 * Access rules, attached per field with `@Authorized(...)` (never as global middleware, which would
 * run on every field of every response). Roles:
 * - none: any application key;
 * - `advanced` / `enterprise`: an application key whose plan includes that level;
 * - `global`: the account's global key is accepted too;
 * - `member`: a member's JWT is accepted too (the field then answers for that member only).
 * The checker throws the precise error instead of returning false, so callers learn what is missing.
 */
export type Role = 'advanced' | 'enterprise' | 'global' | 'member';

const planRank = { basic: 0, advanced: 1, enterprise: 2 } as const;

export const authChecker: AuthChecker<Context, Role> = ({ context }, roles) => {
  assertAccess(context.caller, roles);
  return true;
};

export function assertAccess(caller: Caller, roles: readonly Role[]): void {
  if (caller.kind === 'anonymous') {
    throw new AppError('MISSING_API_KEY', 'An API key is required: send it as apiKey, x-api-key or a Bearer token.', 'apiKey');
  }
  if (caller.kind === 'member') {
    if (roles.includes('member')) return;
    throw new AppError('WRONG_APPLICATION', 'A member token acts on its own member only (viewer and the viewer operations); use an API key.', 'apiKey');
  }
  if (caller.kind === 'account') {
    if (roles.includes('global')) return;
    throw new AppError('WRONG_APPLICATION', 'The global key only reads account usage; use an application key.', 'apiKey');
  }
  if (roles.includes('enterprise') && planRank[caller.plan] < planRank.enterprise) {
    throw new AppError('PLAN_REQUIRED', 'This operation needs an enterprise plan.');
  }
  if (roles.includes('advanced') && planRank[caller.plan] < planRank.advanced) {
    throw new AppError('PLAN_REQUIRED', 'This operation needs an advanced plan.');
  }
}

/** An application's API key, the caller most fields answer. */
export type ApplicationCaller = Extract<Caller, { kind: 'application' }>;

/**
 * Narrows the caller for code that runs after `@Authorized()`; any other caller gets the error
 * `@Authorized()` gives it (no key: MISSING_API_KEY; a member's token or the global key: WRONG_APPLICATION).
 */
export function applicationCaller(context: Context): ApplicationCaller {
  const { caller } = context;
  if (caller.kind !== 'application') assertAccess(caller, []);
  return caller as ApplicationCaller;
}

/**
 * A resolver's parameter: the calling application (`@CurrentApplication() caller: ApplicationCaller`),
 * through applicationCaller, so a caller of another kind gets the same error. It runs for its own
 * field only, after the field's `@Authorized` check, never as global middleware.
 */
export function CurrentApplication() {
  return createParameterDecorator<Context>(({ context }) => applicationCaller(context));
}

/** The caller's account, for loaders: every loader is scoped by it, so batching never mixes tenants. */
export function accountOf(context: Context): number {
  const { caller } = context;
  if (caller.kind === 'application' || caller.kind === 'member') return caller.accountId;
  throw new Error('loaders need an application or member caller');
}
