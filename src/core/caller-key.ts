import type { Caller } from './context.js';

/**
 * The key a caller's per-key limits count against (heavy requests, subscriptions): an application
 * for its API key and its members' tokens alike, an account's global key by itself.
 */
export function callerKey(caller: Caller): string | undefined {
  switch (caller.kind) {
    case 'application':
    case 'member':
      return `application:${caller.applicationId}`;
    case 'account':
      return `account-key:${caller.keyId}`;
    default:
      return undefined;
  }
}
