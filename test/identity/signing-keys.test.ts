import { isNull } from 'drizzle-orm';
import { SignJWT, createLocalJWKSet, decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { signingKeys } from '../../src/db/schema/index.js';
import { SigningKeys, type SigningKeysOptions } from '../../src/modules/identity/signing-keys.js';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';
import { createTestDatabase } from '../support/database.js';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());
// Each test starts with no keys, as on a first start.
beforeEach(async () => {
  await database.db.delete(signingKeys);
});

const cipher = createTokenCipher('k'.repeat(32));
const claims = { accountId: 3, applicationId: 5, memberId: 8, sessionGeneration: 2 };
const issuer = 'https://marquee.example';
const second = 1000;

/** A clock the test moves: every instance of one test reads the same one. */
function testClock(start = Date.parse('2026-11-22T12:00:00Z')) {
  const clock = { ms: start, now: () => clock.ms, advance: (seconds: number) => (clock.ms += seconds * second) };
  return clock;
}

function load(clock: ReturnType<typeof testClock>, options: Partial<SigningKeysOptions> = {}) {
  return SigningKeys.load(database.db, cipher, { issuer, now: clock.now, ...options });
}

const kidOf = (jwt: string) => decodeProtectedHeader(jwt).kid;
const kids = (keys: SigningKeys) => keys.jwks().keys.map((key) => key.kid);
const activeRows = () => database.db.select().from(signingKeys).where(isNull(signingKeys.retiredAt));

describe('loading', () => {
  it('creates one key when several instances start together, and stores it sealed', async () => {
    const clock = testClock();
    const instances = await Promise.all(Array.from({ length: 5 }, () => load(clock)));
    const rows = await database.db.select().from(signingKeys);
    expect(rows).toHaveLength(1);
    const tokens = await Promise.all(instances.map((keys) => keys.sign(claims)));
    expect(new Set(tokens.map(kidOf))).toEqual(new Set([rows[0].kid]));
    expect(rows[0]).toMatchObject({ algorithm: 'EdDSA', retiredAt: null, expiresAt: null });
    expect(rows[0].privateJwkSealed).toMatch(/^v1\./);
    expect(Object.keys(rows[0].publicJwk).sort()).toEqual(['crv', 'kty', 'x']);
  });

  it('keeps the existing key on later loads', async () => {
    const clock = testClock();
    const first = await load(clock);
    const again = await load(clock);
    expect(kids(again)).toEqual(kids(first));
    expect(await database.db.select().from(signingKeys)).toHaveLength(1);
  });

  it('says so when the stored key was sealed under another SECRET_KEY', async () => {
    await load(testClock());
    await expect(SigningKeys.load(database.db, createTokenCipher('j'.repeat(32)), { issuer })).rejects.toThrow(/SECRET_KEY/);
  });

  it('refuses a lifetime that is not a positive whole number of seconds', async () => {
    await expect(load(testClock(), { tokenLifetimeSeconds: 0 })).rejects.toThrow(/tokenLifetimeSeconds/);
    await expect(load(testClock(), { tokenLifetimeSeconds: 1.5 })).rejects.toThrow(/tokenLifetimeSeconds/);
  });
});

describe('sign and verify', () => {
  it('signs iss, sub, aud, acc, gen, iat and exp with the kid in the header, and verifies them', async () => {
    const clock = testClock();
    const keys = await load(clock);
    const jwt = await keys.sign(claims);
    const iat = clock.ms / 1000;
    expect(decodeJwt(jwt)).toEqual({ iss: issuer, sub: '8', aud: 'app:5', acc: 3, gen: 2, iat, exp: iat + 3600 });
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'EdDSA', kid: kids(keys)[0], typ: 'JWT' });
    expect(await keys.verify(jwt)).toEqual(claims);
    // Anyone holding the published keys can check the token too.
    const { payload } = await jwtVerify(jwt, createLocalJWKSet(keys.jwks()), { issuer, audience: 'app:5', currentDate: new Date(clock.ms) });
    expect(payload.sub).toBe('8');
  });

  it('signs byte for byte the token jose signs with the same key and claims', async () => {
    const clock = testClock();
    const keys = await load(clock);
    const jwt = await keys.sign(claims);
    const [row] = await activeRows();
    const privateKey = await importJWK(JSON.parse(cipher.open(row.privateJwkSealed)), 'EdDSA');
    const iat = clock.ms / 1000;
    const byJose = await new SignJWT({ acc: 3, gen: 2 })
      .setProtectedHeader({ alg: 'EdDSA', kid: row.kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setSubject('8')
      .setAudience('app:5')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(privateKey);
    expect(jwt).toBe(byJose);
  });

  it('signRecent reuses a token for up to a minute, never across a session generation or a rotation', async () => {
    const clock = testClock();
    const keys = await load(clock);
    const first = await keys.signRecent(claims);
    clock.advance(59);
    expect(await keys.signRecent(claims)).toBe(first);
    // Another member, application or generation gets its own.
    expect(await keys.signRecent({ ...claims, memberId: 9 })).not.toBe(first);
    expect(await keys.signRecent({ ...claims, applicationId: 6 })).not.toBe(first);
    const nextGeneration = await keys.signRecent({ ...claims, sessionGeneration: 3 });
    expect(decodeJwt(nextGeneration).gen).toBe(3);
    clock.advance(1);
    const renewed = await keys.signRecent(claims);
    expect(renewed).not.toBe(first);
    expect(decodeJwt(renewed).iat).toBe(decodeJwt(first).iat! + 60);
    await keys.rotate(database.db);
    const afterRotation = await keys.signRecent(claims);
    expect(kidOf(afterRotation)).not.toBe(kidOf(renewed));
    expect(await keys.verify(afterRotation)).toEqual(claims);
  });

  it('uses the configured lifetime', async () => {
    const keys = await load(testClock(), { tokenLifetimeSeconds: 60 });
    const { iat, exp } = decodeJwt(await keys.sign(claims));
    expect(exp! - iat!).toBe(60);
  });

  it('refuses a token once it has expired', async () => {
    const clock = testClock();
    const keys = await load(clock);
    const jwt = await keys.sign(claims);
    clock.advance(3599);
    expect(await keys.verify(jwt)).toEqual(claims);
    clock.advance(1);
    expect(await keys.verify(jwt)).toBeNull();
  });

  it('refuses a token of another issuer, even signed with the same keys', async () => {
    const clock = testClock();
    const ours = await load(clock);
    const theirs = await load(clock, { issuer: 'https://elsewhere.example' });
    expect(kids(theirs)).toEqual(kids(ours));
    expect(await ours.verify(await theirs.sign(claims))).toBeNull();
    expect(await theirs.verify(await ours.sign(claims))).toBeNull();
  });

  it('refuses tampered, forged and malformed tokens without throwing', async () => {
    const clock = testClock();
    const keys = await load(clock);
    const jwt = await keys.sign(claims);
    const [header, payload, signature] = jwt.split('.');
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const decoded = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString());
    const flipped = Buffer.from(signature, 'base64url');
    flipped[10] ^= 0x01;
    const hmacForged = await new SignJWT({ acc: 3 })
      .setProtectedHeader({ alg: 'HS256', kid: kids(keys)[0] })
      .setIssuer(issuer)
      .setSubject('8')
      .setAudience('app:5')
      .setIssuedAt(clock.ms / 1000)
      .setExpirationTime(clock.ms / 1000 + 60)
      .sign(Buffer.from(keys.jwks().keys[0].x!, 'base64url'));
    const tampered = [
      [header, encode({ ...decoded(payload), sub: '9' }), signature].join('.'),
      [header, encode({ ...decoded(payload), exp: decoded(payload).exp + 3600 }), signature].join('.'),
      [header, payload, flipped.toString('base64url')].join('.'),
      [encode({ ...decoded(header), kid: 'unknown' }), payload, signature].join('.'),
      [encode({ alg: 'none', typ: 'JWT' }), payload, ''].join('.'),
      hmacForged,
      '',
      'not a token',
      'not.a.token',
      `${jwt}.extra`,
    ];
    for (const token of tampered) expect(await keys.verify(token), token).toBeNull();
    expect(await keys.verify(jwt)).toEqual(claims);
  });
});

describe('rotation', () => {
  it('signs with the new key at once, keeps earlier tokens valid, and publishes both until the old key expires', async () => {
    const clock = testClock();
    const keys = await load(clock);
    const oldKid = kids(keys)[0];
    const before = await keys.sign(claims);
    clock.advance(600);

    const newKid = await keys.rotate(database.db);
    const rotatedAt = clock.ms;
    expect(newKid).not.toBe(oldKid);
    const after = await keys.sign(claims);
    expect(kidOf(after)).toBe(newKid);
    expect(await keys.verify(before)).toEqual(claims);
    expect(await keys.verify(after)).toEqual(claims);
    expect(kids(keys)).toEqual([newKid, oldKid]);
    expect(keys.jwks().keys.every((key) => key.d === undefined && key.use === 'sig' && key.alg === 'EdDSA')).toBe(true);

    const rows = await database.db.select().from(signingKeys);
    expect(rows.find((row) => row.kid === oldKid)).toMatchObject({ retiredAt: new Date(rotatedAt), expiresAt: new Date(rotatedAt + 3600 * second) });
    expect(rows.find((row) => row.kid === newKid)).toMatchObject({ retiredAt: null, expiresAt: null });

    // The last token of the old key was signed just before the rotation: it expires with the key.
    clock.advance(3599);
    expect(kids(keys)).toEqual([newKid, oldKid]);
    expect(kids(await load(clock))).toEqual([newKid, oldKid]);
    clock.advance(1);
    expect(kids(keys)).toEqual([newKid]);
    expect(kids(await load(clock))).toEqual([newKid]);
    expect(await keys.verify(await keys.sign(claims))).toEqual(claims);
  });

  it('reaches another instance when it reloads', async () => {
    const clock = testClock();
    const [a, b] = await Promise.all([load(clock), load(clock)]);
    const fromB = await b.sign(claims);
    const newKid = await a.rotate(database.db);
    const fromA = await a.sign(claims);
    expect(await b.verify(fromA)).toBeNull();
    await b.reload(database.db);
    expect(await b.verify(fromA)).toEqual(claims);
    expect(kidOf(await b.sign(claims))).toBe(newKid);
    expect(await a.verify(fromB)).toEqual(claims);
  });

  it('leaves exactly one signing key when instances rotate at the same moment', async () => {
    const clock = testClock();
    const instances = await Promise.all(Array.from({ length: 6 }, () => load(clock)));
    const before = await instances[0].sign(claims);
    // Several rounds, because on PostgreSQL the interleaving differs from one run to the next.
    for (let round = 0; round < 10; round += 1) {
      const returned = await Promise.all(instances.map((keys) => keys.rotate(database.db)));
      const active = await activeRows();
      expect(active).toHaveLength(1);
      expect(returned).toContain(active[0].kid);
      await Promise.all(instances.map((keys) => keys.reload(database.db)));
      for (const keys of instances) expect(kidOf(await keys.sign(claims))).toBe(active[0].kid);
    }
    for (const keys of instances) expect(await keys.verify(before)).toEqual(claims);
  });

  it('keeps a chain of rotations verifiable', async () => {
    const clock = testClock();
    const keys = await load(clock);
    const tokens = [await keys.sign(claims)];
    for (let i = 0; i < 3; i += 1) {
      clock.advance(60);
      await keys.rotate(database.db);
      tokens.push(await keys.sign(claims));
    }
    expect(new Set(tokens.map(kidOf)).size).toBe(4);
    expect(kids(keys)).toHaveLength(4);
    for (const jwt of tokens) expect(await keys.verify(jwt)).toEqual(claims);
    expect(await activeRows()).toHaveLength(1);
  });
});
