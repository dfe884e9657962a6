import { and, eq } from 'drizzle-orm';
import { getMetadataStorage } from 'type-graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, members, widgetSessions } from '../../src/db/schema/index.js';
import { resolvers } from '../../src/graphql/resolvers.js';
import { listen } from '../pages/browser.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, submitForm, tokenOf, whitelist } from '../widget/support.js';

/**
 * A fan's own front end with a member JWT (docs/members.md, "Member JWT"): viewerUpdate,
 * viewerSessions and viewerEndSessions over the gateway's /graphql on a real port; the session
 * check, never another member, never a token.
 */

let t: TestGateway;
let base: string;
let app: Tenant;
let stranger: Tenant;
const site = 'https://fans.example.com/welcome';
const origin = 'https://fans.example.com';

beforeAll(async () => {
  t = await startTestGateway();
  base = await listen(t);
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  await whitelist(t, app, 'fans.example.com');
});
afterAll(() => t.close());

async function post(headers: Record<string, string>, query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as { data?: any; errors?: any } };
}
const asKey = (tenant: Tenant, query: string, variables?: Record<string, unknown>) => post({ 'x-api-key': tenant.apiKey }, query, variables);
const asMember = (jwt: string, query: string, variables?: Record<string, unknown>) => post({ authorization: `Bearer ${jwt}` }, query, variables);

let counter = 0;
const uniqueEmail = () => `viewer${++counter}-${Date.now()}@example.com`;

async function register(tenant = app) {
  const email = uniqueEmail();
  const response = await t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', firstname: 'Ada', country: 'GB' });
  expect(response.status, response.body).toBe(200);
  return { email, id: String(response.json[0].data.ID), jwt: response.json[0].jwt as string, accessToken: response.json[0].data.AccessToken as string };
}

/** A fan signed in through the hosted widget flow: a widget session (its cookie), and a JWT from the token it returned with. */
async function widgetFan() {
  const email = uniqueEmail();
  const jar = new CookieJar();
  const registered = await submitForm(t, jar, `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent(site)}`, { email, password: 'correct horse', firstName: 'Ada' });
  expect(registered.statusCode, registered.body).toBe(303);
  const exchanged = await t.rest(app, 'POST', '/auth', { accesstoken: tokenOf(registered.headers.location as string) });
  expect(exchanged.status, exchanged.body).toBe(200);
  return { email, jar, id: String(exchanged.json.data.ID), jwt: exchanged.json.jwt as string };
}

const widgetUser = async (jar: CookieJar) => (await t.request({ url: `/framework/session/${app.applicationId}`, headers: { cookie: jar.header(), origin } })).json().user?.data ?? null;
const memberRow = async (id: string) =>
  (
    await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(id)))
  )[0];

const update = `mutation($input: ViewerUpdateInput!) { viewerUpdate(input: $input) {
  viewer { id firstName surname gender birthDate city country state postCode address addressLine2 homePhone mobilePhone website bio email }
  userErrors { field code message } } }`;

describe('viewerUpdate', () => {
  it("changes the signed-in member's own profile and answers it", async () => {
    const fan = await register();
    const input = {
      firstName: ' Grace ',
      surname: 'Hopper',
      gender: 'F',
      birthDate: '1990-12-09',
      city: 'Arlington',
      country: 'us',
      state: 'VA',
      postCode: '22201',
      address: '1 Navy Way',
      addressLine2: 'Floor 2',
      homePhone: '+1 555 0100',
      mobilePhone: '+1 555 0101',
      website: 'https://grace.example.com',
      bio: 'Compilers.',
    };
    const answer = await asMember(fan.jwt, update, { input });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      data: {
        viewerUpdate: {
          viewer: {
            id: fan.id,
            firstName: 'Grace',
            surname: 'Hopper',
            gender: 'F',
            birthDate: '1990-12-09',
            city: 'Arlington',
            country: 'US',
            state: 'VA',
            postCode: '22201',
            address: '1 Navy Way',
            addressLine2: 'Floor 2',
            homePhone: '+1 555 0100',
            mobilePhone: '+1 555 0101',
            website: 'https://grace.example.com',
            bio: 'Compilers.',
            email: fan.email,
          },
          userErrors: [],
        },
      },
    });
    // The same member through the API key: written, and the fields left out keep their values.
    const shown = await asKey(app, 'query($id: ID!) { member(lookup: { id: $id }) { firstName country email } }', { id: fan.id });
    expect(shown.json.data.member).toEqual({ firstName: 'Grace', country: 'US', email: fan.email });
    const partial = await asMember(fan.jwt, update, { input: { city: 'Boston' } });
    expect(partial.json.data.viewerUpdate.viewer).toMatchObject({ firstName: 'Grace', city: 'Boston', country: 'US' });
    // The fan's own change, as on the hosted pages: not in the audit log.
    const audit = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, app.accountId), eq(auditEvents.targetId, fan.id), eq(auditEvents.action, 'fan.edit')));
    expect(audit).toEqual([]);
  });

  it('answers every problem as a user error at its path, and writes nothing', async () => {
    const fan = await register();
    const before = await memberRow(fan.id);
    const cases: [Record<string, unknown>, string[], string][] = [
      [{ birthDate: 'yesterday' }, ['input', 'birthDate'], 'INVALID'],
      [{ birthDate: '2001-02-30' }, ['input', 'birthDate'], 'INVALID'],
      [{ birthDate: '2999-01-01' }, ['input', 'birthDate'], 'INVALID'],
      [{ country: 'GBR' }, ['input', 'country'], 'INVALID'],
      [{ postCode: 'x'.repeat(21) }, ['input', 'postCode'], 'INVALID'],
      [{ firstName: 'x'.repeat(501) }, ['input', 'firstName'], 'INVALID'],
      [{ state: 'x'.repeat(501) }, ['input', 'state'], 'INVALID'],
      [{ mobilePhone: '1'.repeat(41) }, ['input', 'mobilePhone'], 'INVALID'],
      [{ bio: 'x'.repeat(5001) }, ['input', 'bio'], 'INVALID'],
    ];
    for (const [input, field, code] of cases) {
      const answer = await asMember(fan.jwt, update, { input: { firstName: 'Changed', ...input } });
      expect(answer.status, JSON.stringify(input)).toBe(200);
      expect(answer.json.data.viewerUpdate.viewer).toBeNull();
      expect(answer.json.data.viewerUpdate.userErrors, JSON.stringify(input)).toEqual([{ field, code, message: expect.any(String) }]);
    }
    // Several at once: every one the members service reports, each at its own path.
    const several = await asMember(fan.jwt, update, { input: { country: 'GBR', postCode: 'x'.repeat(21) } });
    const fields = several.json.data.viewerUpdate.userErrors.map((error: { field: string[] }) => error.field.join('.'));
    expect(fields.length).toBeGreaterThan(0);
    for (const path of fields) expect(['input.country', 'input.postCode']).toContain(path);
    expect(await memberRow(fan.id)).toEqual(before);
  });

  it('takes no email and no custom fields: those stay with the label (refused before anything runs)', async () => {
    const fan = await register();
    const before = await memberRow(fan.id);
    for (const input of [{ email: 'taken@example.com' }, { extended: { vip: true } }]) {
      const answer = await asMember(fan.jwt, update, { input });
      expect(answer.status).toBe(400);
      expect(answer.json.errors[0].message).toMatch(/is not defined by type "ViewerUpdateInput"/);
    }
    expect(await memberRow(fan.id)).toEqual(before);
  });

  it('refuses an API key, a JWT whose sessions ended, and a token altered to name another member', async () => {
    const fan = await register();
    const other = await register();
    const key = await asKey(app, update, { input: { firstName: 'Key' } });
    expect(key.json.errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION' });
    const [header, payload, signature] = fan.jwt.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    for (const altered of [
      { ...claims, sub: other.id },
      { ...claims, acc: stranger.accountId },
    ]) {
      const forged = [header, Buffer.from(JSON.stringify(altered)).toString('base64url'), signature].join('.');
      const answer = await asMember(forged, update, { input: { firstName: 'Mallory' } });
      expect(answer.status).toBe(401);
      expect(answer.json.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN' });
    }
    const revoked = await asKey(app, 'mutation($id: ID!) { revokeMemberSessions(id: $id) { member { id } } }', { id: fan.id });
    expect(revoked.json.errors).toBeUndefined();
    const ended = await asMember(fan.jwt, update, { input: { firstName: 'Late' } });
    expect(ended.status).toBe(401);
    expect(ended.json.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN' });
    expect((await memberRow(fan.id)).firstName).toBe('Ada');
    expect((await memberRow(other.id)).firstName).toBe('Ada');
  });

  it("a JWT of another tenant's member changes that member only", async () => {
    const theirs = await register(stranger);
    const mine = await register();
    const answer = await asMember(theirs.jwt, update, { input: { firstName: 'Theirs' } });
    expect(answer.json.data.viewerUpdate.viewer).toMatchObject({ id: theirs.id, firstName: 'Theirs' });
    expect((await memberRow(mine.id)).firstName).toBe('Ada');
  });
});

describe('viewerSessions and viewerEndSessions', () => {
  const sessionsQuery = '{ viewerSessions { id applicationId applicationName beganWith startedAt expiresAt live } }';
  const endSessions = 'mutation($id: ID) { viewerEndSessions(id: $id) { endedSessions { id live } signedOut userErrors { field code message } } }';

  it("lists the fan's widget sessions without any secret, and ends one by id", async () => {
    const fan = await widgetFan();
    const second = new CookieJar();
    const signedIn = await submitForm(t, second, `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}`, { email: fan.email, password: 'correct horse' });
    expect(signedIn.statusCode, signedIn.body).toBe(303);
    const listed = await asMember(fan.jwt, sessionsQuery);
    expect(listed.status).toBe(200);
    const rows = await t.database.db
      .select()
      .from(widgetSessions)
      .where(eq(widgetSessions.memberId, Number(fan.id)))
      .orderBy(widgetSessions.id);
    expect(rows).toHaveLength(2);
    expect(listed.json.data.viewerSessions).toEqual(
      [...rows].reverse().map((row) => ({
        id: String(row.id),
        applicationId: String(app.applicationId),
        applicationName: expect.any(String),
        beganWith: row.beganWith === 'registration' ? 'REGISTRATION' : 'LOGIN',
        startedAt: row.createdAt.toISOString(),
        expiresAt: row.expiresAt.toISOString(),
        live: true,
      })),
    );
    expect(listed.json.data.viewerSessions.map((session: { beganWith: string }) => session.beganWith)).toEqual(['LOGIN', 'REGISTRATION']);
    // No hash, no cookie value, no token anywhere in the answer.
    for (const row of rows) expect(listed.text).not.toContain(row.sessionHash);
    for (const cookie of [...fan.jar.header().split('; '), ...second.header().split('; ')]) expect(listed.text).not.toContain(cookie.split('=')[1]);

    const [registration, login] = rows;
    const ended = await asMember(fan.jwt, endSessions, { id: String(login.id) });
    expect(ended.json.data.viewerEndSessions).toEqual({ endedSessions: [{ id: String(login.id), live: true }], signedOut: false, userErrors: [] });
    expect(await widgetUser(second)).toBeNull();
    expect(await widgetUser(fan.jar)).toMatchObject({ ID: Number(fan.id) });
    // The JWT still answers: one session ended, not the fan's sessions.
    expect((await asMember(fan.jwt, sessionsQuery)).json.data.viewerSessions.map((session: { id: string }) => session.id)).toEqual([String(registration.id)]);
  });

  it("refuses another member's session id (NOT_FOUND at id) and ends nothing", async () => {
    const fan = await widgetFan();
    const other = await widgetFan();
    const [theirs] = await t.database.db
      .select()
      .from(widgetSessions)
      .where(eq(widgetSessions.memberId, Number(other.id)));
    for (const id of [String(theirs.id), '999999999', 'abc']) {
      const answer = await asMember(fan.jwt, endSessions, { id });
      expect(answer.json.data.viewerEndSessions).toEqual({ endedSessions: [], signedOut: false, userErrors: [{ field: ['id'], code: 'NOT_FOUND', message: 'Session not found.' }] });
    }
    expect(await widgetUser(other.jar)).toMatchObject({ ID: Number(other.id) });
    expect(await widgetUser(fan.jar)).toMatchObject({ ID: Number(fan.id) });
    expect((await asMember(fan.jwt, '{ viewer { id } }')).json.data.viewer).toEqual({ id: fan.id });
  });

  it('ends every session without an id: the widget session and the JWT in use stop answering', async () => {
    const fan = await widgetFan();
    const before = await memberRow(fan.id);
    const ended = await asMember(fan.jwt, endSessions);
    expect(ended.status).toBe(200);
    const [session] = await t.database.db
      .select()
      .from(widgetSessions)
      .where(eq(widgetSessions.memberId, Number(fan.id)));
    expect(ended.json.data.viewerEndSessions).toEqual({ endedSessions: [{ id: String(session.id), live: true }], signedOut: true, userErrors: [] });
    expect(await widgetUser(fan.jar)).toBeNull();
    const after = await memberRow(fan.id);
    expect(after.sessionGeneration).toBe(before.sessionGeneration + 1);
    expect(after.accessTokenHash).not.toBe(before.accessTokenHash);
    for (const query of ['{ viewer { id } }', sessionsQuery]) {
      const refused = await asMember(fan.jwt, query);
      expect(refused.status).toBe(401);
      expect(refused.json.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', aeCode: 15 });
    }
    expect((await asMember(fan.jwt, endSessions)).status).toBe(401);
  });

  it('refuses an API key', async () => {
    for (const query of [sessionsQuery, 'mutation { viewerEndSessions { signedOut } }']) {
      const answer = await asKey(app, query);
      expect(answer.json.errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION' });
    }
  });
});

describe('a member JWT never reads a token', () => {
  it('answers null for network tokens, the access token and the JWT, wherever a Member is answered', async () => {
    const fan = await register();
    const linked = await t.rest(app, 'POST', `/member/${fan.id}/register`, { service: 'spotify', authtoken: 'spotify-secret-token', authsecret: 'spotify-refresh-secret', uid: `v-${Date.now()}` });
    expect(linked.status, linked.body).toBe(200);
    const fields = '{ id accessToken jwt services { network token tokenSecret } extended(fields: ["profiles"]) }';
    const viewer = await asMember(fan.jwt, `{ viewer ${fields} }`);
    const updated = await asMember(fan.jwt, `mutation { viewerUpdate(input: { city: "Leeds" }) { viewer ${fields} } }`);
    for (const answer of [viewer.json.data.viewer, updated.json.data.viewerUpdate.viewer]) {
      expect(answer).toEqual({
        id: fan.id,
        accessToken: null,
        jwt: null,
        services: [
          { network: 'email', token: null, tokenSecret: null },
          { network: 'spotify', token: null, tokenSecret: null },
        ],
        extended: { profiles: [expect.objectContaining({ accessCredentials: expect.objectContaining({ accessToken: null }) })] },
      });
    }
    for (const text of [viewer.text, updated.text]) {
      for (const secret of ['spotify-secret-token', 'spotify-refresh-secret', fan.accessToken]) expect(text).not.toContain(secret);
    }
    // The API key still reads them, as before.
    const key = await asKey(app, `query($id: ID!) { member(lookup: { id: $id }) { accessToken services { network token tokenSecret } } }`, { id: fan.id });
    expect(key.json.data.member.accessToken).toBe(fan.accessToken);
    expect(key.json.data.member.services).toContainEqual({ network: 'spotify', token: 'spotify-secret-token', tokenSecret: 'spotify-refresh-secret' });
  });
});

describe('what a member JWT may call', () => {
  const viewerFields = ['viewer', 'viewerUpdate', 'viewerSessions', 'viewerEndSessions', 'viewerOptIn', 'viewerOptOut'];

  it('the viewer fields take the member role; every other root field refuses it', async () => {
    const introspection = await asKey(app, '{ q: __type(name: "Query") { fields { name } } m: __type(name: "Mutation") { fields(includeDeprecated: true) { name } } }');
    const roots = [...introspection.json.data.q.fields, ...introspection.json.data.m.fields].map((field: { name: string }) => field.name);
    const storage = getMetadataStorage();
    // The public schema's resolvers only: the console's schema has root fields of its own (its own viewer among them).
    const publicClasses = new Set(resolvers.map((resolver) => resolver.name));
    const resolverOf = new Map([...storage.queries, ...storage.mutations].filter((resolver) => publicClasses.has(resolver.target.name)).map((resolver) => [resolver.schemaName, resolver]));
    const memberFields = roots.filter((name) => {
      const resolver = resolverOf.get(name)!;
      const authorized = storage.authorizedFields.find((item) => item.target.name === resolver.target.name && item.fieldName === resolver.methodName);
      // A root field without @Authorized would let any caller in: there is none.
      expect(authorized, name).toBeDefined();
      return (authorized!.roles as string[]).includes('member');
    });
    expect(memberFields.sort()).toEqual([...viewerFields].sort());
  });

  it('a sample of other operations answers WRONG_APPLICATION over HTTP', async () => {
    const fan = await register();
    const attempts = [
      `{ member(lookup: { id: "${fan.id}" }) { id } }`,
      '{ members(first: 1) { edges { node { id } } } }',
      '{ application { id } }',
      `mutation { updateMember(id: "${fan.id}", input: { firstName: "X" }) { member { id } } }`,
      `mutation { revokeMemberSessions(id: "${fan.id}") { jwt } }`,
      `mutation { memberOptOut(member: { id: "${fan.id}" }, list: { global: true }) { userErrors { code } } }`,
    ];
    for (const query of attempts) {
      const answer = await asMember(fan.jwt, query);
      expect(answer.json.errors?.[0]?.extensions, query).toMatchObject({ code: 'WRONG_APPLICATION', aeCode: 7 });
    }
    expect((await memberRow(fan.id)).firstName).toBe('Ada');
  });
});
