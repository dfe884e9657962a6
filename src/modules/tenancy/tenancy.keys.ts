import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `mq_` + 256 random bits: long enough that a plain SHA-256 digest is a safe way to store it. */
export function generateApiKey(): string {
  return `mq_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  // One-shot hashing: every request with a key hashes it, and a Hash object per call showed in the profile.
  return hash('sha256', key, 'hex');
}

export function keyPrefix(key: string): string {
  return key.slice(0, 9);
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
