import type { Database } from '../../src/db/client.js';
import { members, memberServices } from '../../src/db/schema/index.js';
import { digestToken, newAccessToken } from '../../src/modules/identity/access-tokens.js';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';
import { createApplication } from '../../src/modules/tenancy/tenancy.service.js';
import { testSecretKey } from './gateway.js';

const cipher = createTokenCipher(testSecretKey);

export interface FanSpec {
  email?: string | null;
  verifiedEmail?: string | null;
  firstName?: string | null;
  surname?: string | null;
  username?: string | null;
  /** Identities: network and user id. */
  services?: { network: string; uid: string }[];
}

let accounts = 0;

/** A new account (with an application), straight through the tenancy service. */
export async function newAccount(db: Database, name = 'fans'): Promise<{ accountId: number; applicationId: number; apiKey: string }> {
  const created = await createApplication(db, { accountName: `${name}-${++accounts}-${Date.now()}`, name: 'console', plan: 'enterprise' });
  return { accountId: created.account.id, applicationId: created.application.id, apiKey: created.apiKey };
}

/** Members inserted directly, in batches (no password hashing), with the identities given; answers their ids in order. */
export async function insertFans(db: Database, accountId: number, specs: FanSpec[]): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < specs.length; start += 1000) {
    const batch = specs.slice(start, start + 1000);
    const rows = await db
      .insert(members)
      .values(
        batch.map((spec) => {
          const token = newAccessToken();
          return {
            accountId,
            email: spec.email ?? null,
            verifiedEmail: spec.verifiedEmail ?? null,
            firstName: spec.firstName ?? null,
            surname: spec.surname ?? null,
            username: spec.username ?? null,
            accessTokenHash: digestToken(token),
            accessTokenSealed: cipher.seal(token),
          };
        }),
      )
      .returning({ id: members.id });
    const services = batch.flatMap((spec, index) => (spec.services ?? []).map((service) => ({ accountId, memberId: rows[index].id, network: service.network, uid: service.uid })));
    if (services.length) await db.insert(memberServices).values(services);
    ids.push(...rows.map((row) => row.id));
  }
  return ids;
}
