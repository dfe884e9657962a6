import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A member access token in the interface's form: 32 hex characters, `_`, the unix time of issue. */
export function newAccessToken(now = new Date()): string {
  return `${randomBytes(16).toString('hex')}_${Math.floor(now.getTime() / 1000)}`;
}

/** Tokens are looked up by digest, so the table never holds a usable token in the clear. */
export function digestToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time equality of two secrets; hashing first hides their lengths too. */
export function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}
