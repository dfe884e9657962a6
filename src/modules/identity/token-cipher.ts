import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';

/** Seals secrets kept at rest (network tokens, member access tokens, signing keys). */
export interface TokenCipher {
  seal(plain: string): string;
  /** Throws when the value was altered, is not a sealed value, or was sealed under another key. */
  open(sealed: string): string;
}

/**
 * Changing this label derives a different key, which makes every stored value unreadable: a new
 * format gets a new version prefix (and label) while `open` keeps reading the old one.
 */
const keyLabel = 'marquee token cipher v1';
const version = 'v1';
/** GCM's standard nonce size; random nonces of this size are safe for far more seals than we make. */
const ivBytes = 12;
/** The full GCM tag. Shorter tags are accepted by Node unless told otherwise, and are weaker. */
const tagBytes = 16;
const base64url = /^[A-Za-z0-9_-]*$/;

/**
 * AES-256-GCM under a key derived from SECRET_KEY, so a copy of the database alone reveals no
 * token, and any change to a stored value is detected instead of decrypting to garbage.
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>`, each part base64url; the prefix names the format so it
 * can change later without guessing.
 */
export function createTokenCipher(secretKey: string): TokenCipher {
  if (!secretKey) throw new Error('The token cipher needs a secret key (SECRET_KEY).');
  // HKDF turns the configured secret (any printable string) into a uniform 256-bit key, and the
  // label keeps this key distinct from anything else derived from the same secret.
  // A key object made once: a raw buffer is wrapped into one on every call (a member show opens
  // three sealed values).
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), keyLabel, 32)));

  return {
    seal(plain) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [version, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },

    open(sealed) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== version || !parts.slice(1).every((part) => base64url.test(part))) {
        throw new Error(`Not a sealed value: expected ${version}.<iv>.<tag>.<ciphertext>.`);
      }
      const [, ivText, tagText, bodyText] = parts;
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== ivBytes || tag.length !== tagBytes) {
        throw new Error('Not a sealed value: the IV or the tag has the wrong length.');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(bodyText, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // GCM cannot tell the two apart: either way the tag does not match.
        throw new Error('A sealed value could not be opened: it was altered, or sealed under another SECRET_KEY.');
      }
    },
  };
}
