import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { members, widgetSessions } from '../../src/db/schema/index.js';
import { mergeApplicationSettings } from '../../src/modules/widget/widget.queries.js';
import { insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, csrfTokenOf, submitForm, whitelist } from '../widget/support.js';

/**
 * What the gateway writes into URLs and headers on a caller's behalf: paging links without the
 * caller's credentials, a logout return URL that cannot inject a header, and social sign-in that
 * sends fans from the gateway's shared origin only to the network's own sign-in page.
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

    // A clean whitelisted return still signs out (confirmed on the page) and goes back.
    const out = await submitForm(t, jar, logoutUrl(encodeURIComponent(site)), {});
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe(site);
  });

  /**
   * The LogoutURL is a plain link, so any page (an <img>, a cross-site link) could end a fan's
   * session with a GET. A GET now only asks: a page with a "Sign out" button whose POST carries the
   * CSRF token; the session ends on that POST alone.
   */
  it('a GET ends nothing: it asks, and only the form POST with its CSRF token signs out', async () => {
    const jar = new CookieJar();
    expect(
      (await submitForm(t, jar, `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent(site)}`, { email: `logout-get-${Date.now()}@example.com`, password: 'correct horse' }))
        .statusCode,
    ).toBe(303);
    const signedIn = async () => (await t.request({ url: `/framework/session/${app.applicationId}`, headers: { cookie: jar.header(), origin: 'https://fans.example.com' } })).json().user;
    const sessions = (await t.database.db.select().from(widgetSessions)).length;

    const asked = await t.request({ url: logoutUrl(encodeURIComponent(site)), headers: { cookie: jar.header(), 'sec-fetch-site': 'cross-site' } });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Sign out of');
    expect(asked.body).toMatch(/<form method="post" action="[^"]*\/logout"/);
    expect(asked.body).toContain(`href="${site}"`); // the way back, signed in
    expect(asked.headers['set-cookie'] ?? '').not.toContain('mq_session_');
    expect((await t.database.db.select().from(widgetSessions)).length).toBe(sessions);
    expect(await signedIn()).not.toBeNull();

    // A POST without the form's token (a cross-site form) is refused, and changes nothing.
    const forged = await t.request({
      method: 'POST',
      url: `/framework/flow/${app.applicationId}/logout`,
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `return=${encodeURIComponent(site)}`,
    });
    expect(forged.statusCode).toBe(403);
    expect(await signedIn()).not.toBeNull();

    const out = await submitForm(t, jar, logoutUrl(encodeURIComponent(site)), {});
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe(site);
    expect(await signedIn()).toBeNull();
  });

  it('signed out already, a GET goes straight back to the return page (nothing to confirm)', async () => {
    const out = await t.request({ url: logoutUrl(encodeURIComponent(site)) });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe(site);
  });
});

describe("social sign-in's authorization page", () => {
  const configure = 'mutation($input: SignInNetworkInput!) { configureSignInNetwork(input: $input) { id signInLinks { network } } }';
  const provider = 'https://accounts.example.test';
  const input = (overrides: Record<string, string>) => ({
    network: 'google',
    clientId: 'client-1',
    clientSecret: 'provider-client-secret',
    issuer: provider,
    authorizationEndpoint: `${provider}/authorize`,
    tokenEndpoint: `${provider}/token`,
    userinfoEndpoint: `${provider}/userinfo`,
    ...overrides,
  });
  const links = async (tenant: Tenant, gateway = t) =>
    (await gateway.graphql(tenant.apiKey, '{ application { signInLinks { network } } }')).body.data.application.signInLinks.map((link: { network: string }) => link.network);

  it("refuses, when saved, an authorization endpoint off the issuer's origin (code 4), and saves nothing", async () => {
    const tenant = await t.tenant('advanced');
    for (const authorizationEndpoint of [
      'https://evil.example.net/authorize',
      'https://accounts.example.test@evil.example.net/authorize',
      'https://accounts.example.test:8443/authorize',
      'http://accounts.example.test/authorize',
    ]) {
      const { status, body } = await t.graphql(tenant.apiKey, configure, { input: input({ authorizationEndpoint }) });
      expect(status, authorizationEndpoint).toBe(200); // GraphQL over HTTP: the refusal is in errors
      expect(body.errors[0].extensions, authorizationEndpoint).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param: 'authorizationEndpoint' });
    }
    expect(await links(tenant)).toEqual(['email']);
    // The provider's own page is accepted.
    expect((await t.graphql(tenant.apiKey, configure, { input: input({}) })).body.errors).toBeUndefined();
    expect(await links(tenant)).toEqual(['email', 'google']);
  });

  it("refuses an authorization endpoint off the issuer's origin that the discovery document names", async () => {
    const provider = http.createServer((request, response) => {
      const issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
      if (request.url !== '/.well-known/openid-configuration') return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer,
          authorization_endpoint: 'http://evil.localhost:9/authorize',
          token_endpoint: `${issuer}/token`,
          userinfo_endpoint: `${issuer}/userinfo`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
        }),
      );
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    try {
      const tenant = await t.tenant('advanced');
      const issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
      const { status, body } = await t.graphql(tenant.apiKey, configure, { input: { network: 'google', clientId: 'client-1', clientSecret: 'provider-client-secret', issuer } });
      expect(status).toBe(200); // GraphQL over HTTP: the refusal is in errors
      expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param: 'authorizationEndpoint' });
      expect(await links(tenant)).toEqual(['email']);
    } finally {
      await new Promise((resolve) => provider.close(resolve));
    }
  });

  it('refuses at use settings saved before the rule: the fan sees code 4, and is sent nowhere', async () => {
    const tenant = await t.tenant('advanced');
    await whitelist(t, tenant, 'fans.example.com');
    expect((await t.graphql(tenant.apiKey, configure, { input: input({}) })).body.errors).toBeUndefined();
    const [saved] = await t.database.db.query.applications.findMany({ where: (row, { eq }) => eq(row.id, tenant.applicationId) });
    const google = { ...saved.settings.signInNetworks!.google, authorizationEndpoint: 'https://evil.example.net/authorize' };
    await mergeApplicationSettings(t.database.db, tenant.accountId, tenant.applicationId, { signInNetworks: { google } });
    const response = await t.request({ url: `/framework/flow/${tenant.applicationId}/oauth/google?return=${encodeURIComponent(site)}` });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('Error code 4');
    expect(response.body).not.toContain('evil.example.net');
  });

  it("in production, refuses an issuer that is not the network's own before calling it", async () => {
    const production = await startTestGateway({ NODE_ENV: 'production' }, t.database);
    try {
      const tenant = await production.tenant('advanced');
      const foreign = await production.graphql(tenant.apiKey, configure, { input: input({}) });
      expect(foreign.status).toBe(200); // GraphQL over HTTP: the refusal is in errors
      expect(foreign.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param: 'issuer' });
      expect(foreign.body.errors[0].message).toContain('https://accounts.google.com');
      // Google's own issuer, with its endpoints given (no discovery call), is accepted.
      const google = 'https://accounts.google.com';
      const own = await production.graphql(tenant.apiKey, configure, {
        input: input({
          issuer: google,
          authorizationEndpoint: `${google}/o/oauth2/v2/auth`,
          tokenEndpoint: 'https://oauth2.googleapis.com/token',
          userinfoEndpoint: 'https://openidconnect.googleapis.com/v1/userinfo',
        }),
      });
      expect(own.body.errors).toBeUndefined();
      expect(await links(tenant, production)).toEqual(['email', 'google']);
    } finally {
      await production.gateway.close();
    }
  });
});

describe('the host of hosted pages', () => {
  const pages = (tenant: Tenant) => ({
    login: `/framework/flow/${tenant.applicationId}/login?return=${encodeURIComponent(site)}`,
    script: `/framework/js/${tenant.applicationId}`,
  });

  async function withProduction(env: Record<string, string>, run: (gateway: TestGateway) => Promise<void>) {
    const gateway = await startTestGateway({ NODE_ENV: 'production', ...env }, t.database);
    try {
      await run(gateway);
    } finally {
      await gateway.gateway.close();
    }
  }

  it('in production without PUBLIC_URL, refuses a host ALLOWED_HOSTS does not list, with code 4', async () => {
    await withProduction({}, async (production) => {
      const login = await production.request({ url: pages(app).login, headers: { host: 'evil.example.net' } });
      expect(login.statusCode).toBe(400);
      expect(login.body).toContain('Error code 4');
      expect(login.body).not.toContain('evil.example.net');
      const script = await production.request({ url: pages(app).script, headers: { host: 'evil.example.net', referer: site } });
      expect(script.statusCode).toBe(400);
      expect(script.json().error).toMatchObject({ code: 4, type: 'INVALID_PARAMETER', param: 'host' });
      // The API still answers; its URLs name no host rather than the one sent.
      const info = await production.request({ url: '/v1.1/app/info', headers: { host: 'evil.example.net', 'x-api-key': app.apiKey } });
      expect(info.statusCode).toBe(200);
      expect(info.body).not.toContain('evil.example.net');
    });
    await withProduction({ ALLOWED_HOSTS: 'id.fans.example.com, *.gateway.example.org' }, async (production) => {
      for (const host of ['evil.example.net', 'id.fans.example.com.evil.example.net', 'gateway.example.org', 'id.fans.example.com@evil.example.net']) {
        expect((await production.request({ url: pages(app).login, headers: { host } })).statusCode, host).toBe(400);
      }
      for (const host of ['id.fans.example.com', 'ID.Fans.Example.com:8443', 'eu.gateway.example.org']) {
        const login = await production.request({ url: pages(app).login, headers: { host } });
        expect(login.statusCode, host).toBe(200);
        expect(login.body).toContain(`action="http://${host.toLowerCase()}/framework/flow/${app.applicationId}/login"`);
      }
    });
  });

  it('with PUBLIC_URL, every page names PUBLIC_URL whatever the Host header says', async () => {
    await withProduction({ PUBLIC_URL: 'https://id.example.com' }, async (production) => {
      const login = await production.request({ url: pages(app).login, headers: { host: 'evil.example.net' } });
      expect(login.statusCode).toBe(200);
      expect(login.body).toContain(`action="https://id.example.com/framework/flow/${app.applicationId}/login"`);
      expect(login.body).not.toContain('evil.example.net');
    });
  });

  it('outside production without either setting, any host names the pages (npm start in development)', async () => {
    const login = await t.request({ url: pages(app).login, headers: { host: 'dev.localhost:4000' } });
    expect(login.statusCode).toBe(200);
    expect(login.body).toContain(`action="http://dev.localhost:4000/framework/flow/${app.applicationId}/login"`);
  });
});

/**
 * Credentialed CORS on /framework/session/* answers a page with the member's session: a whitelist
 * entry is a host, and it used to grant any scheme and port of it, so a page on
 * http://fans.example.com:8080 (another service on the host, or anyone on the path of a plain-HTTP
 * request) read the session as the https site does. In production only https on the default port
 * is the whitelisted site; elsewhere (development pages on http://localhost:5173) any scheme and port.
 */
describe('credentialed CORS for a whitelisted host', () => {
  const session = (tenant: Tenant) => `/framework/session/${tenant.applicationId}`;

  it.each(['http://fans.example.com', 'http://fans.example.com:8080', 'https://fans.example.com:8443'])(
    'in production, %s is refused with code 16 and no CORS grant, as the session and the logout',
    async (origin) => {
      const production = await startTestGateway({ NODE_ENV: 'production', PUBLIC_URL: 'https://gateway.example.com' }, t.database);
      try {
        for (const [method, url] of [
          ['GET', session(app)],
          ['POST', `${session(app)}/logout`],
        ] as const) {
          const refused = await production.request({ method, url, headers: { origin } });
          expect(refused.statusCode).toBe(403);
          expect(refused.json()).toEqual({ error: { code: 16, type: 'DOMAIN_NOT_WHITELISTED', message: expect.any(String), param: 'origin' } });
          expect(refused.headers['access-control-allow-origin']).toBeUndefined();
          expect(refused.headers['access-control-allow-credentials']).toBeUndefined();
        }
        const site = await production.request({ url: session(app), headers: { origin: 'https://fans.example.com' } });
        expect(site.statusCode).toBe(200);
        expect(site.headers['access-control-allow-origin']).toBe('https://fans.example.com');
      } finally {
        await production.gateway.close();
      }
    },
  );

  it('outside production, a development page on http and another port is the host too', async () => {
    const page = await t.request({ url: session(app), headers: { origin: 'http://fans.example.com:8080' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['access-control-allow-origin']).toBe('http://fans.example.com:8080');
    expect((await t.request({ url: session(app), headers: { origin: 'ftp://fans.example.com' } })).statusCode).toBe(403);
  });
});

/**
 * An application that whitelists no domain has no site for its hosted pages: opened bare (no
 * return URL, so no whitelist check ran) its register and sign-in pages created and signed in
 * members for it, for anyone who found its id. They are refused like an unlisted return page: the
 * 403 page with code 16, and nothing is written. The demo application whitelists this machine
 * outside production (README), so its bare pages open there.
 */
describe('the bare hosted pages of an application without a whitelist', () => {
  it('refuses the register and sign-in pages and forms with the code 16 page; nothing is written', async () => {
    const bare = await t.tenant('advanced');
    const pagesOf = (tenant: Tenant) => [`/framework/flow/${tenant.applicationId}/register`, `/framework/flow/${tenant.applicationId}/login`];
    for (const url of pagesOf(bare)) {
      const page = await t.request({ url });
      expect(page.statusCode, url).toBe(403);
      expect(page.body).toContain('Error code 16');
      expect(page.body).not.toContain('<form');
    }
    // A form posted with a valid CSRF token (taken from a whitelisted application's page) changes nothing either.
    const jar = new CookieJar();
    const form = await t.request({ url: pagesOf(app)[0] });
    jar.absorb(form);
    for (const url of pagesOf(bare)) {
      const posted = await t.request({
        method: 'POST',
        url,
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrfTokenOf(form.body), email: `no-site-${Date.now()}@example.com`, password: 'correct horse', firstName: 'Ada' }).toString(),
      });
      expect(posted.statusCode, url).toBe(403);
      expect(posted.body).toContain('Error code 16');
      expect(posted.headers['set-cookie'] ?? '').not.toContain('mq_session_');
    }
    expect(await t.database.db.select().from(members).where(eq(members.accountId, bare.accountId))).toEqual([]);

    // Once it whitelists its site, the bare pages open.
    await whitelist(t, bare, 'fans.example.com');
    expect((await t.request({ url: pagesOf(bare)[0] })).statusCode).toBe(200);
  });
});
