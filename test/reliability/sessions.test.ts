import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members, memberServices } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, submitForm, tokenOf, whitelist } from '../widget/support.js';

/**
 * Ending a member's sessions (docs/reliability.md, "Sessions"): a password reset, a merge and an
 * explicit revocation end the member's widget sessions, unspent sign-in tokens and earlier JWTs, and
 * rotate the access token; a member's token reads its own member only.
 */

let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
const site = 'https://fans.example.com/welcome';
const origin = 'https://fans.example.com';

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  await whitelist(t, app, 'fans.example.com');
});
afterAll(() => t.close());

const loginUrl = () => `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}`;
const registerUrl = () => `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent(site)}`;
const sessionUrl = () => `/framework/session/${app.applicationId}`;

let counter = 0;
const uniqueEmail = () => `session${++counter}-${Date.now()}@example.com`;

/** A fan signed in through the widget, as an attacker holding the password would be: a session, a token minted from it, a JWT, the access token. */
async function signedInFan() {
  const email = uniqueEmail();
  const jar = new CookieJar();
  const registered = await submitForm(t, jar, registerUrl(), { email, password: 'correct horse', firstName: 'Ada' });
  expect(registered.statusCode, registered.body).toBe(303);
  const exchanged = await t.rest(app, 'POST', '/auth', { accesstoken: tokenOf(registered.headers.location as string) });
  expect(exchanged.status, exchanged.body).toBe(200);
  const id = exchanged.json.data.ID as number;
  const services = await t.graphql(app.apiKey, 'query($id: ID!) { member(lookup: { id: $id }) { services { id network } } }', { id: String(id) });
  const serviceId = services.body.data.member.services.find((service: { network: string }) => service.network === 'email').id as string;
  // A sign-in token minted from the live session and not yet spent.
  const minted = await t.request({ url: loginUrl(), headers: { cookie: jar.header() } });
  expect(minted.statusCode).toBe(303);
  return { id, email, jar, serviceId, jwt: exchanged.json.jwt as string, accessToken: exchanged.json.data.AccessToken as string, unspent: tokenOf(minted.headers.location) };
}

type Fan = Awaited<ReturnType<typeof signedInFan>>;

async function asMember(jwt: string, query: string, variables?: Record<string, unknown>) {
  const response = await t.request({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, payload: { query, variables } });
  return { status: response.statusCode, json: response.json(), roundTrips: response.headers['x-sql-round-trips'] };
}

const viewer = (jwt: string) => asMember(jwt, '{ viewer { id email } }');
const widgetUser = async (jar: CookieJar) => (await t.request({ url: sessionUrl(), headers: { cookie: jar.header(), origin } })).json().user?.data ?? null; // the widget's user has the REST envelope's shape

/** Everything the fan held still answers. */
async function expectLive(fan: Fan) {
  expect(await widgetUser(fan.jar)).toMatchObject({ ID: fan.id });
  expect((await viewer(fan.jwt)).json.data.viewer).toEqual({ id: String(fan.id), email: fan.email });
}

/** Nothing the fan held before answers: session, tokens minted from it, JWT, access token. */
async function expectEnded(fan: Fan) {
  expect(await widgetUser(fan.jar)).toBeNull();
  // The old session no longer skips the form: it mints no token.
  const again = await t.request({ url: loginUrl(), headers: { cookie: fan.jar.header() } });
  expect(again.statusCode, again.headers.location as string).toBe(200);
  expect((await t.rest(app, 'POST', '/auth', { accesstoken: fan.unspent })).json.error).toMatchObject({ code: 15, type: 'INVALID_TOKEN' });
  const old = await viewer(fan.jwt);
  expect(old.status).toBe(401);
  expect(old.json.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', aeCode: 15 });
  // The old access token proves nothing: not as a sign-in check, not as a merge's `from`.
  expect((await t.rest(app, 'POST', '/auth', { accesstoken: fan.accessToken })).json.error).toMatchObject({ code: 15 });
  const other = await t.rest(app, 'POST', '/member/register', { service: 'email', email: uniqueEmail(), password: 'correct horse' });
  const merge = await t.rest(app, 'POST', `/member/${other.json[0].data.ID}/merge`, { from: fan.id, accesstoken: fan.accessToken });
  expect(merge.status, merge.body).toBe(401);
  expect(merge.json.error).toMatchObject({ code: 15, param: 'accesstoken' });
}

/** The envelope answered with the ending carries a new access token and a JWT that works; a new sign-in works. */
async function expectFreshStart(fan: Fan, envelope: { data: { AccessToken: string }; jwt: string }, password = 'correct horse') {
  expect(envelope.data.AccessToken).toMatch(/^[0-9a-f]{32}_\d+$/);
  expect(envelope.data.AccessToken).not.toBe(fan.accessToken);
  expect((await viewer(envelope.jwt)).json.data.viewer).toEqual({ id: String(fan.id), email: fan.email });
  expect((await t.rest(app, 'POST', '/auth', { accesstoken: envelope.data.AccessToken })).json.data).toMatchObject({ ID: fan.id });
  const jar = new CookieJar();
  const signedIn = await submitForm(t, jar, loginUrl(), { email: fan.email, password });
  expect(signedIn.statusCode, signedIn.body).toBe(303);
  expect((await t.rest(app, 'POST', '/auth', { accesstoken: tokenOf(signedIn.headers.location as string) })).json.data).toMatchObject({ ID: fan.id });
  expect(await widgetUser(jar)).toMatchObject({ ID: fan.id });
}

describe('a password reset', () => {
  it('ends the widget session, the tokens it minted, earlier JWTs and the access token; a new sign-in works', async () => {
    const fan = await signedInFan();
    await expectLive(fan);
    const reset = await t.rest(app, 'POST', `/member/${fan.id}/reset`, { email: fan.email, password: 'a new password', member_service_id: fan.serviceId });
    expect(reset.status, reset.body).toBe(200);
    await expectEnded(fan);
    await expectFreshStart(fan, reset.json, 'a new password');
  });

  it('through GraphQL too', async () => {
    const fan = await signedInFan();
    const reset = await t.graphql(app.apiKey, 'mutation($id: ID!, $input: ResetPasswordInput!) { resetPassword(id: $id, input: $input) { jwt member { accessToken } } }', {
      id: String(fan.id),
      input: { email: fan.email, password: 'a new password', serviceId: fan.serviceId },
    });
    expect(reset.body.errors).toBeUndefined();
    await expectEnded(fan);
    const { jwt, member } = reset.body.data.resetPassword;
    await expectFreshStart(fan, { data: { AccessToken: member.accessToken }, jwt }, 'a new password');
  });
});

describe("revoking a member's sessions", () => {
  it('through GraphQL ends them all and answers the new access token and JWT', async () => {
    const fan = await signedInFan();
    await expectLive(fan);
    const revoked = await t.graphql(app.apiKey, 'mutation($id: ID!) { revokeMemberSessions(id: $id) { jwt member { id accessToken } } }', { id: String(fan.id) });
    expect(revoked.body.errors).toBeUndefined();
    await expectEnded(fan);
    const { jwt, member } = revoked.body.data.revokeMemberSessions;
    await expectFreshStart(fan, { data: { AccessToken: member.accessToken }, jwt });
  });

  it('through REST, POST member/[id]/sessions/revoke, the same', async () => {
    const fan = await signedInFan();
    const revoked = await t.rest(app, 'POST', `/member/${fan.id}/sessions/revoke`);
    expect(revoked.status, revoked.body).toBe(200);
    expect(revoked.json.data).toMatchObject({ ID: fan.id });
    await expectEnded(fan);
    await expectFreshStart(fan, revoked.json);
  });

  it("answers NOT_FOUND for another account's member and changes nothing", async () => {
    const fan = await signedInFan();
    const [before] = await t.database.db.select().from(members).where(eq(members.id, fan.id));
    const rest = await t.rest(stranger, 'POST', `/member/${fan.id}/sessions/revoke`);
    expect(rest.status).toBe(404);
    expect(rest.json.error).toMatchObject({ code: 5, type: 'NOT_FOUND', param: 'id' });
    const graphql = await t.graphql(stranger.apiKey, 'mutation($id: ID!) { revokeMemberSessions(id: $id) { jwt } }', { id: String(fan.id) });
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', aeCode: 5 });
    const [after] = await t.database.db.select().from(members).where(eq(members.id, fan.id));
    expect(after).toEqual(before);
    await expectLive(fan);
    expect((await t.rest(app, 'POST', '/auth', { accesstoken: fan.accessToken })).status).toBe(200);
  });

  it('refuses a member token (the application revokes, not the fan)', async () => {
    const fan = await signedInFan();
    const answer = await asMember(fan.jwt, `mutation { revokeMemberSessions(id: "${fan.id}") { jwt } }`);
    expect(answer.json.errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION' });
    await expectLive(fan);
  });
});

describe('a merge', () => {
  it("ends both members' sessions; the survivor signs in again", async () => {
    const [into, from] = [await signedInFan(), await signedInFan()];
    const merged = await t.rest(app, 'POST', `/member/${into.id}/merge`, { from: from.id, accesstoken: from.accessToken });
    expect(merged.status, merged.body).toBe(200);
    for (const fan of [into, from]) {
      expect(await widgetUser(fan.jar)).toBeNull();
      expect((await viewer(fan.jwt)).json.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN' });
      expect((await t.rest(app, 'POST', '/auth', { accesstoken: fan.unspent })).status).toBe(401);
    }
    expect(merged.json.data.AccessToken).not.toBe(into.accessToken);
    expect((await viewer(merged.json.jwt)).json.data.viewer).toMatchObject({ id: String(into.id) });
  });
});

describe('access token lifetime', () => {
  it('refuses a token past 90 days, and a sign-in renews one past half its life', async () => {
    const fan = await signedInFan();
    const age = (days: number) =>
      t.database.db
        .update(members)
        .set({ accessTokenIssuedAt: sql`now() - make_interval(days => ${days})` })
        .where(eq(members.id, fan.id));
    await age(50);
    const renewed = await t.rest(app, 'POST', '/member/login', { service: 'email', email: fan.email, password: 'correct horse' });
    expect(renewed.json.data.AccessToken).not.toBe(fan.accessToken);
    // A younger token is kept by a sign-in.
    const kept = await t.rest(app, 'POST', '/member/login', { service: 'email', email: fan.email, password: 'correct horse' });
    expect(kept.json.data.AccessToken).toBe(renewed.json.data.AccessToken);
    expect((await t.rest(app, 'POST', '/auth', { accesstoken: renewed.json.data.AccessToken })).status).toBe(200);
    await age(91);
    expect((await t.rest(app, 'POST', '/auth', { accesstoken: renewed.json.data.AccessToken })).json.error).toMatchObject({ code: 15 });
  });
});

describe("a member's token reads its own member only", () => {
  it('cannot filter position (or any viewer score) by other members', async () => {
    const fan = await signedInFan();
    const rival = await signedInFan();
    for (const filter of [{ emails: [rival.email] }, { memberIds: [String(rival.id)] }, { excludeMemberIds: [String(rival.id)] }]) {
      const answer = await asMember(fan.jwt, 'query($filter: MemberFilter) { viewer { position(filter: $filter) } }', { filter });
      expect(answer.json.errors[0].extensions, JSON.stringify(filter)).toMatchObject({ code: 'WRONG_APPLICATION', aeCode: 7, param: Object.keys(filter)[0] });
      const score = await asMember(fan.jwt, 'query($filter: MemberFilter) { viewer { score(filter: $filter) { points } } }', { filter });
      expect(score.json.errors[0].extensions.code).toBe('WRONG_APPLICATION');
    }
    expect((await asMember(fan.jwt, '{ viewer { position(filter: { countries: ["GB"] }) } }')).json.errors).toBeUndefined();
    // An application's key still may.
    const byKey = await t.graphql(app.apiKey, 'query($id: ID!, $email: String!) { member(lookup: { id: $id }) { position(filter: { emails: [$email] }) } }', { id: String(fan.id), email: rival.email });
    expect(byKey.body.errors).toBeUndefined();
  });

  it("reads no saved segment filter, while the application's key does", async () => {
    const fan = await signedInFan();
    const brandId = (await t.rest(app, 'POST', '/brand/create', { name: `Brand ${Date.now()}` })).json.ID;
    const created = await t.graphql(app.apiKey, 'mutation($input: SegmentInput!) { createSegment(input: $input) { id filter } }', {
      input: { name: `Targets ${Date.now()}`, kind: 'FILTER', brandId: String(brandId), filter: { countries: ['GB'] } },
    });
    expect(created.body.data.createSegment.filter).toMatchObject({ countries: ['GB'] });
    const optIn = await t.graphql(app.apiKey, 'mutation($input: OptInInput!) { optIn(input: $input) { id } }', { input: { memberId: String(fan.id), brandId: String(brandId) } });
    expect(optIn.body.errors).toBeUndefined();
    const read = await asMember(fan.jwt, '{ viewer { optins { brand { segments { name filter } } } } }');
    expect(read.json.errors).toBeUndefined();
    const segments = read.json.data.viewer.optins.flatMap((optin: { brand: { segments: unknown[] } | null }) => optin.brand?.segments ?? []);
    expect(segments).toEqual([expect.objectContaining({ filter: null })]);
  });

  it('checks the session with the read viewer makes anyway: no round trip added', async () => {
    const fan = await signedInFan();
    const answer = await viewer(fan.jwt);
    expect(answer.json.data.viewer).toMatchObject({ id: String(fan.id) });
    expect(answer.roundTrips).toBe('1');
  });
});

describe('network verification', () => {
  const serviceRow = (uid: string) =>
    t.database.db
      .select()
      .from(memberServices)
      .where(and(eq(memberServices.accountId, app.accountId), eq(memberServices.network, 'spotify'), eq(memberServices.uid, uid)));

  it("in trust mode, a registration naming an existing identity leaves that member's stored tokens alone", async () => {
    const uid = `trusted-${Date.now()}`;
    const first = await t.rest(app, 'POST', '/member/register', { service: 'spotify', authtoken: 'the-owners-token', uid });
    expect(first.status, first.body).toBe(200);
    const [before] = await serviceRow(uid);
    const again = await t.rest(app, 'POST', '/member/register', { service: 'spotify', authtoken: 'an-attackers-token', authsecret: 'attacker-secret', uid });
    expect(again.status, again.body).toBe(200);
    expect(again.json[0].data.ID).toBe(first.json[0].data.ID);
    const [after] = await serviceRow(uid);
    expect(after.tokenSealed).toBe(before.tokenSealed);
    expect(after.tokenSecretSealed).toBe(before.tokenSecretSealed);
  });

  it('switches to verify and back through GraphQL and REST; a bad mode is code 4', async () => {
    const tenant = await t.tenant('basic');
    const query = 'mutation($mode: NetworkVerification!) { setNetworkVerification(mode: $mode) { id networkVerification } }';
    const verify = await t.graphql(tenant.apiKey, query, { mode: 'VERIFY' });
    expect(verify.body.data.setNetworkVerification).toEqual({ id: String(tenant.applicationId), networkVerification: 'VERIFY' });
    expect((await t.graphql(tenant.apiKey, '{ application { networkVerification } }')).body.data.application.networkVerification).toBe('VERIFY');
    // What the switch does to registrations is in test/members/networks.test.ts, against the fake networks.
    const trust = await t.rest(tenant, 'POST', '/app/network-verification', { mode: 'trust' });
    expect(trust.json).toEqual({ ID: String(tenant.applicationId), NetworkVerification: 'trust' });
    expect((await t.rest(tenant, 'POST', '/member/register', { service: 'spotify', authtoken: 'vouched', uid: `t-${Date.now()}` })).status).toBe(200);
    expect((await t.rest(tenant, 'POST', '/app/network-verification', { mode: 'sometimes' })).json.error).toMatchObject({ code: 4, param: 'mode' });
    expect((await t.rest(tenant, 'POST', '/app/network-verification')).json.error).toMatchObject({ code: 3, param: 'mode' });
  });
});
