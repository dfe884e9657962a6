import { randomUUID } from 'node:crypto';
import { and, desc, gt, isNull, or } from 'drizzle-orm';
import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK } from 'jose';
import type { Database } from '../../db/client.js';
import { signingKeys } from '../../db/schema/index.js';
import type { TokenCipher } from './token-cipher.js';

export interface MemberClaims {
  accountId: number;
  applicationId: number;
  memberId: number;
}

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: ImportedKey;
  privateKey?: ImportedKey;
  retiredAt: Date | null;
}

const algorithm = 'EdDSA';

/**
 * The keys that sign member JWTs (Ed25519). The newest unretired key signs; every key whose tokens
 * may still be valid is published at /.well-known/jwks.json and accepted. Rotation retires the
 * signing key without unpublishing it until its last token has expired.
 */
export class SigningKeys {
  private keys: LoadedKey[] = [];

  private constructor(
    private readonly cipher: TokenCipher,
    private readonly issuer: string,
    readonly tokenLifetimeSeconds: number,
  ) {}

  static async load(db: Database, cipher: TokenCipher, options: { issuer: string; tokenLifetimeSeconds?: number }) {
    const keys = new SigningKeys(cipher, options.issuer, options.tokenLifetimeSeconds ?? 3600);
    await keys.reload(db);
    if (!keys.keys.some((key) => !key.retiredAt)) {
      await keys.insertKey(db);
      await keys.reload(db);
    }
    return keys;
  }

  /** Reads the published keys again (after a rotation by another process). */
  async reload(db: Database): Promise<void> {
    const rows = await db
      .select()
      .from(signingKeys)
      .where(or(isNull(signingKeys.expiresAt), gt(signingKeys.expiresAt, new Date())))
      .orderBy(desc(signingKeys.createdAt), desc(signingKeys.kid));
    this.keys = await Promise.all(
      rows.map(async (row) => ({
        kid: row.kid,
        publicJwk: row.publicJwk as JWK,
        publicKey: await importJWK(row.publicJwk as JWK, algorithm),
        privateKey: row.retiredAt ? undefined : await importJWK(JSON.parse(this.cipher.open(row.privateJwkSealed)) as JWK, algorithm),
        retiredAt: row.retiredAt,
      })),
    );
  }

  async sign(claims: MemberClaims): Promise<string> {
    const key = this.keys.find((candidate) => candidate.privateKey && !candidate.retiredAt);
    if (!key?.privateKey) throw new Error('No signing key is active.');
    return new SignJWT({ acc: claims.accountId })
      .setProtectedHeader({ alg: algorithm, kid: key.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setSubject(String(claims.memberId))
      .setAudience(`app:${claims.applicationId}`)
      .setIssuedAt()
      .setExpirationTime(`${this.tokenLifetimeSeconds}s`)
      .sign(key.privateKey);
  }

  /** The claims of a valid token of ours; null for anything else (never throws on bad input). */
  async verify(token: string): Promise<MemberClaims | null> {
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const key = this.keys.find((candidate) => candidate.kid === header.kid);
          if (!key) throw new Error('unknown key');
          return key.publicKey;
        },
        { issuer: this.issuer, algorithms: [algorithm] },
      );
      const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
      const applicationId = Number(audience?.replace(/^app:/, ''));
      const memberId = Number(payload.sub);
      const accountId = Number(payload.acc);
      if (![applicationId, memberId, accountId].every((id) => Number.isSafeInteger(id) && id > 0)) return null;
      return { accountId, applicationId, memberId };
    } catch {
      return null;
    }
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: algorithm, use: 'sig' })) };
  }

  /** A new signing key from now on; the old one stays published until its tokens expire. */
  async rotate(db: Database): Promise<string> {
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.tokenLifetimeSeconds * 1000);
    const kid = await db.transaction(async (tx) => {
      await tx.update(signingKeys).set({ retiredAt: now, expiresAt }).where(and(isNull(signingKeys.retiredAt)));
      return this.insertKey(tx as unknown as Database);
    });
    await this.reload(db);
    return kid;
  }

  private async insertKey(db: Database): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(algorithm, { crv: 'Ed25519', extractable: true });
    const kid = randomUUID();
    await db
      .insert(signingKeys)
      .values({
        kid,
        algorithm,
        publicJwk: (await exportJWK(publicKey)) as Record<string, unknown>,
        privateJwkSealed: this.cipher.seal(JSON.stringify(await exportJWK(privateKey))),
      })
      .onConflictDoNothing();
    return kid;
  }
}
