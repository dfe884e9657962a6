import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface TokenCipher {
  seal(plain: string): string;
  open(sealed: string): string;
}

/**
 * Network tokens are stored sealed with AES-256-GCM under a key derived from SECRET_KEY, so a
 * copy of the database alone reveals none. The `v1.` prefix names the format, so it can change.
 */
export function createTokenCipher(secretKey: string): TokenCipher {
  const key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'marquee token cipher v1', 32));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Not a sealed token.');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('A sealed token could not be opened: it was altered, or SECRET_KEY changed.');
      }
    },
  };
}
