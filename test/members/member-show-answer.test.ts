import { eq } from 'drizzle-orm';
import { execute, getOperationAST, parse, print, type DocumentNode } from 'graphql';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brands, memberDomains, members, memberServices, optins, segments } from '../../src/db/schema/index.js';
import { ShowMemberDocument } from '../../src/generated/graphql.js';
import { createContext } from '../../src/graphql/context.js';
import { getSchema } from '../../src/graphql/schema.js';
import { memberShowAnswer } from '../../src/modules/lifecycle/member-show-answer.js';
import { createIdentityServices, type IdentityServices } from '../../src/modules/members/identity-services.js';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';
import { resolveApiKey } from '../../src/modules/tenancy/tenancy.service.js';
import { insertBrand, insertMembers } from '../support/activity-data.js';
import { startTestGateway, testSecretKey, type Tenant, type TestGateway } from '../support/gateway.js';

// The member show answered from its statement's row without the resolvers (member-show-answer.ts)
// must answer exactly what the resolvers answer, for every selection it takes, and decline the rest.

let t: TestGateway;
let tenant: Tenant;
let other: Tenant;
let identity: IdentityServices;
let ids: number[];
let otherIds: number[];
/** A member whose stored gender the Gender enum cannot serialise: the resolvers report it, the answer declines. */
let odd: number;
const schema = await getSchema();
const cipher = createTokenCipher(testSecretKey);

beforeAll(async () => {
  t = await startTestGateway();
  identity = await createIdentityServices(t.database.db, t.config);
  tenant = await t.tenant('advanced');
  other = await t.tenant('advanced');
  ids = await insertMembers(t, tenant, [{ network: 'email', gender: 'F', country: 'FR' }, { network: 'spotify' }, { network: 'twitter', gender: 'Other' }, {}, {}]);
  otherIds = await insertMembers(t, other, [{}]);
  [odd] = await insertMembers(t, tenant, [{ gender: 'unknown' }]);
  const db = t.database.db;
  // A second identity with sealed tokens, times and a domain on the second member.
  const [service] = await db
    .insert(memberServices)
    .values({
      accountId: tenant.accountId,
      memberId: ids[1],
      network: 'deezer',
      uid: 'dz-1',
      username: 'dz',
      userUrl: 'https://deezer.example/dz',
      tokenSealed: cipher.seal('deezer-token'),
      tokenSecretSealed: cipher.seal('deezer-secret'),
      expiresAt: new Date('2027-01-02T03:04:05.006Z'),
      lastLoginAt: new Date('2026-11-30T12:00:00.000Z'),
      verifiedEmail: 'dz@example.com',
      paidAccount: true,
      followers: 12,
    })
    .returning();
  await db.insert(memberDomains).values([
    { accountId: tenant.accountId, memberId: ids[1], serviceId: service.id, domain: 'fans.example', registered: true },
    { accountId: tenant.accountId, memberId: ids[1], serviceId: service.id, domain: 'shop.example' },
  ]);
  await db
    .update(members)
    .set({ geoCountry: 'FR', geoCity: 'Paris', geoRegion: 'IDF', geoLat: '48.8566', geoLong: '2.3522', bio: 'Front row', verifiedEmail: 'one@example.com' })
    .where(eq(members.id, ids[0]));
  const brand = await insertBrand(t, tenant, 'Listed');
  const gone = await insertBrand(t, tenant, 'Gone');
  const [segment] = await db.insert(segments).values({ accountId: tenant.accountId, brandId: brand, name: 'Front row', label: 'VIP' }).returning();
  await db.insert(optins).values([
    { accountId: tenant.accountId, memberId: ids[0], kind: 'brand', brandId: brand },
    { accountId: tenant.accountId, memberId: ids[0], kind: 'segment', segmentId: segment.id },
    { accountId: tenant.accountId, memberId: ids[0], kind: 'global' },
    { accountId: tenant.accountId, memberId: ids[0], kind: 'brand', brandId: gone },
    { accountId: tenant.accountId, memberId: ids[1], kind: 'brand', brandId: brand },
  ]);
  await db.update(brands).set({ deletedAt: new Date() }).where(eq(brands.id, gone));
  // A merged member answers as its survivor.
  await db.update(members).set({ mergedIntoId: ids[0] }).where(eq(members.id, ids[4]));
});
afterAll(() => t.close());

async function contextFor(apiKey: string) {
  const caller = (await resolveApiKey(t.database.db, apiKey))!;
  return createContext({ requestId: 'member-show-answer', log: pino({ level: 'silent' }), database: t.database, caller, identity, activityQueue: undefined as never });
}

/** The resolvers' answer and this answer's (undefined when it declines), as the response carries them. */
async function bothWays(document: DocumentNode, variables: Record<string, unknown>, apiKey = tenant.apiKey) {
  const expected: unknown = JSON.parse(JSON.stringify(await execute({ schema, document, contextValue: await contextFor(apiKey), variableValues: variables })));
  const answer = memberShowAnswer(schema, document, getOperationAST(document)!);
  const answered = answer && (await answer(await contextFor(apiKey), variables));
  return { expected, actual: answered && JSON.parse(JSON.stringify(answered)) };
}

/** The variables the REST member show sends for a plain `GET /v1.1/member/[id]`. */
const showVariables = (id: number, extra: Record<string, unknown> = {}) => ({
  lookup: { id: String(id) },
  refresh: false,
  extended: false,
  extendedFields: null,
  filter: null,
  window: null,
  showActions: false,
  showBrands: false,
  showPosition: false,
  threshold: 1,
  limit: 3,
  ...extra,
});

const whole = `id email verifiedEmail firstName surname username gender bio avatarUrl country city state postCode website accessToken jwt joinedAt lastLoginAt __typename
  geo { country city region lat long __typename }
  services { id network valid activitySharing userId username userUrl token tokenSecret expiresAt lastUpdated lastLogin verifiedEmail paidAccount followers likes partnerCode partnerId domains __typename }
  optins { id kind brandId segmentId label name optedInAt optedOutAt __typename }`;

describe('the member show answered from its row', () => {
  it('answers what the resolvers answer for the REST member show, merged members included', async () => {
    for (const id of ids) {
      const { expected, actual } = await bothWays(ShowMemberDocument, showVariables(id));
      expect(actual, JSON.stringify(expected)).toEqual(expected);
      expect((actual as { data: { member: { id: string } } }).data.member.id).toBe(String(id === ids[4] ? ids[0] : id));
    }
  });

  it('answers what the resolvers answer for other selections, by lookup or by ref', async () => {
    const documents: [string, Record<string, unknown>][] = [
      [`query($id: ID!) { member(lookup: { id: $id }) { ${whole} } }`, { id: String(ids[1]) }],
      [`query($id: ID!) { member(lookup: { id: $id }) { ${whole} } }`, { id: String(ids[0]) }],
      [`query($ref: MemberRef!) { fan: member(ref: $ref) { key: id mail: email services { id network userId valid } } }`, { ref: { id: String(ids[1]) } }],
      [`query($on: Boolean!) { member(lookup: { id: "${ids[2]}" }) { id gender services @include(if: $on) { network } optins @skip(if: $on) { id } } }`, { on: true }],
      [`query($on: Boolean!) { member(lookup: { id: "${ids[2]}" }) { id gender services @include(if: $on) { network } optins @skip(if: $on) { id } } }`, { on: false }],
      [`fragment F on Member { id services { ...S } } fragment S on ServiceLink { network token } { member(lookup: { id: "${ids[1]}" }) { ...F jwt } }`, {}],
    ];
    for (const [source, variables] of documents) {
      const { expected, actual } = await bothWays(parse(source), variables);
      expect(actual, source).toEqual(expected);
    }
  });

  it('declines what it does not answer: other fields, a refresh, another account, a member token', async () => {
    const declined: [DocumentNode, Record<string, unknown>, string?][] = [
      [ShowMemberDocument, showVariables(ids[0], { extended: true })],
      [ShowMemberDocument, showVariables(ids[0], { showPosition: true })],
      [ShowMemberDocument, showVariables(ids[0], { refresh: true })],
      [ShowMemberDocument, showVariables(otherIds[0])],
      [ShowMemberDocument, showVariables(999_999_999)],
      [ShowMemberDocument, showVariables(ids[0]), other.apiKey],
      [ShowMemberDocument, showVariables(odd)],
      [parse(`{ member(lookup: { id: "${ids[0]}" }) { id score { points } } }`), {}],
      [parse(`{ member(lookup: { id: "${ids[0]}" }) { id geo { latitude } } }`), {}],
      [parse(`{ member(lookup: { id: "${ids[0]}" }) { id ... on Member { email } } }`), {}],
      [parse(`{ member(lookup: { id: "${ids[0]}" }) { id } brands { totalCount } }`), {}],
      [parse(`{ member(lookup: { id: "${ids[0]}" }, ref: { id: "${ids[0]}" }) { id } }`), {}],
      [parse(`query($email: String!) { member(ref: { verifiedEmail: $email }) { id firstName optins { kind name } } }`), { email: 'one@example.com' }],
    ];
    for (const [document, variables, apiKey] of declined) {
      const { expected, actual } = await bothWays(document, variables, apiKey);
      expect(actual, print(document)).toBeUndefined();
      expect(expected).toBeDefined();
    }
    // Another account's member is not found through the resolvers, whose answer then stands.
    const { expected } = await bothWays(ShowMemberDocument, showVariables(otherIds[0]));
    expect((expected as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('runs the REST member show and the GraphQL one in one statement each, as answered here', async () => {
    await t.rest(tenant, 'GET', `/v1.1/member/${ids[1]}`); // the API key is now cached, as it is for any busy caller
    for (let call = 0; call < 2; call += 1) {
      const rest = await t.rest(tenant, 'GET', `/v1.1/member/${ids[1]}`);
      expect(rest.status).toBe(200);
      expect(rest.json.data.ID).toBe(ids[1]);
      expect(rest.headers['x-sql-round-trips']).toBe('1');
      // /graphql answers a document this way from its second use on (compiled on use).
      const graphql = await t.request({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
        payload: { query: `query($id: ID!) { member(lookup: { id: $id }) { ${whole} } }`, variables: { id: String(ids[1]) } },
      });
      expect(graphql.json().data.member.services).toHaveLength(2);
      expect(graphql.headers['x-sql-round-trips']).toBe('1');
    }
  });
});
