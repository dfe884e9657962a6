import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginEvents, members, memberServices } from '../../src/db/schema/index.js';
import { mergeApplicationSettings } from '../../src/modules/widget/widget.queries.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * The member mutations a sign-up, sign-in or profile form calls (memberRegister, memberLogin,
 * memberUpdate), over /graphql: every problem of a form in one answer, each at its input path with
 * its code, nothing written, HTTP 200; the session payload; the old mutations unchanged.
 */
let t: TestGateway;
let app: Tenant;
let other: Tenant;
let uniform: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  other = await t.tenant('basic');
  uniform = await t.tenant('basic');
  // Set before the key's first request, which caches the application's settings with the key.
  await mergeApplicationSettings(t.database.db, uniform.accountId, uniform.applicationId, { signInErrors: 'uniform' });
});
afterAll(() => t?.close());

const sessionFields = 'session { jwt jwtExpiresAt accessToken accessTokenExpiresAt }';
const register = `mutation($input: MemberRegisterInput!) {
  memberRegister(input: $input) { created member { id email firstName birthDate } ${sessionFields} userErrors { field code message } }
}`;
const login = `mutation($input: MemberLoginInput!) {
  memberLogin(input: $input) { member { id email } ${sessionFields} userErrors { field code message } }
}`;
const update = `mutation($member: MemberRef!, $input: MemberUpdateInput!) {
  memberUpdate(member: $member, input: $input) { member { id email firstName birthDate city } userErrors { field code message } }
}`;

const emailOf = (label: string) => `${label}-${randomUUID()}@example.com`;

async function memberCount(tenant: Tenant): Promise<number> {
  const [row] = await t.database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(members)
    .where(eq(members.accountId, tenant.accountId));
  return row.n;
}

async function signUp(tenant: Tenant, email: string, password = 'correct horse', profile: Record<string, unknown> = {}) {
  const answer = await t.graphql(tenant.apiKey, register, { input: { credentials: { network: 'email', email, password }, profile } });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.errors, answer.text).toBeUndefined();
  return answer.body.data.memberRegister;
}

describe('memberRegister', () => {
  it('creates a member and answers its session: a JWT for this application, the access token, their expiries', async () => {
    const email = emailOf('new');
    const before = Date.now();
    const payload = await signUp(app, email, 'correct horse', { firstName: ' Ada ', birthDate: '1990-02-28' });
    expect(payload).toEqual({
      created: true,
      member: { id: expect.any(String), email, firstName: 'Ada', birthDate: '1990-02-28' },
      session: { jwt: expect.any(String), jwtExpiresAt: expect.any(String), accessToken: expect.stringMatching(/^[0-9a-f]{32}_\d+$/), accessTokenExpiresAt: expect.any(String) },
      userErrors: [],
    });
    const claims = decodeJwt(payload.session.jwt);
    expect(claims).toMatchObject({ sub: payload.member.id, aud: `app:${app.applicationId}`, acc: app.accountId });
    expect(new Date(payload.session.jwtExpiresAt).getTime()).toBe((claims.exp ?? 0) * 1000);
    // 90 days from issue.
    const accessExpiry = new Date(payload.session.accessTokenExpiresAt).getTime();
    expect(accessExpiry - before).toBeGreaterThan(89 * 86400_000);
    expect(accessExpiry - Date.now()).toBeLessThanOrEqual(90 * 86400_000);
    // The session's access token is the member's (the deprecated field answers the same).
    const read = await t.graphql(app.apiKey, 'query($id: ID!) { member(lookup: { id: $id }) { accessToken } }', { id: payload.member.id });
    expect(read.body.data.member.accessToken).toBe(payload.session.accessToken);
  });

  it('answers the member of a registered address whose password matches (created false); another password is TAKEN', async () => {
    const email = emailOf('again');
    const first = await signUp(app, email);
    const again = await signUp(app, email);
    expect(again).toMatchObject({ created: false, member: { id: first.member.id }, userErrors: [] });
    const taken = await t.graphql(app.apiKey, register, { input: { credentials: { network: 'email', email, password: 'another password' } } });
    expect(taken.status).toBe(200);
    expect(taken.body.data.memberRegister).toEqual({
      created: null,
      member: null,
      session: null,
      userErrors: [{ field: ['input', 'credentials', 'email'], code: 'TAKEN', message: 'This email address is registered already, with another password.' }],
    });
  });

  it('answers every problem of a sign-up form at once, at its path, and writes nothing', async () => {
    const before = await memberCount(app);
    const answer = await t.graphql(app.apiKey, register, {
      input: {
        credentials: { network: 'email', email: 'not an address', password: 'short' },
        profile: { birthDate: '2023-02-30', country: 'Britain', postCode: 'x'.repeat(21) },
        visit: { domain: 'http://exa mple.com/' },
        segmentId: '999999999',
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.memberRegister).toEqual({
      created: null,
      member: null,
      session: null,
      userErrors: [
        { field: ['input', 'credentials', 'email'], code: 'INVALID', message: "The parameter 'email' is invalid: expected an email address." },
        { field: ['input', 'credentials', 'password'], code: 'INVALID', message: 'A password needs at least 8 characters.' },
        { field: ['input', 'profile', 'birthDate'], code: 'INVALID', message: "The parameter 'birthdate' is invalid: expected a real date of birth in the past." },
        { field: ['input', 'profile', 'country'], code: 'INVALID', message: "The parameter 'country' is invalid: expected an ISO 3166-1 alpha-2 code such as GB." },
        { field: ['input', 'profile', 'postCode'], code: 'INVALID', message: "The parameter 'postcode' is invalid: at most 20 characters." },
        { field: ['input', 'visit', 'domain'], code: 'INVALID', message: "The parameter 'domain' is invalid: expected a host name such as fans.example.com, or a URL." },
        { field: ['input', 'segmentId'], code: 'NOT_FOUND', message: 'Segment not found.' },
      ],
    });
    expect(await memberCount(app)).toBe(before);
  });

  it('answers a form with three bad fields with three errors; missing credentials are REQUIRED', async () => {
    const answer = await t.graphql(app.apiKey, register, {
      input: { credentials: { network: 'email' }, profile: { birthDate: 'tomorrow' } },
    });
    expect(answer.body.data.memberRegister.userErrors).toEqual([
      { field: ['input', 'credentials', 'email'], code: 'REQUIRED', message: 'Email sign-in needs email and password.' },
      { field: ['input', 'credentials', 'password'], code: 'REQUIRED', message: 'Email sign-in needs email and password.' },
      { field: ['input', 'profile', 'birthDate'], code: 'INVALID', message: "The parameter 'birthdate' is invalid: expected a date as YYYY-MM-DD." },
    ]);
    const future = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
    const later = await t.graphql(app.apiKey, register, { input: { credentials: { network: 'email', email: emailOf('future'), password: 'correct horse' }, profile: { birthDate: future } } });
    expect(later.body.data.memberRegister.userErrors).toEqual([
      { field: ['input', 'profile', 'birthDate'], code: 'INVALID', message: "The parameter 'birthdate' is invalid: expected a real date of birth in the past." },
    ]);
  });

  it('keeps the first result of a document when a second mutation has user errors', async () => {
    const email = emailOf('two');
    const answer = await t.graphql(
      app.apiKey,
      `mutation($good: MemberRegisterInput!, $bad: MemberRegisterInput!) {
        first: memberRegister(input: $good) { created member { email } userErrors { field code } }
        second: memberRegister(input: $bad) { created member { email } userErrors { field code } }
      }`,
      {
        good: { credentials: { network: 'email', email, password: 'correct horse' } },
        bad: { credentials: { network: 'email', email: emailOf('bad'), password: 'short' } },
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        first: { created: true, member: { email }, userErrors: [] },
        second: { created: null, member: null, userErrors: [{ field: ['input', 'credentials', 'password'], code: 'INVALID' }] },
      },
    });
  });
});

describe('memberLogin', () => {
  it('signs a member in, records the login, and answers its session', async () => {
    const email = emailOf('login');
    const registered = await signUp(app, email);
    const answer = await t.graphql(app.apiKey, login, { input: { credentials: { network: 'email', email, password: 'correct horse' }, visit: { domain: 'shop.example.com' } } });
    expect(answer.status).toBe(200);
    expect(answer.body.data.memberLogin).toEqual({
      member: { id: registered.member.id, email },
      session: { jwt: expect.any(String), jwtExpiresAt: expect.any(String), accessToken: registered.session.accessToken, accessTokenExpiresAt: registered.session.accessTokenExpiresAt },
      userErrors: [],
    });
    expect(decodeJwt(answer.body.data.memberLogin.session.jwt).sub).toBe(registered.member.id);
    const events = await t.database.db
      .select()
      .from(loginEvents)
      .where(and(eq(loginEvents.memberId, Number(registered.member.id)), eq(loginEvents.kind, 'login')));
    expect(events).toMatchObject([{ domain: 'shop.example.com', applicationId: app.applicationId }]);
  });

  it('answers a wrong password, a short one and an unknown address as user errors with HTTP 200, recording nothing', async () => {
    const email = emailOf('refused');
    const registered = await signUp(app, email);
    const cases: [Record<string, unknown>, unknown][] = [
      [
        { email, password: 'wrong password' },
        { field: ['input', 'credentials', 'password'], code: 'WRONG_PASSWORD', message: 'The password is wrong.' },
      ],
      [
        { email, password: 'short' },
        { field: ['input', 'credentials', 'password'], code: 'WRONG_PASSWORD', message: 'The password is wrong.' },
      ],
      [
        { email: emailOf('nobody'), password: 'whatever1' },
        { field: ['input', 'credentials', 'email'], code: 'NO_ACCOUNT', message: 'No member has this identity.' },
      ],
    ];
    for (const [credentials, error] of cases) {
      const answer = await t.graphql(app.apiKey, login, { input: { credentials: { network: 'email', ...credentials } } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ data: { memberLogin: { member: null, session: null, userErrors: [error] } } });
    }
    const events = await t.database.db
      .select()
      .from(loginEvents)
      .where(and(eq(loginEvents.memberId, Number(registered.member.id)), eq(loginEvents.kind, 'login')));
    expect(events).toEqual([]);
  });

  it('answers every problem of the credentials at once', async () => {
    const answer = await t.graphql(app.apiKey, login, { input: { credentials: { network: 'myspace', partnerCode: 'p'.repeat(256) }, strictSso: true } });
    expect(answer.body.data.memberLogin.userErrors).toEqual([
      { field: ['input', 'credentials', 'partnerCode'], code: 'INVALID', message: "The parameter 'partnerCode' is invalid: at most 255 characters." },
      { field: ['input', 'credentials', 'network'], code: 'INVALID', message: expect.stringContaining("The parameter 'network' is invalid") },
      {
        field: ['input', 'visit', 'domain'],
        code: 'REQUIRED',
        message: "The parameter 'domain' is required with strict_sso: the website the member must have registered on.",
      },
    ]);
  });

  it('answers an unknown address as a wrong password where the application shows uniform sign-in errors', async () => {
    const email = emailOf('uniform');
    await signUp(uniform, email);
    const unknown = await t.graphql(uniform.apiKey, login, { input: { credentials: { network: 'email', email: emailOf('nobody'), password: 'whatever1' } } });
    const wrong = await t.graphql(uniform.apiKey, login, { input: { credentials: { network: 'email', email, password: 'whatever1' } } });
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.body.data.memberLogin.userErrors).toEqual([{ field: ['input', 'credentials', 'password'], code: 'WRONG_PASSWORD', message: 'The password is wrong.' }]);
  });

  it('keeps throttling a top-level RATE_LIMITED error', async () => {
    const email = emailOf('throttled');
    await signUp(app, email);
    const attempt = (n: number) => t.graphql(app.apiKey, login, { input: { credentials: { network: 'email', email, password: `wrong ${n}` } } });
    let answer = await attempt(0);
    for (let n = 1; n < 30 && !answer.body.errors; n++) answer = await attempt(n);
    expect(answer.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(answer.body.data).toEqual({ memberLogin: null });
  });
});

describe('memberUpdate', () => {
  it('changes the fields given and answers the member', async () => {
    const email = emailOf('update');
    const { member } = await signUp(app, email);
    const answer = await t.graphql(app.apiKey, update, { member: { email }, input: { firstName: 'Grace', birthDate: '1985-12-09', city: ' Leeds ' } });
    expect(answer.body).toEqual({ data: { memberUpdate: { member: { id: member.id, email, firstName: 'Grace', birthDate: '1985-12-09', city: 'Leeds' }, userErrors: [] } } });
  });

  it('answers every problem of the member and the input at once, and changes nothing', async () => {
    const email = emailOf('bad-update');
    const { member } = await signUp(app, email, 'correct horse', { firstName: 'Kept' });
    const [before] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(member.id)));
    const answer = await t.graphql(app.apiKey, update, {
      member: { id: member.id },
      input: { firstName: 'Changed', birthDate: '1990-13-01', email: 'nope', mobilePhone: '1'.repeat(41), extended: { a: nested(40) } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.memberUpdate).toEqual({
      member: null,
      userErrors: [
        { field: ['input', 'birthDate'], code: 'INVALID', message: "The parameter 'birthdate' is invalid: expected a real date of birth in the past." },
        { field: ['input', 'email'], code: 'INVALID', message: "The parameter 'email' is invalid: expected an email address." },
        { field: ['input', 'mobilePhone'], code: 'INVALID', message: "The parameter 'mobilephone' is invalid: at most 40 characters." },
        { field: ['input', 'extended'], code: 'INVALID', message: expect.stringContaining("The parameter 'extended' is invalid") },
      ],
    });
    const [after] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(member.id)));
    expect(after).toEqual(before);
  });

  it("answers another tenant's member, or none, as NOT_FOUND at the reference's path, with the input's problems, leaking nothing", async () => {
    const theirs = await signUp(other, emailOf('theirs'), 'correct horse', { firstName: 'Theirs' });
    const [before] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(theirs.member.id)));
    const answers = [];
    for (const id of [theirs.member.id, '999999999']) {
      const answer = await t.graphql(app.apiKey, update, { member: { id }, input: { firstName: 'Mine', country: 'XYZ' } });
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain('Theirs');
      expect(answer.text).not.toContain('theirs-');
      answers.push(answer.body);
    }
    expect(answers[0]).toEqual({
      data: {
        memberUpdate: {
          member: null,
          userErrors: [
            { field: ['member', 'id'], code: 'NOT_FOUND', message: 'Member not found.' },
            { field: ['input', 'country'], code: 'INVALID', message: "The parameter 'country' is invalid: expected an ISO 3166-1 alpha-2 code such as GB." },
          ],
        },
      },
    });
    expect(answers[1]).toEqual(answers[0]);
    const [after] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(theirs.member.id)));
    expect(after).toEqual(before);
    // By email, the path names email.
    const byEmail = await t.graphql(app.apiKey, update, { member: { email: emailOf('nobody') }, input: {} });
    expect(byEmail.body.data.memberUpdate.userErrors).toEqual([{ field: ['member', 'email'], code: 'NOT_FOUND', message: 'Member not found.' }]);
  });

  it('answers an address another member signs in with as TAKEN at input.email, and changes nothing', async () => {
    const taken = emailOf('taken');
    await signUp(app, taken);
    const { member } = await signUp(app, emailOf('mover'));
    const answer = await t.graphql(app.apiKey, update, { member: { id: member.id }, input: { email: taken, firstName: 'Moved' } });
    expect(answer.body.data.memberUpdate).toEqual({
      member: null,
      userErrors: [{ field: ['input', 'email'], code: 'TAKEN', message: 'Another member signs in with this email address.' }],
    });
    const [row] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(member.id)));
    expect(row.firstName).toBeNull();
    const services = await t.database.db
      .select()
      .from(memberServices)
      .where(eq(memberServices.memberId, Number(member.id)));
    expect(services.map((service) => service.uid)).not.toContain(taken.toLowerCase());
  });
});

describe('access', () => {
  it('refuses a member JWT (WRONG_APPLICATION) and a missing key (401) for every form mutation', async () => {
    const { session, member } = await signUp(app, emailOf('jwt'));
    const documents: [string, Record<string, unknown>][] = [
      [register, { input: { credentials: { network: 'email', email: emailOf('x'), password: 'correct horse' } } }],
      [login, { input: { credentials: { network: 'email', email: emailOf('x'), password: 'correct horse' } } }],
      [update, { member: { id: member.id }, input: { firstName: 'Nope' } }],
    ];
    for (const [query, variables] of documents) {
      const asMember = await t.request({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${session.jwt}`, 'content-type': 'application/json' }, payload: { query, variables } });
      expect(asMember.json().errors[0].extensions.code).toBe('WRONG_APPLICATION');
      expect(Object.values(asMember.json().data)).toEqual([null]);
      const anonymous = await t.graphql(undefined, query, variables);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.errors[0].extensions.code).toBe('MISSING_API_KEY');
    }
    const [row] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(member.id)));
    expect(row.firstName).toBeNull();
  });
});

describe('the old mutations', () => {
  it('answer as before, deprecated, with the first problem only', async () => {
    const old = await t.graphql(
      app.apiKey,
      `mutation { registerMember(input: { credentials: { network: "email", email: "not an address", password: "short" }, profile: { country: "Britain" } }) { created } }`,
    );
    expect(old.body.errors.map((error: { extensions: { code: string; param: string } }) => [error.extensions.code, error.extensions.param])).toEqual([['INVALID_PARAMETER', 'email']]);
    const schema = await t.graphql(app.apiKey, '{ __type(name: "Mutation") { fields(includeDeprecated: true) { name deprecationReason } } }');
    const reasons = Object.fromEntries(schema.body.data.__type.fields.map((field: { name: string; deprecationReason: string | null }) => [field.name, field.deprecationReason]));
    expect(reasons.registerMember).toContain('memberRegister');
    expect(reasons.login).toContain('memberLogin');
    expect(reasons.updateMember).toContain('memberUpdate');
    expect(reasons.memberRegister).toBeNull();
  });

  it('answer an unknown address on login with HTTP 200 and NO_ACCOUNT in errors', async () => {
    const answer = await t.graphql(app.apiKey, `mutation { login(input: { credentials: { network: "email", email: "${emailOf('nobody')}", password: "whatever1" } }) { jwt } }`);
    expect(answer.status).toBe(200);
    expect(answer.body.errors[0].extensions).toMatchObject({ code: 'NO_ACCOUNT', aeCode: 13 });
  });
});

function nested(depth: number): Record<string, unknown> {
  return depth === 0 ? {} : { a: nested(depth - 1) };
}
