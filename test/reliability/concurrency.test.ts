import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityRecords, members, memberServices, optins } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { gql, makers } from './world.js';

/**
 * Races between calls that name the same thing, over REST and GraphQL at once. Meaningful on
 * PostgreSQL, where the calls run in parallel transactions; on PGlite they are serialised by the
 * driver, and the same checks still hold.
 */
let t: TestGateway;
let tenant: Tenant;
let make: ReturnType<typeof makers>;
beforeAll(async () => {
  t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000000' });
  tenant = await t.tenant('enterprise');
  make = makers(t, tenant, 'race');
});
afterAll(() => t.close());

describe('concurrent calls on one thing', () => {
  it('50 registrations of one email at once, REST and GraphQL mixed, make one member with one email identity', async () => {
    const email = `race-${Date.now()}@example.com`;
    const password = 'the-same-password';
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        if (index % 2) {
          const response = await t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password }, { key: 'header' });
          return { status: response.status, id: String(response.json[0]?.data?.ID ?? response.body) };
        }
        const { status, body } = await t.graphql(tenant.apiKey, 'mutation ($input: RegisterMemberInput!) { registerMember(input: $input) { member { id } } }', {
          input: { credentials: { network: 'email', email, password } },
        });
        return { status, id: String(body.data?.registerMember.member.id ?? JSON.stringify(body.errors)) };
      }),
    );
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    const ids = new Set(answers.map((answer) => answer.id));
    expect(ids.size).toBe(1);
    const stored = await t.database.db
      .select({ id: members.id })
      .from(members)
      .where(and(eq(members.accountId, tenant.accountId), eq(members.email, email)));
    expect(stored.map((row) => String(row.id))).toEqual([...ids]);
    const identities = await t.database.db
      .select()
      .from(memberServices)
      .where(and(eq(memberServices.accountId, tenant.accountId), eq(memberServices.memberId, stored[0].id)));
    expect(identities.map((row) => row.network)).toEqual(['email']);
  }, 60_000);

  /** GraphQL answers 200 with the refusal in `errors`: its code, as the REST status it stands for. */
  const graphqlStatus = (body: { errors?: { extensions?: { code?: string } }[] }) =>
    body.errors ? (({ NOT_FOUND: 404, INVALID_TOKEN: 401, UNAUTHENTICATED: 401, CONFLICT: 409 } as Record<string, number>)[body.errors[0].extensions?.code ?? ''] ?? 500) : 200;

  it('opposite merges at once leave one survivor holding every record of both', async () => {
    const activity = await make.activity();
    const pairs = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const [x, y] = [await make.member(), await make.member()];
        for (const member of [x, y]) for (let n = 0; n < 3; n += 1) await make.record(activity, member.id);
        return { x, y };
      }),
    );
    const merge = (into: { id: string }, from: { id: string; accessToken: string }, viaRest: boolean) =>
      viaRest
        ? t.rest(tenant, 'POST', `/member/${into.id}/merge`, { from: from.id, accesstoken: from.accessToken }, { key: 'header' }).then((r) => r.status)
        : t
            .graphql(tenant.apiKey, 'mutation ($into: ID!, $from: ID!, $token: String!) { mergeMembers(intoId: $into, fromId: $from, fromAccessToken: $token) { member { id } } }', {
              into: into.id,
              from: from.id,
              token: from.accessToken,
            })
            .then((r) => graphqlStatus(r.body));
    const results = await Promise.all(pairs.map(async ({ x, y }, index) => Promise.all([merge(x, y, index % 2 === 0), merge(y, x, index % 2 === 1)])));
    for (const [index, { x, y }] of pairs.entries()) {
      // One merge wins; the other finds its member merged away (not found, or a conflict) or its token gone.
      expect(results[index].filter((status) => status === 200)).toHaveLength(1);
      expect(
        results[index].every((status) => status === 200 || status === 404 || status === 401 || status === 409),
        JSON.stringify(results[index]),
      ).toBe(true);
      const rows = await t.database.db
        .select({ id: members.id, mergedIntoId: members.mergedIntoId })
        .from(members)
        .where(inArray(members.id, [Number(x.id), Number(y.id)]));
      const survivors = rows.filter((row) => row.mergedIntoId === null);
      expect(survivors).toHaveLength(1);
      const survivor = survivors[0].id;
      const records = await t.database.db
        .select({ memberId: activityRecords.memberId, n: sql<number>`count(*)::int` })
        .from(activityRecords)
        .where(and(eq(activityRecords.accountId, tenant.accountId), inArray(activityRecords.memberId, [Number(x.id), Number(y.id)])))
        .groupBy(activityRecords.memberId);
      expect(records.map((row) => ({ memberId: row.memberId, n: Number(row.n) }))).toEqual([{ memberId: survivor, n: 6 }]);
    }
  }, 60_000);

  it('opt-ins and opt-outs at once leave the state of the last event in the history', async () => {
    const segment = await make.segment();
    const member = await make.member();
    const input = { memberId: member.id, segmentId: segment };
    const calls = Array.from({ length: 40 }, async (_, index) => {
      const optIn = index % 2 === 0;
      if (index % 4 < 2) return (await t.rest(tenant, 'POST', optIn ? '/optin' : '/optout', { id: member.id, segmentid: segment }, { key: 'header' })).status;
      return (await t.graphql(tenant.apiKey, `mutation ($input: OptInInput!) { ${optIn ? 'optIn' : 'optOut'}(input: $input) { id } }`, { input })).status;
    });
    const statuses = await Promise.all(calls);
    // An opt-out before any opt-in finds nothing to end (not found); nothing else may fail.
    expect(
      statuses.every((status) => status === 200 || status === 404),
      JSON.stringify(statuses),
    ).toBe(true);

    const history = await t.database.db
      .select()
      .from(optins)
      .where(and(eq(optins.accountId, tenant.accountId), eq(optins.memberId, Number(member.id))))
      .orderBy(optins.optedInAt, optins.id);
    expect(history.length).toBeGreaterThan(0);
    // The history is a sequence of periods that never overlap: each ends before the next begins.
    for (let index = 1; index < history.length; index += 1) {
      expect(history[index - 1].optedOutAt, `period ${index - 1} still open`).not.toBeNull();
      expect(history[index - 1].optedOutAt!.getTime()).toBeLessThanOrEqual(history[index].optedInAt.getTime());
    }
    const last = history[history.length - 1];
    const lastEventIsOptIn = last.optedOutAt === null;
    const current = await gql(t, tenant, 'query ($id: ID!) { member(lookup: { id: $id }) { optins { segmentId optedOutAt } } }', { id: member.id });
    const currentlyIn = current.member.optins.some((optin: { segmentId: string | null; optedOutAt: string | null }) => optin.segmentId === segment && optin.optedOutAt === null);
    expect(currentlyIn).toBe(lastEventIsOptIn);
  }, 60_000);
});
