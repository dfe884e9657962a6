import { createHash, createPrivateKey, sign as signBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK } from 'jose';
import type { Database, Executor } from '../../db/client.js';
import { insertKeyIfAbsent, keyChain, retireKeys, unexpiredKeys } from './signing-keys.queries.js';
import type { TokenCipher } from './token-cipher.js';

/** What a member JWT asserts: this member, of this account, signed in through this application. */
export interface MemberClaims {
  accountId: number;
  applicationId: number;
  memberId: number;
  /**
   * The member's session generation when the token was signed (`gen`): the token answers only
   * while it is still the member's, so ending the member's sessions ends its earlier tokens too.
   */
  sessionGeneration: number;
}

export interface SigningKeysOptions {
  /** `iss` of every token; tokens of another issuer are refused. */
  issuer: string;
  /** How long a token is valid, and so how long a retired key stays published. Default 3600. */
  tokenLifetimeSeconds?: number;
  /** The clock, in milliseconds since the epoch: tests move it instead of waiting. */
  now?: () => number;
}

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: ImportedKey;
  /**
   * Only for the key that signs (not retired); retired keys only verify. Node's own key object:
   * signing through it is synchronous, where jose signs through WebCrypto, an asynchronous job per
   * token that cost a tenth of a member show's CPU (the seed returns a JWT with every member).
   */
  privateKey?: KeyObject;
  /** The protected header of the key's tokens, encoded once. */
  encodedHeader: string;
  /** After this the key is no longer published nor accepted; null while it signs. */
  expiresAt: Date | null;
}

/** Ed25519: small keys and signatures, fast, and no parameters to get wrong. */
const algorithm = 'EdDSA';
const defaultLifetimeSeconds = 3600;
/** About 4 MB of tokens: the members a busy front end shows within a minute. */
const recentTokensKept = 10_000;

/**
 * The keys that sign member JWTs. Exactly one key signs at a time; every key whose tokens may still
 * be valid is published (`jwks()`, served at /.well-known/jwks.json) and accepted by `verify`.
 * Rotation retires the signing key without unpublishing it until the last token it signed has
 * expired, so rotating never breaks a token already handed out.
 *
 * Private keys are stored sealed with the token cipher (SECRET_KEY), never in the clear.
 *
 * Each instance holds the keys it last read; a rotation by another process is seen after `reload`.
 */
export class SigningKeys {
  /** Newest first: the first key with a private key is the one that signs. */
  private keys: LoadedKey[] = [];
  /** signRecent's tokens by key, claims and generation, oldest first. */
  private readonly recentTokens = new Map<string, { jwt: string; signedAt: number }>();

  private constructor(
    private readonly cipher: TokenCipher,
    private readonly issuer: string,
    readonly tokenLifetimeSeconds: number,
    private readonly now: () => number,
  ) {}

  /**
   * Loads the published keys, creating the first signing key when there is none. Processes that
   * start together all derive the same id for that key (see `successorKid`), so their inserts meet
   * on the primary key: one row is written, the others insert nothing and read it back.
   */
  static async load(db: Database, cipher: TokenCipher, options: SigningKeysOptions): Promise<SigningKeys> {
    const lifetime = options.tokenLifetimeSeconds ?? defaultLifetimeSeconds;
    if (!Number.isSafeInteger(lifetime) || lifetime <= 0) {
      throw new Error(`tokenLifetimeSeconds must be a positive whole number of seconds, not ${lifetime}.`);
    }
    const keys = new SigningKeys(cipher, options.issuer, lifetime, options.now ?? Date.now);
    // Whether to create a key and which id it gets must come from one read: deciding on one read
    // and naming the key from a later one would let a process that saw no key name a successor of
    // the key another process created in between, and leave two signing keys.
    const head = await chainHead(db);
    if (head.signing.length === 0) await keys.insertSuccessor(db, head.previous);
    await keys.reload(db);
    if (!keys.signingKey()) throw new Error('No member-token signing key is active, and none could be created.');
    return keys;
  }

  /** Reads the published keys again, to pick up a rotation made by another process. */
  async reload(db: Executor): Promise<void> {
    const rows = await unexpiredKeys(db, new Date(this.now()));
    // Built aside and swapped in whole, so a failed reload leaves the previous keys in service.
    this.keys = await Promise.all(
      rows.map(async (row): Promise<LoadedKey> => {
        const publicJwk = publicPart(row.publicJwk);
        return {
          kid: row.kid,
          publicJwk,
          publicKey: await importJWK(publicJwk, algorithm),
          privateKey: row.retiredAt ? undefined : createPrivateKey({ key: this.openPrivateJwk(row.kid, row.privateJwkSealed) as JsonWebKey, format: 'jwk' }),
          encodedHeader: base64urlJson({ alg: algorithm, kid: row.kid, typ: 'JWT' }),
          expiresAt: row.expiresAt,
        };
      }),
    );
  }

  /**
   * A member JWT: `iss`, `sub` (member id), `aud` (`app:<application id>`), `acc` (account id),
   * `gen` (session generation), `iat`, `exp`; `kid` in the header.
   */
  async sign(claims: MemberClaims): Promise<string> {
    const key = this.signingKey();
    if (!key?.privateKey) throw new Error('No member-token signing key is active.');
    const issuedAt = Math.floor(this.now() / 1000);
    // The claims in the order jose writes them: Ed25519 is deterministic, so the token is byte for
    // byte the one jose's SignJWT gives (test/identity/signing-keys.test.ts checks it).
    const payload = base64urlJson({
      acc: claims.accountId,
      gen: claims.sessionGeneration,
      iss: this.issuer,
      sub: String(claims.memberId),
      aud: `app:${claims.applicationId}`,
      iat: issuedAt,
      exp: issuedAt + this.tokenLifetimeSeconds,
    });
    const signingInput = `${key.encodedHeader}.${payload}`;
    return `${signingInput}.${signBytes(null, Buffer.from(signingInput), key.privateKey).toString('base64url')}`;
  }

  /**
   * A token for the claims signed at most `recentSeconds` ago by this process, else a new one. For
   * reads that hand a member's token out with every answer (the seed's member show): an Ed25519
   * signature was still 5 % of such a request's CPU, and a front end asks for the same member
   * again and again. The reused token lives at most that much shorter; one of another session
   * generation or signing key is never reused (both are in the cache key).
   */
  async signRecent(claims: MemberClaims, recentSeconds = 60): Promise<string> {
    const key = this.signingKey();
    const cacheKey = `${key?.kid}:${claims.accountId}:${claims.applicationId}:${claims.memberId}:${claims.sessionGeneration}`;
    const now = this.now();
    const kept = this.recentTokens.get(cacheKey);
    if (kept && now - kept.signedAt < recentSeconds * 1000 && now >= kept.signedAt) return kept.jwt;
    const jwt = await this.sign(claims);
    this.recentTokens.delete(cacheKey);
    this.recentTokens.set(cacheKey, { jwt, signedAt: now });
    // Oldest first in a Map's order: the first entry is the one to drop.
    if (this.recentTokens.size > recentTokensKept) this.recentTokens.delete(this.recentTokens.keys().next().value!);
    return jwt;
  }

  /**
   * The claims of a valid token of ours, or null for anything else: unknown or unpublished key, bad
   * signature, another issuer, expired, malformed. Never throws for bad input, so callers need only
   * one branch.
   */
  async verify(jwt: string): Promise<MemberClaims | null> {
    try {
      const { payload } = await jwtVerify(
        jwt,
        (header) => {
          const key = this.published().find((candidate) => candidate.kid === header.kid);
          if (!key) throw new Error('unknown key');
          return key.publicKey;
        },
        {
          issuer: this.issuer,
          // Pinning the algorithm refuses `alg: none` and any algorithm swap.
          algorithms: [algorithm],
          typ: 'JWT',
          requiredClaims: ['sub', 'aud', 'iat', 'exp'],
          currentDate: new Date(this.now()),
        },
      );
      // The signature already vouches for these; reading them strictly still costs nothing.
      const audience = typeof payload.aud === 'string' ? /^app:([1-9]\d*)$/.exec(payload.aud) : null;
      const subject = typeof payload.sub === 'string' && /^[1-9]\d*$/.test(payload.sub) ? Number(payload.sub) : NaN;
      const ids = { accountId: payload.acc, applicationId: Number(audience?.[1]), memberId: subject };
      const valid = Object.values(ids).every((id) => typeof id === 'number' && Number.isSafeInteger(id) && id > 0);
      // Tokens signed before generations were claimed carry none: the first generation, 0.
      const generation = payload.gen ?? 0;
      const validGeneration = typeof generation === 'number' && Number.isSafeInteger(generation) && generation >= 0;
      return valid && validGeneration ? { ...(ids as Omit<MemberClaims, 'sessionGeneration'>), sessionGeneration: generation } : null;
    } catch {
      return null;
    }
  }

  /** The public keys still published (a retired key until its last token has expired). */
  jwks(): { keys: JWK[] } {
    return { keys: this.published().map((key) => ({ ...key.publicJwk, kid: key.kid, alg: algorithm, use: 'sig' })) };
  }

  /**
   * Makes a new key the signing key, for this instance at once and for other processes at their
   * next `reload`. The key it replaces stops signing now and stays published for one token
   * lifetime, which covers every token signed with it up to now. (A process that has not reloaded
   * yet keeps signing with the old key, and such a token stops verifying when the key expires, up
   * to its reload delay early: reload soon after a rotation elsewhere.) Returns the new key's id.
   *
   * Retirement and creation share a transaction, so there is never a moment without a signing
   * key; two rotations at the same moment yield one new key or two in a row, never two signing.
   */
  async rotate(db: Database): Promise<string> {
    const now = new Date(this.now());
    const expiresAt = new Date(now.getTime() + this.tokenLifetimeSeconds * 1000);
    const kid = await db.transaction(async (tx) => {
      const { signing, previous } = await chainHead(tx);
      // Only the keys seen signing are retired. When another process rotates at the same moment,
      // one of the two updates waits for the other's commit, then finds those keys retired and
      // changes nothing, and its insert of the same successor id does nothing either.
      if (signing.length > 0) await retireKeys(tx, signing, now, expiresAt);
      return this.insertSuccessor(tx, previous);
    });
    await this.reload(db);
    return kid;
  }

  private signingKey(): LoadedKey | undefined {
    return this.keys.find((key) => key.privateKey);
  }

  /** Keys past their expiry are dropped here too, so they stop counting before the next reload. */
  private published(): LoadedKey[] {
    const now = this.now();
    return this.keys.filter((key) => !key.expiresAt || key.expiresAt.getTime() > now);
  }

  private openPrivateJwk(kid: string, sealed: string): JWK {
    try {
      return JSON.parse(this.cipher.open(sealed)) as JWK;
    } catch (error) {
      throw new Error(`The private part of signing key ${kid} could not be opened; was SECRET_KEY changed?`, { cause: error });
    }
  }

  /** Creates the key that follows `previousKid`, unless another process already did; returns its id. */
  private async insertSuccessor(db: Executor, previousKid: string | undefined): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(algorithm, { crv: 'Ed25519', extractable: true });
    const kid = successorKid(previousKid);
    await insertKeyIfAbsent(db, {
      kid,
      algorithm,
      publicJwk: publicPart(await exportJWK(publicKey)),
      privateJwkSealed: this.cipher.seal(JSON.stringify(await exportJWK(privateKey))),
    });
    return kid;
  }
}

/**
 * A new key's id is derived from the id of the key it follows, so processes that create "the next
 * key" at the same moment pick the same id and only one insert takes effect. Ids only need to be
 * unique within the table; 128 bits of SHA-256 are plenty.
 */
function successorKid(previousKid: string | undefined): string {
  return createHash('sha256')
    .update(`marquee signing key after:${previousKid ?? ''}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

/**
 * The keys still signing (newest first), and the key the next one follows: the newest signing key,
 * or the newest key of all when none signs (none at all on the first start). Creation times come
 * from the database, not from a process clock. The table holds one row per rotation, so reading it
 * whole is cheap.
 */
async function chainHead(db: Executor): Promise<{ signing: string[]; previous: string | undefined }> {
  const rows = await keyChain(db);
  const signing = rows.filter((row) => !row.retiredAt).map((row) => row.kid);
  return { signing, previous: signing[0] ?? rows[0]?.kid };
}

function base64urlJson(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Only the public members of an Ed25519 JWK, whatever else was stored, so `d` is never published. */
function publicPart(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
}
