import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetSessions } from '../../src/db/schema/index.js';
import { insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, submitForm, whitelist } from '../widget/support.js';

/**
 * What the gateway writes into URLs and headers on a caller's behalf: paging links without the
 * caller's credentials, a logout return URL that cannot inject a header.
 */
let t: TestGateway;
let app: Tenant;
const site = 'https://fans.example.com/welcome';

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  await whitelist(t, app, 'fans.example.com');
});
afterAll(() => t.close());

describe('paging links', () => {
  it('leave out the apiKey (any case) and accessToken given in the query string', async () => {
    await insertMembers(t, app, [{}, {}, {}]);
    for (const name of ['apiKey', 'APIKEY', 'apikey']) {
      const response = await t.request({ url: `/v1.1/members/all?${name}=${app.apiKey}&accessToken=secret-token&limit=1&fields=Email` });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      const next = body.paging.next as string;
      expect(next).not.toContain(app.apiKey);
      expect(next.toLowerCase()).not.toContain('apikey');
      expect(next.toLowerCase()).not.toContain('accesstoken');
      expect(new URL(next).searchParams.get('fields')).toBe('Email');
      // The caller sends its key again with the link.
      const following = await t.request({ url: new URL(next).pathname + new URL(next).search, headers: { 'x-api-key': app.apiKey } });
      expect(following.statusCode).toBe(200);
      expect(following.json().paging.previous).not.toContain(app.apiKey);
    }
  });
});

describe('the hosted logout', () => {
  const logoutUrl = (returnUrl: string) => `/framework/flow/${app.applicationId}/logout?return=${returnUrl}`;

  it('answers code 4 for a return URL with CR/LF, and leaves the session as it was', async () => {
    const jar = new CookieJar();
    const registered = await submitForm(t, jar, `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent(site)}`, {
      email: `logout-${Date.now()}@example.com`,
      password: 'correct horse',
    });
    expect(registered.statusCode).toBe(303);
    const sessions = (await t.database.db.select().from(widgetSessions)).length;
    for (const injected of ['https://fans.example.com/%0d%0aSet-Cookie:%20stolen=1', 'https://fans.example.com/%0aX-Injected:%201', 'https://fans.example.com/%0d']) {
      const response = await t.request({ url: logoutUrl(injected), headers: { cookie: jar.header() } });
      expect(response.statusCode, injected).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('Error code 4');
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.headers['x-injected']).toBeUndefined();
    }
    expect((await t.database.db.select().from(widgetSessions)).length).toBe(sessions);
    const signedIn = await t.request({ url: `/framework/session/${app.applicationId}`, headers: { cookie: jar.header(), origin: 'https://fans.example.com' } });
    expect(signedIn.json().user).not.toBeNull();

    // A clean whitelisted return still signs out and goes back.
    const out = await t.request({ url: logoutUrl(encodeURIComponent(site)), headers: { cookie: jar.header() } });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe(site);
  });
});
