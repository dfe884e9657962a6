import { expect } from 'vitest';
import { brands, members, memberServices } from '../../src/db/schema/index.js';
import { digestToken, newAccessToken } from '../../src/modules/identity/access-tokens.js';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';
import { testSecretKey, type Tenant, type TestGateway } from './gateway.js';
import { ok } from './rest.js';

const cipher = createTokenCipher(testSecretKey);

const hour = 3600_000;
const day = 24 * hour;

export const ago = (ms: number, now = Date.now()) => new Date(now - ms).toISOString();
export const hoursAgo = (n: number) => ago(n * hour);
export const daysAgo = (n: number) => ago(n * day);

/** Members inserted directly (no password hashing), with one linked service each. */
export async function insertMembers(
  t: TestGateway,
  tenant: Tenant,
  rows: { country?: string; state?: string; gender?: string; birthDate?: string; email?: string; network?: string; paid?: boolean; lastLoginAt?: Date; createdAt?: Date }[],
) {
  const inserted = await t.database.db
    .insert(members)
    .values(
      rows.map((row, index) => ({
        accountId: tenant.accountId,
        email: row.email ?? `m${index}-${tenant.accountId}-${Math.random().toString(36).slice(2)}@example.com`,
        firstName: `Fan${index}`,
        country: row.country ?? null,
        state: row.state ?? null,
        gender: row.gender ?? null,
        birthDate: row.birthDate ?? null,
        lastLoginAt: row.lastLoginAt ?? null,
        ...(row.createdAt ? { createdAt: row.createdAt } : {}),
        ...sealedAccessToken(),
      })),
    )
    .returning();
  await t.database.db.insert(memberServices).values(
    inserted.map((member, index) => ({
      accountId: tenant.accountId,
      memberId: member.id,
      network: rows[index].network ?? 'spotify',
      uid: `uid-${member.id}`,
      username: `user${member.id}`,
      paidAccount: rows[index].paid ?? false,
    })),
  );
  return inserted.map((member) => member.id);
}

export async function insertBrand(t: TestGateway, tenant: Tenant, name: string, type = 'Music') {
  const [row] = await t.database.db
    .insert(brands)
    .values({ accountId: tenant.accountId, name, slug: name.toLowerCase().replace(/\W+/g, '-'), type })
    .returning();
  return row.id;
}

export async function createActivity(t: TestGateway, tenant: Tenant, query: Record<string, string | number>) {
  return Number((await ok(t.rest(tenant, 'POST', '/activity/create', query))).ID);
}

export interface RecordSpec {
  activityId: number;
  memberId: number;
  completedAt: string;
  marker?: string;
  brandId?: number;
  /** A network other than the activity's. */
  service?: string;
  content?: Record<string, unknown>;
}

/** Records through the batch mutation, as an ingesting application would. */
export async function record(t: TestGateway, tenant: Tenant, specs: RecordSpec[]) {
  const result = await t.graphql(tenant.apiKey, 'mutation($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created repeated recordIds } }', {
    input: specs.map((spec) => ({
      activityId: String(spec.activityId),
      memberId: String(spec.memberId),
      completedAt: spec.completedAt,
      marker: spec.marker,
      brandId: spec.brandId ? String(spec.brandId) : undefined,
      service: spec.service,
      content: spec.content,
    })),
  });
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data.recordActivities as { created: number; repeated: number; recordIds: string[] };
}

function sealedAccessToken() {
  const token = newAccessToken();
  return { accessTokenHash: digestToken(token), accessTokenSealed: cipher.seal(token) };
}
