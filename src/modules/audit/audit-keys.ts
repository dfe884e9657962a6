import { createHmac, hkdfSync } from 'node:crypto';

/**
 * The keyed hash the log keeps of an erased fan's address (`details.emailHmac`): whoever holds the
 * address can show it was this fan's erasure, while the log alone gives the address away to no one
 * (a plain hash of an address is reversed by hashing a list of addresses). HMAC-SHA256 under a key
 * derived from SECRET_KEY with its own HKDF label, of the address in lower case.
 */
export type EmailHasher = (email: string) => string;

export function createEmailHasher(secretKey: string): EmailHasher {
  if (!secretKey) throw new Error('The audit log needs a secret key (SECRET_KEY).');
  const key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'marquee audit email v1', 32));
  return (email) => createHmac('sha256', key).update(email.trim().toLowerCase(), 'utf8').digest('hex');
}
