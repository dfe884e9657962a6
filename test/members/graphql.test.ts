import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members, memberServices } from '../../src/db/schema/index.js';
import pino from 'pino';
import { withRoundTripCount } from '../../src/db/roundtrips.js';
import { createContext } from '../../src/graphql/context.js';
import { mergeInto } from '../../src/modules/lifecycle/member-merge.js';
import { resolveApiKey } from '../../src/modules/tenancy/tenancy.service.js';
import { findMember } from '../../src/modules/members/members.queries.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { insertBrand, insertMembers } from '../support/activity-data.js';

let t: TestGateway;
let app: Tenant;
let other: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
});
afterAll(() => t.close());

let n = 0;
async function register(tenant = app) {
  const email = `gql${++n}-${Date.now()}@example.com`;
  const { body } = await t.graphql(
    tenant.apiKey,
    `mutation ($email: String!) {
    registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" } }) {
      member { id accessToken services { id } }
    }
  }`,
    { email },
  );
  expect(body.errors).toBeUndefined();
  return { email, member: body.data.registerMember.member };
}

describe('member mutations over GraphQL', () => {
  it('update, reset, verify, merge and delete', async () => {
    const a = await register();
    const b = await register();
    const updated = await t.graphql(
      app.apiKey,
      `mutation ($id: ID!) {
      updateMember(id: $id, input: { firstName: "Upd", extended: { tier: "gold" } }) { member { firstName extended(fields: ["tier", "givenName"]) } }
    }`,
      { id: a.member.id },
    );
    expect(updated.body.data.updateMember.member).toEqual({ firstName: 'Upd', extended: { tier: 'gold', givenName: 'Upd' } });

    const reset = await t.graphql(
      app.apiKey,
      `mutation ($id: ID!, $email: String!, $serviceId: ID!) {
      resetPassword(id: $id, input: { email: $email, password: "brand new pass", serviceId: $serviceId }) { member { id } }
    }`,
      { id: a.member.id, email: a.email, serviceId: a.member.services[0].id },
    );
    expect(reset.body.errors).toBeUndefined();

    const verified = await t.graphql(
      app.apiKey,
      `mutation ($id: ID!, $email: String!) {
      verifyEmail(id: $id, input: { network: "email", verifiedEmail: $email }) { member { verifiedEmail } }
    }`,
      { id: a.member.id, email: a.email },
    );
    expect(verified.body.data.verifyEmail.member.verifiedEmail).toBe(a.email);

    const merged = await t.graphql(
      app.apiKey,
      `mutation ($into: ID!, $from: ID!, $token: String!) {
      mergeMembers(intoId: $into, fromId: $from, fromAccessToken: $token) { member { id services { network } } }
    }`,
      { into: a.member.id, from: b.member.id, token: b.member.accessToken },
    );
    expect(merged.body.data.mergeMembers.member.services).toHaveLength(2);

    const deleted = await t.graphql(app.apiKey, 'mutation ($id: ID!) { deleteMember(id: $id) }', { id: a.member.id });
    expect(deleted.body.data).toEqual({ deleteMember: true });
    const gone = await t.graphql(app.apiKey, 'query ($id: ID!) { member(lookup: { id: $id }) { id } }', { id: b.member.id });
    expect(gone.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', aeCode: 5 });
  });

  it('validates inputs with the parameter named', async () => {
    const a = await register();
    const cases: [string, Record<string, unknown>, string][] = [
      ['mutation ($id: ID!) { updateMember(id: $id, input: { country: "Britain" }) { jwt } }', { id: a.member.id }, 'country'],
      ['mutation ($id: ID!) { updateMember(id: $id, input: { email: "nope" }) { jwt } }', { id: a.member.id }, 'email'],
      ['mutation ($id: ID!) { resetPassword(id: $id, input: { email: "x@example.com", password: "short", serviceId: "1" }) { jwt } }', { id: a.member.id }, 'password'],
      ['mutation ($id: ID!) { verifyEmail(id: $id, input: { network: "myspace", verifiedEmail: "x@example.com" }) { jwt } }', { id: a.member.id }, 'network'],
      ['mutation ($id: ID!) { mergeMembers(intoId: $id, fromId: $id, fromAccessToken: "x") { jwt } }', { id: a.member.id }, 'fromId'],
      ['mutation { deleteMember(id: "abc") }', {}, 'id'],
    ];
    for (const [query, variables, param] of cases) {
      const { body } = await t.graphql(app.apiKey, query, variables);
      expect(body.errors?.[0]?.extensions, query).toMatchObject({ aeCode: 4, param });
    }
  });

  it('answers not found for another account’s member', async () => {
    const a = await register();
    for (const query of [
      'mutation ($id: ID!) { updateMember(id: $id, input: { firstName: "X" }) { jwt } }',
      'mutation ($id: ID!) { deleteMember(id: $id) }',
      'query ($id: ID!) { member(lookup: { id: $id }) { id } }',
    ]) {
      const { body } = await t.graphql(other.apiKey, query, { id: a.member.id });
      expect(body.errors[0].extensions.code, query).toBe('NOT_FOUND');
    }
  });
});

describe('a failed merge', () => {
  it('leaves both members as they were', async () => {
    const a = await register();
    const b = await register();
    const db = t.database.db;
    const survivor = (await findMember(db, app.accountId, Number(a.member.id)))!;
    const merged = (await findMember(db, app.accountId, Number(b.member.id)))!;
    await expect(
      db.transaction(async (tx) => {
        await mergeInto(tx, survivor, merged);
        throw new Error('failure after the rows moved');
      }),
    ).rejects.toThrow(/after the rows moved/);
    const services = await db
      .select()
      .from(memberServices)
      .where(sql`${memberServices.memberId} = ${merged.id}`);
    expect(services).toHaveLength(1);
    const [row] = await db
      .select()
      .from(members)
      .where(sql`${members.id} = ${merged.id}`);
    expect(row.mergedIntoId).toBeNull();
  });
});

describe('SQL round trips', () => {
  it('the loaders behind member fields cost one query each for a page, whatever its size', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(Number((await register()).member.id));
    const caller = (await resolveApiKey(t.database.db, app.apiKey))!;
    const page = async (count: number) => {
      // A fresh context per page, as each request gets; the fields of a listed page resolve together.
      const context = createContext({ requestId: 'page', log: pino({ level: 'silent' }), database: t.database, caller, identity: undefined as never, activityQueue: undefined as never });
      const { result, roundTrips } = await withRoundTripCount(() =>
        Promise.all(ids.slice(0, count).map((id) => Promise.all([context.loaders.members.rows.load(id), context.loaders.members.services.load(id), context.loaders.members.domains.load(id)]))),
      );
      expect(result.every(([row, services, domains]) => row && services.length === 1 && domains.length === 1)).toBe(true);
      return roundTrips;
    };
    expect(await page(2)).toBe(3);
    expect(await page(6)).toBe(3);
  });

  async function roundTrips(tenant: Tenant, request: { url: string; query?: string; variables?: Record<string, unknown> }) {
    const response = request.query
      ? await t.request({ method: 'POST', url: request.url, headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, payload: { query: request.query, variables: request.variables } })
      : await t.request({ method: 'GET', url: `${request.url}${request.url.includes('?') ? '&' : '?'}apikey=${tenant.apiKey}` });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toBeUndefined();
    return { count: Number(response.headers['x-sql-round-trips']), body: response.json() };
  }

  it('a plain page of members with their services and opt-ins is one statement, for 10 and 100 members, and answers what the loaders answer', async () => {
    const tenant = await t.tenant('advanced');
    const ids = await insertMembers(
      t,
      tenant,
      Array.from({ length: 120 }, () => ({})),
    );
    const brand = await insertBrand(t, tenant, 'Page Brand');
    for (const id of ids.slice(0, 30)) {
      const { body } = await t.graphql(tenant.apiKey, 'mutation($input: OptInInput!) { optIn(input: $input) { id } }', { input: { memberId: String(id), brandId: String(brand) } });
      expect(body.errors).toBeUndefined();
    }
    const page = (first: number, memberFields = 'id email firstName') => ({
      url: '/graphql',
      query: `{ members(first: ${first}, orderBy: ID, sort: ASC) { edges { node { ${memberFields} services { network userId valid } optins { id kind name brandId optedInAt optedOutAt brand { name } } } } } }`,
    });
    await roundTrips(tenant, page(1)); // the API key is now cached, as it is for any busy caller
    const ten = await roundTrips(tenant, page(10));
    const hundred = await roundTrips(tenant, page(100));
    expect(hundred.body.data.members.edges).toHaveLength(100);
    expect(hundred.body.data.members.edges[0].node.services).toEqual([{ network: 'spotify', userId: expect.stringMatching(/^uid-/), valid: true }]);
    expect(hundred.body.data.members.edges[0].node.optins).toEqual([
      { id: expect.any(String), kind: 'BRAND', name: 'Page Brand', brandId: String(brand), optedInAt: expect.any(String), optedOutAt: null, brand: { name: 'Page Brand' } },
    ]);
    // the listing reads the services' network, user id and validity and the current opt-ins with the page (plus the brands of the opt-ins)
    expect(ten.count).toBe(2);
    expect(hundred.count).toBe(2);
    // a field beyond the narrow columns reads whole rows, and services and opt-ins through their loaders: the same answers
    const whole = await roundTrips(tenant, page(100, 'id email firstName uuid'));
    expect(whole.count).toBe(4);
    const strip = (edges: { node: Record<string, unknown> }[]) => edges.map(({ node: { uuid: _uuid, ...node } }) => node);
    expect(strip(whole.body.data.members.edges)).toEqual(strip(hundred.body.data.members.edges));

    // paging by cursor (after a greater id, before a smaller one, as members/all does), both ways and in both orders, answers the same members narrow and whole
    const cursorPage = async (args: string, memberFields: string): Promise<{ cursor: string; id: string }[]> => {
      const { body } = await roundTrips(tenant, { url: '/graphql', query: `{ members(${args}) { edges { cursor node { ${memberFields} optins { id } } } } }` });
      return body.data.members.edges.map((edge: { cursor: string; node: { id: string } }) => ({ cursor: edge.cursor, id: edge.node.id }));
    };
    const idsOf = (edges: { id: string }[]) => edges.map((edge) => edge.id);
    for (const sort of ['ASC', 'DESC']) {
      const first = await cursorPage(`first: 7, orderBy: ID, sort: ${sort}`, 'id');
      expect(first).toEqual(await cursorPage(`first: 7, orderBy: ID, sort: ${sort}`, 'id uuid'));
      const next = await cursorPage(`first: 5, orderBy: ID, sort: ${sort}, after: "${first[3].cursor}"`, 'id');
      if (sort === 'ASC') expect(idsOf(next.slice(0, 3))).toEqual(idsOf(first.slice(4)));
      expect(next).toEqual(await cursorPage(`first: 5, orderBy: ID, sort: ${sort}, after: "${first[3].cursor}"`, 'id uuid'));
      const previous = await cursorPage(`first: 2, orderBy: ID, sort: ${sort}, before: "${first[3].cursor}"`, 'id');
      if (sort === 'ASC') expect(idsOf(previous)).toEqual(idsOf(first.slice(1, 3)));
      expect(previous).toEqual(await cursorPage(`first: 2, orderBy: ID, sort: ${sort}, before: "${first[3].cursor}"`, 'id uuid'));
    }
  });

  it('member show reads the member, its services, their domains and its opt-ins in one statement, and only what is asked for', async () => {
    const { member } = await register();
    await roundTrips(app, { url: '/graphql', query: '{ application { id } }' });
    const brand = await insertBrand(t, app, `Show Brand ${member.id}`);
    await t.graphql(app.apiKey, 'mutation($input: OptInInput!) { optIn(input: $input) { id } }', { input: { memberId: member.id, brandId: String(brand) } });
    const whole = 'id email accessToken services { id network token lastUpdated domains } domains { domain registered } optins { kind name optedInAt }';
    const show = await roundTrips(app, { url: '/graphql', query: `query ($id: ID!) { member(lookup: { id: $id }) { ${whole} } }`, variables: { id: member.id } });
    expect(show.body.data.member).toMatchObject({
      id: member.id,
      accessToken: member.accessToken,
      services: [{ network: 'email', token: null, domains: ['API'] }],
      domains: [{ domain: 'API', registered: true }],
      optins: [{ kind: 'BRAND', name: `Show Brand ${member.id}` }],
    });
    // the member with its services, their domains and its opt-ins (the row serves accessToken too)
    expect(show.count).toBe(1);
    // the same answers through the loaders: a lookup the statement does not read for (by email), and a refresh
    const byEmail = await roundTrips(app, { url: '/graphql', query: `query ($email: String!) { member(lookup: { email: $email }) { ${whole} } }`, variables: { email: show.body.data.member.email } });
    expect(byEmail.body.data.member).toEqual(show.body.data.member);
    expect(byEmail.count).toBe(4); // the member, its services, the domains (one loader for both fields), its opt-ins
    const refreshed = await roundTrips(app, { url: '/graphql', query: `query ($id: ID!) { member(lookup: { id: $id }, refresh: true) { ${whole} } }`, variables: { id: member.id } });
    expect(refreshed.body.data.member).toEqual(show.body.data.member);
    const summary = await roundTrips(app, { url: '/graphql', query: 'query ($id: ID!) { member(lookup: { id: $id }) { id services { network userId } } }', variables: { id: member.id } });
    expect(summary.body.data.member.services).toEqual([{ network: 'email', userId: show.body.data.member.email }]);
    expect(summary.count).toBe(1);
    // REST member show: the same one statement
    const rest = await roundTrips(app, { url: `/v1.1/member/${member.id}` });
    expect(rest.body.data.AccessToken).toBe(member.accessToken);
    expect(rest.body.services[0].Domains).toEqual(['API']);
    expect(rest.body.optins).toHaveLength(1);
    expect(rest.count).toBe(1);
  });
});
