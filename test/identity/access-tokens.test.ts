import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestToken, newAccessToken, sameSecret } from '../../src/modules/identity/access-tokens.js';

describe('access tokens', () => {
  it('have the form <32 lowercase hex>_<unix seconds>', () => {
    expect(newAccessToken(new Date('2026-11-22T00:00:00.999Z'))).toMatch(/^[0-9a-f]{32}_1795305600$/);
    const now = Math.floor(Date.now() / 1000);
    const [, seconds] = newAccessToken().split('_');
    expect(Math.abs(Number(seconds) - now)).toBeLessThanOrEqual(1);
  });

  it('are unique', () => {
    const tokens = new Set(Array.from({ length: 10_000 }, () => newAccessToken(new Date(0)).split('_')[0]));
    expect(tokens.size).toBe(10_000);
  });

  it('are stored as a SHA-256 hex digest', () => {
    const token = newAccessToken();
    expect(digestToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(digestToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(digestToken(token)).not.toBe(digestToken(newAccessToken()));
  });
});

describe('sameSecret', () => {
  it('is true only for equal strings, whatever their lengths', () => {
    const token = newAccessToken();
    expect(sameSecret(token, token)).toBe(true);
    expect(sameSecret(token, `${token}`.slice(0))).toBe(true);
    expect(sameSecret('', '')).toBe(true);
    expect(sameSecret(token, `${token}x`)).toBe(false);
    expect(sameSecret(token, token.slice(0, -1))).toBe(false);
    expect(sameSecret(token, token.toUpperCase())).toBe(false);
    expect(sameSecret(token, '')).toBe(false);
  });
});
