import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applications, signInTokens, widgetSessions } from '../../src/db/schema/index.js';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';
import { oauthCookieName } from '../../src/modules/widget/widget.cookies.js';
import { startTestGateway, testSecretKey, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, csrfTokenOf, submitForm, tokenOf, whitelist } from './support.js';

let t: TestGateway;
let app: Tenant;
let other: Tenant;
let basic: Tenant;
const site = 'https://fans.example.com/welcome?from=widget';
/** Every body this suite received, checked at the end for what must never leave the server. */
const bodies: string[] = [];

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
  basic = await t.tenant('basic');
  await whitelist(t, app, 'fans.example.com');
  await whitelist(t, other, 'fans.example.com');
});
afterAll(async () => {
  for (const body of bodies) {
    expect(body).not.toMatch(/\$argon2id\$/);
    expect(body).not.toContain('provider-client-secret');
  }
  await t.close();
});

const loginUrl = (tenant: Tenant, returnUrl = site) => `/framework/flow/${tenant.applicationId}/login?return=${encodeURIComponent(returnUrl)}`;
const registerUrl = (tenant: Tenant, returnUrl = site) => `/framework/flow/${tenant.applicationId}/register?return=${encodeURIComponent(returnUrl)}`;

let counter = 0;
const uniqueEmail = () => `fan${++counter}-${Date.now()}@example.com`;

async function registered(tenant = app, email = uniqueEmail(), jar = new CookieJar()) {
  const response = await submitForm(t, jar, registerUrl(tenant), { email, password: 'correct horse', firstName: 'Ada' });
  expect(response.statusCode, response.body).toBe(303);
  return { email, jar, token: tokenOf(response.headers.location) };
}

async function auth(tenant: Tenant, query: Record<string, string>, method: 'GET' | 'POST' = 'POST') {
  const response = await t.rest(tenant, method, '/auth', query);
  bodies.push(response.body);
  return response;
}

async function graphql(tenant: Tenant, query: string, variables?: Record<string, unknown>) {
  const response = await t.graphql(tenant.apiKey, query, variables);
  bodies.push(JSON.stringify(response.body));
  return response;
}

const configureGoogle = `mutation($input: SignInNetworkInput!) { configureSignInNetwork(input: $input) { id signInLinks { network name url } } }`;
const googleInput = {
  network: 'google',
  clientId: 'client-1',
  clientSecret: 'provider-client-secret',
  issuer: 'https://accounts.example.test',
  authorizationEndpoint: 'https://accounts.example.test/authorize',
  tokenEndpoint: 'https://accounts.example.test/token',
  userinfoEndpoint: 'https://accounts.example.test/userinfo',
};

describe('GET /v1.1/app/info', () => {
  it('lists the sign-in, registration and logout URLs, the widget script and one URL per network', async () => {
    const configured = await graphql(app, configureGoogle, { input: googleInput });
    expect(configured.body.errors).toBeUndefined();
    const response = await t.request({ url: `/v1.1/app/info?apiKey=${app.apiKey}` });
    bodies.push(response.body);
    const body = response.json();
    const flow = `http://localhost:80/framework/flow/${app.applicationId}`;
    expect(body).toMatchObject({
      ID: String(app.applicationId),
      Whitelist: ['fans.example.com'],
      LoginURL: `${flow}/login`,
      RegisterURL: `${flow}/register`,
      LogoutURL: `${flow}/logout`,
      Widget: { URL: `http://localhost:80/framework/js/${app.applicationId}` },
      Urls: [
        { Name: 'Email', URL: `${flow}/login` },
        { Name: 'Google', URL: `${flow}/oauth/google` },
      ],
    });
    // The secret is kept sealed, never in the clear.
    const [row] = await t.database.db.select({ settings: applications.settings }).from(applications).where(eq(applications.id, app.applicationId));
    expect(row.settings.signInNetworks?.google?.clientSecretSealed).toMatch(/^v1\./);
    expect(JSON.stringify(row.settings)).not.toContain('provider-client-secret');
  });

  it('uses PUBLIC_URL when it is set', async () => {
    const public_ = await startTestGateway({ PUBLIC_URL: 'https://id.example.com/' }, t.database);
    try {
      const body = (await public_.request({ url: `/v1.1/app/info?apiKey=${app.apiKey}` })).json();
      expect(body.Widget.URL).toBe(`https://id.example.com/framework/js/${app.applicationId}`);
    } finally {
      await public_.close();
    }
  });

  it('lets only advanced plans configure social sign-in, and refuses unknown networks', async () => {
    const refused = await graphql(basic, configureGoogle, { input: googleInput });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'PLAN_REQUIRED', aeCode: 9 });
    const unknown = await graphql(app, configureGoogle, { input: { ...googleInput, network: 'myspace' } });
    expect(unknown.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER' });
  });
});

describe('GET /framework/js/:applicationId', () => {
  it('serves the script to a whitelisted page, with a JavaScript type and short private caching', async () => {
    const response = await t.request({ url: `/framework/js/${app.applicationId}`, headers: { referer: 'https://fans.example.com/page' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe('private, max-age=300');
    expect(response.headers.vary).toContain('Referer');
    expect(response.body).toContain('AEJSReady');
    expect(response.body).toContain(`/framework/session/${app.applicationId}`);
    // Uncompressed: the whole AE surface (settings, events, triggers, markup, popups, on-page forms).
    expect(response.body.length).toBeLessThan(24_000);
  });

  it('refuses other pages with code 16, and unknown applications with 404', async () => {
    for (const headers of [{ origin: 'https://evil.example.net' }, { referer: 'https://evil.example.net/x' }, {}]) {
      const response = await t.request({ url: `/framework/js/${app.applicationId}`, headers });
      expect(response.statusCode).toBe(403);
      expect(response.json().error).toMatchObject({ code: 16, type: 'DOMAIN_NOT_WHITELISTED' });
    }
    expect((await t.request({ url: '/framework/js/99999999', headers: { referer: site } })).statusCode).toBe(404);
    expect((await t.request({ url: '/framework/js/abc', headers: { referer: site } })).statusCode).toBe(404);
  });
});

describe('hosted pages', () => {
  it('are accessible, mobile-ready HTML with a CSRF token and escaped values', async () => {
    const response = await t.request({ url: loginUrl(app) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(response.body).toContain('<label for="email">');
    expect(response.body).toContain('name="_csrf"');
    expect(response.body).toContain('Continue with Google');
    expect(response.body).not.toContain('<script');
    const echoed = await submitForm(t, new CookieJar(), loginUrl(app), { email: '"><script>alert(1)</script>', password: 'x' });
    expect(echoed.body).not.toContain('<script>alert(1)</script>');
    expect(echoed.body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('refuse a return URL that is given and not whitelisted (code 16 page), on every page and form of the flow', async () => {
    const flow = `/framework/flow/${app.applicationId}`;
    const offList = ['https://evil.example.net/', 'javascript:alert(1)', '//evil.example.net/', 'https://fans.example.com.evil.example.net/', 'not a url'];
    for (const returnUrl of offList) {
      for (const page of ['login', 'register', 'complete', 'oauth/google', 'forgot-password']) {
        const response = await t.request({ url: `${flow}/${page}?return=${encodeURIComponent(returnUrl)}` });
        expect(response.statusCode, `${page} ${returnUrl}`).toBe(403);
        expect(response.body).toContain('Error code 16');
      }
    }
    // A form posted with a valid CSRF token and a return off the whitelist: refused before the
    // credentials are even read, no session started.
    const { email } = await registered();
    const jar = new CookieJar();
    const page = await t.request({ url: `${flow}/login` });
    jar.absorb(page);
    const posted = await t.request({
      method: 'POST',
      url: `${flow}/login`,
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrfTokenOf(page.body), return: 'https://evil.example.net/', email, password: 'correct horse' }).toString(),
    });
    expect(posted.statusCode).toBe(403);
    expect(posted.body).toContain('Error code 16');
    expect(posted.headers.location).toBeUndefined();
    expect(posted.cookies.some((cookie) => cookie.name === `mq_session_${app.applicationId}`)).toBe(false);
  });

  it("open without a return URL (app/info's LoginURL as it is): the form, then a page saying the fan is signed in, no token, no redirect off the gateway", async () => {
    const info = (await t.rest(app, 'GET', '/app/info')).json;
    const bare = new URL(info.LoginURL);
    expect(bare.search).toBe('');
    const page = await t.request({ url: bare.pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<form method="post"');
    expect(page.body).toContain('name="_csrf"');
    expect(page.body).not.toContain('name="return"');
    // The links of the page (register, forgot password, each network) carry no return either.
    const links = [...page.body.matchAll(/href="([^"]+)"/g)].map((match) => new URL(match[1].replace(/&amp;/g, '&')));
    expect(links.map((link) => link.pathname)).toContain(`/framework/flow/${app.applicationId}/register`);
    expect(links.map((link) => link.pathname)).toContain(`/framework/flow/${app.applicationId}/forgot-password`);
    for (const link of links) expect(link.search, link.href).toBe('');

    const { email } = await registered();
    const tokensBefore = (await t.database.db.select().from(signInTokens)).length;
    const jar = new CookieJar();
    const signedIn = await submitForm(t, jar, bare.pathname, { email, password: 'correct horse' });
    expect(signedIn.statusCode).toBe(303);
    // The gateway's own page, not a guessed page of the application's sites: no token to carry off.
    expect(signedIn.headers.location).toBe(`http://localhost:80/framework/flow/${app.applicationId}/signed-in`);
    const landing = new URL(signedIn.headers.location as string);
    expect((await t.database.db.select().from(signInTokens)).length).toBe(tokensBefore);
    expect(jar.has(`mq_session_${app.applicationId}`)).toBe(true);
    const landed = await t.request({ url: landing.pathname, headers: { cookie: jar.header() } });
    expect(landed.statusCode).toBe(200);
    expect(landed.body).toContain('You are signed in');
    expect(landed.headers['cache-control']).toBe('no-store');
    // The application's sites see the session.
    const session = await t.request({ url: `/framework/session/${app.applicationId}`, headers: { cookie: jar.header(), origin: 'https://fans.example.com' } });
    expect(session.json().user.data.Email).toBe(email);

    // Signed in already, the bare page skips the form; signed out, the signed-in page sends to the form.
    const again = await t.request({ url: bare.pathname, headers: { cookie: jar.header() } });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(signedIn.headers.location);
    const stranger = await t.request({ url: landing.pathname });
    expect(stranger.statusCode).toBe(303);
    expect(stranger.headers.location).toBe(`http://localhost:80/framework/flow/${app.applicationId}/login`);

    // Social sign-in without a return URL: off to the network's own page, its sealed state holding no return.
    const social = await t.request({ url: `/framework/flow/${app.applicationId}/oauth/google` });
    expect(social.statusCode).toBe(302);
    expect(new URL(social.headers.location as string).origin).toBe('https://accounts.example.test');
    const state = social.cookies.find((cookie) => cookie.name === oauthCookieName)!;
    const saved = JSON.parse(createTokenCipher(testSecretKey).open(state.value));
    expect(saved.network).toBe('google');
    expect(saved.returnUrl).toBeUndefined();

    // Registration without a return URL ends the same way.
    const registerJar = new CookieJar();
    const registeredBare = await submitForm(t, registerJar, `/framework/flow/${app.applicationId}/register`, { email: uniqueEmail(), password: 'correct horse', firstName: 'Ada' });
    expect(registeredBare.statusCode).toBe(303);
    expect(registeredBare.headers.location).toBe(signedIn.headers.location);
    expect(registerJar.has(`mq_session_${app.applicationId}`)).toBe(true);
  });

  it('refuse a form posted without its CSRF token', async () => {
    const response = await t.request({
      method: 'POST',
      url: `/framework/flow/${app.applicationId}/login`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ email: 'a@example.com', password: 'whatever1', return: site }).toString(),
    });
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('This form has expired');
  });

  it('refuse an embedded registration form from a page that is not whitelisted', async () => {
    const response = await t.request({
      method: 'POST',
      url: `/framework/flow/${app.applicationId}/register/embedded`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example.net' },
      payload: new URLSearchParams({ email: uniqueEmail(), password: 'correct horse', return: site }).toString(),
    });
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('Error code 16');
  });

  it('answer a wrong password and an unknown address alike', async () => {
    const { email } = await registered();
    const wrong = await submitForm(t, new CookieJar(), loginUrl(app), { email, password: 'not the password' });
    const unknown = await submitForm(t, new CookieJar(), loginUrl(app), { email: uniqueEmail(), password: 'not the password' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(wrong.statusCode);
    const message = (body: string) => /role="alert"[^>]*>([^<]+)</.exec(body)?.[1];
    expect(message(wrong.body)).toBe('The email address or password is not right.');
    expect(message(unknown.body)).toBe(message(wrong.body));
  });

  it('sign in by email and return to the whitelisted page with a token; a live session skips the form', async () => {
    const { email } = await registered();
    const jar = new CookieJar();
    const response = await submitForm(t, jar, loginUrl(app), { email, password: 'correct horse' });
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string);
    expect(location.origin + location.pathname).toBe('https://fans.example.com/welcome');
    expect(location.searchParams.get('from')).toBe('widget');
    const session = response.cookies.find((cookie) => cookie.name === `mq_session_${app.applicationId}`)!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/framework' });
    const again = await t.request({ url: loginUrl(app), headers: { cookie: jar.header() } });
    expect(again.statusCode).toBe(303);
    expect(tokenOf(again.headers.location as string)).not.toBe(tokenOf(response.headers.location as string));
  });
});

describe('/v1.1/auth', () => {
  it('answers the lean view; details adds the services (no tokens), extended the Extended node, fields trims the record', async () => {
    const { email, token } = await registered();
    const response = await auth(app, { accesstoken: token });
    expect(response.status, response.body).toBe(200);
    const body = response.json;
    expect(Object.keys(body)).toEqual(['data', 'optins', 'jwt']);
    expect(body.data).toMatchObject({ ID: expect.any(Number), Email: email, FirstName: 'Ada', AccessToken: expect.stringMatching(/^[0-9a-f]{32}_\d+$/) });
    expect(body.data.Extended).toBeUndefined();
    expect(body.jwt).toEqual(expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/));

    const second = await registered();
    const detailed = (await auth(app, { AccessToken: second.token, details: '1', extended: '1' }, 'GET')).json;
    expect(detailed.services).toEqual([expect.objectContaining({ Service: 'email', UserID: second.email.toLowerCase(), Domains: ['fans.example.com'] })]);
    expect(detailed.services[0]).not.toHaveProperty('Token');
    expect(detailed.services[0]).not.toHaveProperty('TokenSecret');
    expect(detailed.data.Extended).toMatchObject({ email: second.email, givenName: 'Ada' });

    const third = await registered();
    const trimmed = (await auth(app, { accessToken: third.token, fields: 'id,email,extended.givenName' })).json;
    expect(trimmed.data).toEqual({ ID: expect.any(Number), Email: third.email, Extended: { givenName: 'Ada' } });
  });

  it("refuses a used, forged, expired or other application's token with code 15, alike", async () => {
    const { token } = await registered();
    const { token: expiring } = await registered();
    await t.database.db
      .update(signInTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(signInTokens.tokenHash, (await import('../../src/modules/identity/access-tokens.js')).digestToken(expiring)));
    const { token: mine } = await registered();

    expect((await auth(app, { accessToken: token })).status).toBe(200);
    const refusals = [
      await auth(app, { accessToken: token }),
      await auth(app, { accessToken: 'forged-token-of-the-right-length-000000000000' }),
      await auth(app, { accessToken: expiring }),
      await auth(other, { accessToken: mine }),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ error: { code: 15, type: 'INVALID_TOKEN', message: 'The access token is unknown, expired or already used.', param: 'accessToken' } });
    }
    // Another application's attempt did not spend it.
    expect((await auth(app, { accessToken: mine })).status).toBe(200);
    expect((await auth(app, {})).json.error).toMatchObject({ code: 3, param: 'accessToken' });
  });

  it('has the GraphQL twin exchangeSignInToken', async () => {
    const { email, token } = await registered();
    const query = 'mutation($t: String!) { exchangeSignInToken(accessToken: $t) { email firstName } }';
    expect((await graphql(app, query, { t: token })).body.data.exchangeSignInToken).toEqual({ email, firstName: 'Ada' });
    expect((await graphql(app, query, { t: token })).body.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', aeCode: 15 });
  });
});

describe('required fields and the session', () => {
  it('asks a member registered before the application required fields for them after signing in, then returns with a token', async () => {
    const email = uniqueEmail();
    expect((await submitForm(t, new CookieJar(), registerUrl(other), { email, password: 'correct horse', firstName: 'Grace' })).statusCode).toBe(303);
    const fields = await graphql(other, 'mutation { setRequiredFields(fields: [FIRST_NAME, COUNTRY]) { requiredFields } }');
    expect(fields.body.data.setRequiredFields.requiredFields).toEqual(['FIRST_NAME', 'COUNTRY']);
    const jar = new CookieJar();
    const signedIn = await submitForm(t, jar, loginUrl(other), { email, password: 'correct horse' });
    expect(signedIn.statusCode).toBe(303);
    const completeUrl = new URL(signedIn.headers.location as string);
    expect(completeUrl.pathname).toBe(`/framework/flow/${other.applicationId}/complete`);

    const bad = await submitForm(t, jar, completeUrl.pathname + completeUrl.search, { country: 'Britain' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('role="alert"');
    const done = await submitForm(t, jar, completeUrl.pathname + completeUrl.search, { country: 'gb' });
    expect(done.statusCode).toBe(303);
    const member = (await auth(other, { accessToken: tokenOf(done.headers.location) })).json;
    expect(member.data).toMatchObject({ FirstName: 'Grace', Country: 'GB' });
    // A field outside the list is refused before anything runs: the list is the enum SignInProfileField.
    expect((await graphql(other, 'mutation { setRequiredFields(fields: [SHOE_SIZE]) { id } }')).body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', aeCode: 4 });
  });

  it('asks for missing required fields on a sign-in without a return URL too, then shows the signed-in page', async () => {
    const email = uniqueEmail();
    const tenant = await t.tenant('advanced');
    await whitelist(t, tenant, 'fans.example.com');
    expect((await submitForm(t, new CookieJar(), registerUrl(tenant), { email, password: 'correct horse', firstName: 'Grace' })).statusCode).toBe(303);
    expect((await graphql(tenant, 'mutation { setRequiredFields(fields: [COUNTRY]) { requiredFields } }')).body.errors).toBeUndefined();
    const jar = new CookieJar();
    const signedIn = await submitForm(t, jar, `/framework/flow/${tenant.applicationId}/login`, { email, password: 'correct horse' });
    expect(signedIn.statusCode).toBe(303);
    const completeUrl = new URL(signedIn.headers.location as string);
    expect(completeUrl.pathname).toBe(`/framework/flow/${tenant.applicationId}/complete`);
    expect(completeUrl.search).toBe('');
    const done = await submitForm(t, jar, completeUrl.pathname, { country: 'gb' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`http://localhost:80/framework/flow/${tenant.applicationId}/signed-in`);
  });

  it('tells whitelisted pages (credentialed CORS) who is signed in, and logs out', async () => {
    const { jar, email } = await registered();
    const sessionUrl = `/framework/session/${app.applicationId}`;
    const origin = 'https://fans.example.com';
    const signedIn = await t.request({ url: sessionUrl, headers: { cookie: jar.header(), origin } });
    bodies.push(signedIn.body);
    expect(signedIn.headers['access-control-allow-origin']).toBe(origin);
    expect(signedIn.headers['access-control-allow-credentials']).toBe('true');
    // The REST envelope's shape, without the member's access token (docs/widget.md, "The user object").
    expect(signedIn.json()).toMatchObject({ user: { data: { Email: email, FirstName: 'Ada' }, services: [{ Service: 'email', UserID: email }], optins: [] }, beganWith: 'registration' });
    expect(JSON.stringify(signedIn.json())).not.toMatch(/AccessToken|"Token"|jwt/);

    const foreign = await t.request({ url: sessionUrl, headers: { cookie: jar.header(), origin: 'https://evil.example.net' } });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();

    const sessionsBefore = await t.database.db.select().from(widgetSessions);
    const out = await t.request({ method: 'POST', url: `${sessionUrl}/logout`, headers: { cookie: jar.header(), origin } });
    expect(out.json()).toEqual({ user: null });
    jar.absorb(out);
    expect(jar.has(`mq_session_${app.applicationId}`)).toBe(false);
    expect((await t.database.db.select().from(widgetSessions)).length).toBe(sessionsBefore.length - 1);
    expect((await t.request({ url: sessionUrl, headers: { cookie: jar.header(), origin } })).json()).toEqual({ user: null });
  });
});

describe('what AE Connect for WordPress finds its user by', () => {
  // The plugin's ae_login_flow looks the WordPress user up by the meta ae_connect_ID = data.ID
  // (exactly one user), then by ae_connect_<Service>_service = services[].ID, and creates one named
  // data.Username; jQuery posts every value as text. Signing in again works only while these stay
  // the same from registration on, and agree with what /v1.1/auth gives the site's server.
  it('gives the same data.ID, services[].ID and Username in aeJS.user after registration and after signing in again', async () => {
    const origin = 'https://fans.example.com';
    const sessionUrl = `/framework/session/${app.applicationId}`;
    const email = `Wp.Fan+${++counter}@Example.com`;
    const { jar } = await registered(app, email);
    const registration = (await t.request({ url: sessionUrl, headers: { cookie: jar.header(), origin } })).json();
    expect(registration.beganWith).toBe('registration');

    const again = new CookieJar();
    const signedIn = await submitForm(t, again, loginUrl(app), { email, password: 'correct horse' });
    expect(signedIn.statusCode).toBe(303);
    const login = (await t.request({ url: sessionUrl, headers: { cookie: again.header(), origin } })).json();
    expect(login.beganWith).toBe('login');
    const server = (await auth(app, { accessToken: tokenOf(signedIn.headers.location), details: '1' })).json;

    for (const { user } of [registration, login]) {
      expect(user.data.ID).toEqual(expect.any(Number));
      expect(user.data.ID).toBe(server.data.ID);
      expect(user.data.Username).toMatch(/^wp\.fan\d+(-\d+)?$/);
      expect(user.data.Username).toBe(server.data.Username);
      expect(user.services).toEqual([expect.objectContaining({ Service: 'email', ID: expect.any(String) })]);
      expect(user.services[0].ID).toBe(String(server.services[0].ID));
    }
    expect(login.user.data).toEqual(registration.user.data);
    expect(login.user.services).toEqual(registration.user.services);
  });
});
