import { hash } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import { hashPassword, passwordHashing, passwordProblem, verifyPassword } from '../../src/modules/identity/passwords.js';

describe('hashPassword and verifyPassword', () => {
  it('hash with argon2id at the current settings, with a fresh salt each time', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(a).not.toBe(b);
    expect(passwordHashing).toMatchObject({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });
  });

  it('accept the right password without a rehash, refuse a wrong one', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword(stored, 'correct horse')).toEqual({ ok: true });
    expect(await verifyPassword(stored, 'correct horsE')).toEqual({ ok: false });
    expect(await verifyPassword(stored, '')).toEqual({ ok: false });
  });

  it('return a current hash when the stored one used other settings, only for the right password', async () => {
    const older = [
      await hash('correct horse', { ...passwordHashing, memoryCost: 8192 }),
      await hash('correct horse', { ...passwordHashing, timeCost: 1 }),
      await hash('correct horse', { ...passwordHashing, parallelism: 2 }),
      await hash('correct horse', { ...passwordHashing, algorithm: 1 }), // argon2i
      await hash('correct horse', { ...passwordHashing, version: 0 }), // v=16
    ];
    for (const stored of older) {
      const checked = await verifyPassword(stored, 'correct horse');
      expect(checked.ok, stored).toBe(true);
      expect(checked.rehash, stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await verifyPassword(checked.rehash!, 'correct horse')).toEqual({ ok: true });
      expect(await verifyPassword(stored, 'wrong horse')).toEqual({ ok: false });
    }
  });

  it('treat a malformed stored hash as no match, without throwing', async () => {
    const stored = await hashPassword('correct horse');
    const malformed = ['', 'not a hash', stored.slice(0, 40), stored.replace('$argon2id$', '$argon2x$'), '$argon2id$v=19$m=19456,t=2,p=1$$', '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy'];
    for (const value of malformed) expect(await verifyPassword(value, 'correct horse'), value).toEqual({ ok: false });
  });
});

describe('passwordProblem', () => {
  it('refuse fewer than 8 and more than 1024 characters with a sentence', () => {
    expect(passwordProblem('')).toBe('A password needs at least 8 characters.');
    expect(passwordProblem('7 chars')).toBe('A password needs at least 8 characters.');
    expect(passwordProblem('x'.repeat(1025))).toBe('A password may have at most 1024 characters.');
    expect(passwordProblem('x'.repeat(1_000_000))).toBe('A password may have at most 1024 characters.');
  });

  it('accept 8 to 1024 characters, with no composition rules', () => {
    expect(passwordProblem('8 chars!')).toBeUndefined();
    expect(passwordProblem('aaaaaaaa')).toBeUndefined();
    expect(passwordProblem('x'.repeat(1024))).toBeUndefined();
  });

  it('count characters, not UTF-16 units', () => {
    expect(passwordProblem('🎸'.repeat(7))).toMatch(/at least 8/);
    expect(passwordProblem('🎸'.repeat(8))).toBeUndefined();
    expect(passwordProblem('🎸'.repeat(1024))).toBeUndefined();
    expect(passwordProblem('🎸'.repeat(1025))).toMatch(/at most 1024/);
  });
});
