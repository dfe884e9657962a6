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

/**
 * How long a member access token answers after it was issued. The interface shows the token on
 * every member record and accepts it as proof that a caller holds the member (the sign-in check,
 * a merge's `from`), so it must not live for ever; a sign-in renews it once it is past half its
 * life, so an active member's application always holds a live one.
 */
export const accessTokenLifetimeMs = 90 * 24 * 3600_000;

/** Past its lifetime: refused wherever a token is accepted, as an unknown token is. */
export function accessTokenExpired(issuedAt: Date, now = new Date()): boolean {
  return now.getTime() - issuedAt.getTime() >= accessTokenLifetimeMs;
}

/** Issued before this, a token is renewed by the member's next sign-in. */
export function accessTokenRenewalBefore(now = new Date()): Date {
  return new Date(now.getTime() - accessTokenLifetimeMs / 2);
}
