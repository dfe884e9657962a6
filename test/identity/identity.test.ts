import { hash } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { signingKeys } from '../../src/db/schema/index.js';
import { digestToken, newAccessToken, sameSecret } from '../../src/modules/identity/access-tokens.js';
import { LoginThrottle } from '../../src/modules/identity/login-throttle.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/modules/identity/passwords.js';
import { SigningKeys } from '../../src/modules/identity/signing-keys.js';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';
import { createTestDatabase } from '../support/database.js';

describe('passwords', () => {
  it('hash with argon2id and verify', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(stored, 'correct horse')).toEqual({ ok: true });
    expect(await verifyPassword(stored, 'wrong horse')).toEqual({ ok: false });
    expect(await verifyPassword('not a hash', 'correct horse')).toEqual({ ok: false });
  });

  it('rehash a matching password stored with older parameters', async () => {
    const old = await hash('correct horse', { algorithm: 2, memoryCost: 8192, timeCost: 1, parallelism: 1 });
    const checked = await verifyPassword(old, 'correct horse');
    expect(checked.ok).toBe(true);
    expect(checked.rehash).toMatch(/m=19456,t=2,p=1/);
  });

  it('refuse passwords shorter than 8 or longer than 1024 characters', () => {
    expect(passwordProblem('short')).toMatch(/8/);
    expect(passwordProblem('x'.repeat(1025))).toMatch(/1024/);
    expect(passwordProblem('long enough')).toBeUndefined();
  });
});

describe('token cipher', () => {
  const cipher = createTokenCipher('k'.repeat(32));

  it('seals with a fresh IV and opens again', () => {
    const [a, b] = [cipher.seal('network-token'), cipher.seal('network-token')];
    expect(a).toMatch(/^v1\./);
    expect(a).not.toBe(b);
    expect(cipher.open(a)).toBe('network-token');
  });

  it('refuses a tampered token and a different key', () => {
    const sealed = cipher.seal('network-token');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('altered').toString('base64url');
    expect(() => cipher.open(parts.join('.'))).toThrow(/altered/);
    expect(() => createTokenCipher('j'.repeat(32)).open(sealed)).toThrow(/SECRET_KEY/);
  });
});

describe('access tokens', () => {
  it('have the interface’s form, are unique, and compare in constant time', () => {
    const token = newAccessToken(new Date('2026-11-22T00:00:00Z'));
    expect(token).toMatch(/^[0-9a-f]{32}_1795305600$/);
    expect(newAccessToken()).not.toBe(newAccessToken());
    expect(digestToken(token)).toHaveLength(64);
    expect(sameSecret(token, token)).toBe(true);
    expect(sameSecret(token, `${token}x`)).toBe(false);
  });
});

describe('signing keys', () => {
  let database: DatabaseHandle;
  const cipher = createTokenCipher('k'.repeat(32));
  const claims = { accountId: 3, applicationId: 5, memberId: 8 };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.close());

  it('create one key on first load, even when two processes load together', async () => {
    await Promise.all([SigningKeys.load(database.db, cipher, { issuer: 'test' }), SigningKeys.load(database.db, cipher, { issuer: 'test' })]);
    const rows = await database.db.select().from(signingKeys);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.every((row) => !JSON.stringify(row.privateJwkSealed).includes('"d"'))).toBe(true);
  });

  it('sign tokens that verify, and refuse tampered, foreign and expired ones', async () => {
    const keys = await SigningKeys.load(database.db, cipher, { issuer: 'test' });
    const token = await keys.sign(claims);
    expect(await keys.verify(token)).toEqual(claims);
    const [header, payload, signature] = token.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: '9' })).toString('base64url');
    expect(await keys.verify([header, altered, signature].join('.'))).toBeNull();
    expect(await keys.verify('not.a.token')).toBeNull();
    const foreign = await SigningKeys.load(database.db, cipher, { issuer: 'someone-else' });
    expect(await foreign.verify(token)).toBeNull();
    const shortLived = await SigningKeys.load(database.db, cipher, { issuer: 'test', tokenLifetimeSeconds: 1 });
    const expiring = await shortLived.sign(claims);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await shortLived.verify(expiring)).toBeNull();
  });

  it('rotate without breaking tokens already issued', async () => {
    const keys = await SigningKeys.load(database.db, cipher, { issuer: 'test' });
    const before = await keys.sign(claims);
    const kid = await keys.rotate(database.db);
    const after = await keys.sign(claims);
    expect(JSON.parse(Buffer.from(after.split('.')[0], 'base64url').toString()).kid).toBe(kid);
    expect(await keys.verify(before)).toEqual(claims);
    expect(await keys.verify(after)).toEqual(claims);
    expect(keys.jwks().keys.map((key) => key.kid)).toContain(kid);
    expect(keys.jwks().keys.length).toBeGreaterThanOrEqual(2);
    expect(keys.jwks().keys.every((key) => key.d === undefined && key.use === 'sig' && key.alg === 'EdDSA')).toBe(true);
  });
});

describe('login throttle', () => {
  it('lets five failures pass, then backs off doubling, and forgets on success', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 5; i += 1) await throttle.recordFailure('id-1', undefined);
    expect(await throttle.check('id-1', undefined)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    await throttle.recordFailure('id-1', undefined);
    expect(await throttle.check('id-1', undefined)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    await throttle.recordFailure('id-1', undefined);
    expect(await throttle.check('id-1', undefined)).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    expect((await throttle.check('id-2', undefined)).allowed).toBe(true);
    await throttle.recordSuccess('id-1');
    expect((await throttle.check('id-1', undefined)).allowed).toBe(true);
    await throttle.close();
  });

  it('blocks an address after 100 failures across identities', async () => {
    const throttle = await LoginThrottle.create();
    for (let i = 0; i < 101; i += 1) await throttle.recordFailure(`many-${i}`, '203.0.113.1');
    const decision = await throttle.check('fresh-identity', '203.0.113.1');
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterSeconds).toBeGreaterThan(800);
    expect((await throttle.check('fresh-identity', '203.0.113.2')).allowed).toBe(true);
    await throttle.close();
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('shares back-off between gateways through Redis', async () => {
    const [a, b] = [await LoginThrottle.create({ redisUrl: process.env.TEST_REDIS_URL }), await LoginThrottle.create({ redisUrl: process.env.TEST_REDIS_URL })];
    const identity = `shared-${Date.now()}`;
    for (let i = 0; i < 6; i += 1) await (i % 2 ? a : b).recordFailure(identity, undefined);
    expect((await b.check(identity, undefined)).allowed).toBe(false);
    await a.recordSuccess(identity);
    expect((await b.check(identity, undefined)).allowed).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });
});
