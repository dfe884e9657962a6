import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A member access token in the interface's form: 32 lowercase hex characters (16 random bytes, so
 * unguessable and practically unique), `_`, and the unix time of issue in seconds.
 */
export function newAccessToken(now = new Date()): string {
  return `${randomBytes(16).toString('hex')}_${Math.floor(now.getTime() / 1000)}`;
}

/**
 * The SHA-256 digest (hex) under which a token is stored and looked up, so the table never holds a
 * usable token in the clear. A plain hash is enough: the token is random, not a password.
 */
export function digestToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Constant-time equality of two secrets. Both are hashed first: `timingSafeEqual` needs equal
 * lengths, and comparing digests means neither the time taken nor an early length check tells
 * anything about the secret's length.
 */
export function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}
