import { describe, expect, it } from 'vitest';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';

const cipher = createTokenCipher('k'.repeat(32));

/** Changes one byte of a base64url part, keeping its length. */
function flipByte(part: string): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[0] ^= 0x01;
  return bytes.toString('base64url');
}

describe('token cipher', () => {
  it('seals as v1.<iv>.<tag>.<ciphertext> with a fresh IV, and opens again', () => {
    for (const plain of ['network-token', '', 'ünïcødé 🎸', 'x'.repeat(10_000)]) {
      const sealed = cipher.seal(plain);
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/);
      expect(cipher.open(sealed)).toBe(plain);
    }
    const [a, b] = [cipher.seal('network-token'), cipher.seal('network-token')];
    expect(a).not.toBe(b);
    expect(a).not.toContain(Buffer.from('network-token').toString('base64url'));
  });

  it('opens with another cipher made from the same secret', () => {
    expect(createTokenCipher('k'.repeat(32)).open(cipher.seal('network-token'))).toBe('network-token');
  });

  it('detects any change to the IV, the tag or the ciphertext', () => {
    const parts = cipher.seal('network-token').split('.');
    for (const index of [1, 2, 3]) {
      const altered = [...parts];
      altered[index] = flipByte(altered[index]);
      expect(() => cipher.open(altered.join('.'))).toThrow(/altered, or sealed under another SECRET_KEY/);
    }
    const swapped = cipher.seal('another-token').split('.');
    expect(() => cipher.open([parts[0], parts[1], parts[2], swapped[3]].join('.'))).toThrow(/altered/);
  });

  it('refuses a value sealed under another secret', () => {
    expect(() => createTokenCipher('j'.repeat(32)).open(cipher.seal('network-token'))).toThrow(/another SECRET_KEY/);
  });

  it('refuses values that are not in the v1 form, including a shortened tag', () => {
    const [, iv, tag, body] = cipher.seal('network-token').split('.');
    const malformed = [
      '',
      'network-token',
      `v2.${iv}.${tag}.${body}`,
      `v1.${iv}.${tag}`,
      `v1.${iv}.${tag}.${body}.extra`,
      `v1.${iv}.${tag}.${body}!`,
      `v1.${iv}.${Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url')}.${body}`,
      `v1.${Buffer.alloc(16).toString('base64url')}.${tag}.${body}`,
    ];
    for (const value of malformed) expect(() => cipher.open(value), value).toThrow(/^Not a sealed value/);
  });

  it('needs a secret', () => {
    expect(() => createTokenCipher('')).toThrow(/SECRET_KEY/);
  });
});
