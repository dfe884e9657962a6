import { randomBytes } from 'node:crypto';
import { digestToken } from '../identity/access-tokens.js';

/**
 * The console's secrets (a session cookie, a one-time sign-in link): the account's id, a dot, and
 * 32 random bytes (base64url). The id names the account whose table holds the digest, so finding
 * the row is a lookup within one account (one node on a distributed database); the random part is
 * the secret, and only its SHA-256 is stored.
 */
export interface ScopedToken {
  accountId: number;
  /** The SHA-256 (hex) of the random part, as stored. */
  hash: string;
}

export function newScopedToken(accountId: number): ScopedToken & { value: string } {
  const secret = randomBytes(32).toString('base64url');
  return { value: `${accountId}.${secret}`, accountId, hash: digestToken(secret) };
}

const scopedToken = /^([1-9]\d{0,9})\.([A-Za-z0-9_-]{43})$/;

/** The account and digest of a token as sent; undefined for anything not of the form (never looked up). */
export function readScopedToken(value: unknown): ScopedToken | undefined {
  if (typeof value !== 'string') return undefined;
  const match = scopedToken.exec(value);
  if (!match || Number(match[1]) > 2_147_483_647) return undefined;
  return { accountId: Number(match[1]), hash: digestToken(match[2]) };
}
