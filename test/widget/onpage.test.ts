import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members, optins, widgetSessions } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, whitelist } from './support.js';

/**
 * The on-page flow the widget calls from the application's own page: email sign-in and
 * registration answered in JSON with AE's codes (13, 18), opt-ins from the form, and a session from
 * a member's own access token (`trigger.login`).
 */
let t: TestGateway;
let app: Tenant;
let other: Tenant;
let list: { ID: string };
let foreignList: { ID: string };
const origin = 'https://fans.example.com';
const page = `${origin}/club`;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
  await whitelist(t, app, 'fans.example.com');
  await whitelist(t, other, 'fans.example.com');
  list = (await t.rest(app, 'POST', '/segment/create', { name: 'Newsletter', label: 'Weekly news' })).json;
  foreignList = (await t.rest(other, 'POST', '/segment/create', { name: 'Theirs' })).json;
});
afterAll(() => t.close());

let counter = 0;
const uniqueEmail = () => `onpage${++counter}-${Date.now()}@example.com`;

async function post(tenant: Tenant, path: string, fields: Record<string, string | string[]>, jar = new CookieJar(), from = origin) {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) form.append(name, one);
  const response = await t.request({
    method: 'POST',
    url: `/framework/session/${tenant.applicationId}${path}`,
    headers: { origin: from, cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
  jar.absorb(response);
  return response;
}

const countMembers = async (tenant: Tenant) => (await t.database.db.select({ id: members.id }).from(members).where(eq(members.accountId, tenant.accountId))).length;
const countSessions = async () => (await t.database.db.select({ id: widgetSessions.id }).from(widgetSessions)).length;

describe('POST /framework/session/:applicationId/email', () => {
  it('registers from the page, opts in, starts the session and hands the site a sign-in token', async () => {
    const jar = new CookieJar();
    const email = uniqueEmail();
    const response = await post(app, '/email', { type: 'register', email, password: 'correct horse', firstName: 'Ada', optin: [list.ID], return: page }, jar);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(origin);
    const body = response.json();
    expect(body).toMatchObject({
      type: 'registration',
      user: { data: { Email: email, FirstName: 'Ada' }, services: [{ Service: 'email' }], optins: [{ Type: 'Segment', SegmentID: list.ID, Label: 'Weekly news' }] },
      requiredFields: [],
      completeUrl: null,
    });
    expect(JSON.stringify(body.user)).not.toContain('AccessToken');
    // The session cookie works for the widget's next call, and says how it began.
    const session = await t.request({ url: `/framework/session/${app.applicationId}`, headers: { origin, cookie: jar.header() } });
    expect(session.json()).toMatchObject({ user: { data: { Email: email } }, beganWith: 'registration' });
    // The token the answer carries is the redirect's: the site's server exchanges it once.
    const exchanged = await t.rest(app, 'POST', '/auth', { accesstoken: body.accesstoken });
    expect(exchanged.json.data.Email).toBe(email);

    const again = await post(app, '/email', { type: 'login', email, password: 'correct horse', return: page });
    expect(again.json()).toMatchObject({ type: 'login', user: { data: { Email: email } } });
  });

  it('answers 13 for an unknown address and 18 for a wrong password, as AE does on the page', async () => {
    const email = uniqueEmail();
    expect((await post(app, '/email', { email, password: 'correct horse', return: page })).statusCode).toBe(200);
    const before = await countSessions();

    const unknown = await post(app, '/email', { type: 'login', email: uniqueEmail(), password: 'correct horse', return: page });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['access-control-allow-origin']).toBe(origin);
    expect(unknown.json().error).toMatchObject({ code: 13, type: 'NO_ACCOUNT' });

    const wrong = await post(app, '/email', { type: 'login', email, password: 'not the password', return: page });
    expect(wrong.json().error).toMatchObject({ code: 18, type: 'WRONG_PASSWORD' });
    // A registration meeting the address with another password is a wrong password too.
    const clash = await post(app, '/email', { type: 'register', email, password: 'not the password', return: page });
    expect(clash.json().error).toMatchObject({ code: 18, type: 'WRONG_PASSWORD' });
    expect(await countSessions()).toBe(before);
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    const before = await countMembers(app);
    const sessions = await countSessions();
    const cases: [Record<string, string | string[]>, number, string][] = [
      [{ type: 'delete', email: uniqueEmail(), password: 'correct horse', return: page }, 4, 'type'],
      [{ email: uniqueEmail(), password: 'correct horse', return: 'https://evil.example.net/' }, 16, 'return'],
      [{ email: uniqueEmail(), password: 'correct horse' }, 16, 'return'],
      [{ email: uniqueEmail(), password: 'short', return: page }, 4, 'password'],
      [{ email: 'not an address', password: 'correct horse', return: page }, 4, 'email'],
      [{ email: uniqueEmail(), password: 'correct horse', optin: '999999', return: page }, 5, 'segmentId'],
      [{ email: uniqueEmail(), password: 'correct horse', optin: 'x', return: page }, 4, 'segmentId'],
      [{ email: uniqueEmail(), password: 'correct horse', optin: Array.from({ length: 11 }, (_, i) => String(i + 1)), return: page }, 4, 'optin'],
    ];
    for (const [fields, code, param] of cases) {
      const response = await post(app, '/email', fields);
      expect(response.statusCode, JSON.stringify(fields)).toBeGreaterThanOrEqual(400);
      expect(response.json().error, JSON.stringify(fields)).toMatchObject({ code, param });
    }
    // A page that is not whitelisted: no CORS answer, nothing done.
    const foreignPage = await post(app, '/email', { email: uniqueEmail(), password: 'correct horse', return: page }, new CookieJar(), 'https://evil.example.net');
    expect(foreignPage.statusCode).toBe(403);
    expect(foreignPage.headers['access-control-allow-origin']).toBeUndefined();
    expect(await countMembers(app)).toBe(before);
    expect(await countSessions()).toBe(sessions);
  });

  it("does not reach another account's members or segments", async () => {
    const email = uniqueEmail();
    expect((await post(other, '/email', { email, password: 'correct horse', return: page })).statusCode).toBe(200);
    // The address is the other account's: here it is unknown.
    expect((await post(app, '/email', { type: 'login', email, password: 'correct horse', return: page })).json().error.code).toBe(13);
    const before = await countMembers(app);
    const foreign = await post(app, '/email', { email: uniqueEmail(), password: 'correct horse', optin: foreignList.ID, return: page });
    expect(foreign.json().error).toMatchObject({ code: 5, param: 'segmentId' });
    expect(await countMembers(app)).toBe(before);
    const written = await t.database.db
      .select({ id: optins.id })
      .from(optins)
      .where(eq(optins.segmentId, Number(foreignList.ID)));
    expect(written).toEqual([]);
  });
});

describe('POST /framework/session/:applicationId/token (trigger.login)', () => {
  it("starts a session from a member's own access token, and refuses any other", async () => {
    const email = uniqueEmail();
    const registered = await t.rest(app, 'POST', '/member/register', { service: 'email', email, password: 'correct horse' });
    const accessToken = registered.json[0].data.AccessToken as string;
    const jar = new CookieJar();
    const started = await post(app, '/token', { accesstoken: accessToken }, jar);
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json()).toMatchObject({ type: 'login', user: { data: { Email: email } } });
    const session = await t.request({ url: `/framework/session/${app.applicationId}`, headers: { origin, cookie: jar.header() } });
    expect(session.json().user.data.Email).toBe(email);

    const sessions = await countSessions();
    for (const accesstoken of ['', 'nonsense', `${'0'.repeat(32)}_1700000000`, 'x'.repeat(5000)]) {
      const refused = await post(app, '/token', { accesstoken });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error).toMatchObject({ code: 15, param: 'accesstoken' });
    }
    // Another account's member token is unknown here.
    const theirs = await t.rest(other, 'POST', '/member/register', { service: 'email', email: uniqueEmail(), password: 'correct horse' });
    expect((await post(app, '/token', { accesstoken: theirs.json[0].data.AccessToken })).json().error.code).toBe(15);
    expect((await post(app, '/token', { accesstoken: accessToken }, new CookieJar(), 'https://evil.example.net')).statusCode).toBe(403);
    expect(await countSessions()).toBe(sessions);
  });
});
