import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `mq_` + 256 random bits: long enough that a plain SHA-256 digest is a safe way to store it. */
export function generateApiKey(): string {
  return `mq_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
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
