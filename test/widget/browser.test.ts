import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { whitelist } from './support.js';

/**
 * End to end, in Debian's Chromium: a fan on an application's page (a tiny local site) registers,
 * signs in by email and through a local OpenID Connect provider, and logs out; the site's server
 * exchanges each token at /v1.1/auth. Host names under .localhost all reach this machine
 * (`--host-resolver-rules` makes sure); the gateway and the whitelisted page share the site
 * fans.localhost, as the docs recommend, so the Lax session cookie reaches the widget's calls.
 */
const chromiumPath = '/usr/bin/chromium';
const screenshots = path.resolve('test-results/screenshots');

let t: TestGateway;
let tenant: Tenant;
let browser: Browser;
let provider: OAuth2Server;
let site: http.Server;
let gatewayBase: string;
let pageUrl: string;
let evilUrl: string;

function sitePage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fans</title></head><body>
<div data-ae-show="signed-out">
  <a href="#" data-ae-register-window>Register</a>
  <a href="#" data-ae-login-window>Sign in</a>
  <a href="#" data-ae-login-link="google">Sign in with Google</a>
  <form data-ae-register-form="email"><input name="email" aria-label="Email"><input name="password" type="password" aria-label="Password"><button>Join</button></form>
</div>
<div data-ae-show="signed-in" hidden>
  Hello <span id="name" data-ae-user-firstname></span> (<span id="email" data-ae-user-email></span>)
  <a href="#" data-ae-logout-link>Log out</a>
</div>
<ol id="events"></ol>
<script>
  function note(text) { var item = document.createElement('li'); item.textContent = text; document.getElementById('events').appendChild(item); }
  window.AEJSReady = function (aeJS) {
    window.readyCalled = true;
    aeJS.events.onLogin.addHandler(function (user, type) { note(type + ' ' + user.data.Email); });
    aeJS.events.onUser.addHandler(function (user, state) { note(state + ' ' + user.data.Email); });
    aeJS.events.onLogout.addHandler(function () { note('logout'); });
  };
</script>
<script src="${gatewayBase}/framework/js/${tenant.applicationId}"></script>
</body></html>`;
}

async function exchange(page: Page, query: Record<string, string> = {}) {
  const token = new URL(page.url()).searchParams.get('accesstoken');
  expect(token).toBeTruthy();
  const response = await t.request({ method: 'POST', url: `/v1.1/auth?${new URLSearchParams({ apiKey: tenant.apiKey, accesstoken: token!, ...query })}` });
  return { token: token!, response };
}

async function snap(page: Page, name: string) {
  for (const [size, viewport] of [
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 800 }],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: path.join(screenshots, `${name}-${size}.png`), fullPage: true });
  }
}

async function events(page: Page) {
  return page.locator('#events li').allTextContents();
}

describe.skipIf(!fs.existsSync(chromiumPath))('the sign-in widget in a browser', () => {
  beforeAll(async () => {
    fs.mkdirSync(screenshots, { recursive: true });
    provider = new OAuth2Server();
    await provider.issuer.keys.generate('RS256');
    await provider.start(0, '127.0.0.1');
    provider.service.on(Events.BeforeUserinfo, (userinfo) => {
      userinfo.body = { sub: 'johndoe', email: 'john.doe@example.com', email_verified: true, given_name: 'John', family_name: 'Doe' };
    });

    t = await startTestGateway();
    await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    gatewayBase = `http://id.fans.localhost:${(t.gateway.app.server.address() as AddressInfo).port}`;
    tenant = await t.tenant('advanced');
    await whitelist(t, tenant, 'www.fans.localhost');

    site = http.createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(sitePage());
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const sitePort = (site.address() as AddressInfo).port;
    pageUrl = `http://www.fans.localhost:${sitePort}/club`;
    evilUrl = `http://evil.localhost:${sitePort}/club`;

    const configured = await t.graphql(tenant.apiKey, 'mutation($input: SignInNetworkInput!) { configureSignInNetwork(input: $input) { id } }', {
      input: { network: 'google', clientId: 'fans-club', clientSecret: 'provider-secret', issuer: provider.issuer.url },
    });
    expect(configured.body.errors).toBeUndefined();

    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--host-resolver-rules=MAP *.localhost 127.0.0.1'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await provider?.stop();
    await new Promise((resolve) => site?.close(resolve));
  });

  it('registers, signs in by email and with a network, hands tokens to the return URL, and logs out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(pageUrl);
    await page.waitForFunction('window.readyCalled === true');
    await expect.poll(() => page.locator('[data-ae-show="signed-out"]').isVisible()).toBe(true);

    // Register on the hosted page.
    await page.getByRole('link', { name: 'Register' }).click();
    await page.waitForURL(/\/framework\/flow\/\d+\/register/);
    await snap(page, 'register');
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Email address').fill('ada@example.com');
    await page.getByLabel(/^Password/).fill('correct horse');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/accesstoken=/);
    expect(page.url().startsWith(pageUrl)).toBe(true);
    await expect.poll(() => page.locator('#name').textContent()).toBe('Ada');
    expect(await events(page)).toEqual(['registration ada@example.com', 'init ada@example.com']);
    const registered = await exchange(page);
    expect(registered.response.json().data).toMatchObject({ Email: 'ada@example.com', FirstName: 'Ada' });
    const replay = await t.request({ url: `/v1.1/auth?apiKey=${tenant.apiKey}&accessToken=${registered.token}` });
    expect(replay.json().error.code).toBe(15);

    // Log out through the widget.
    await page.getByRole('link', { name: 'Log out' }).click();
    await expect.poll(() => page.locator('[data-ae-show="signed-out"]').isVisible()).toBe(true);
    expect((await events(page)).at(-1)).toBe('logout');

    // Sign in by email; a wrong password first.
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/framework\/flow\/\d+\/login/);
    await snap(page, 'login');
    await page.getByLabel('Email address').fill('ada@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The email address or password is not right.');
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('form-error');
    await snap(page, 'login-error');
    await page.getByLabel('Password').fill('correct horse');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/accesstoken=/);
    expect((await exchange(page)).response.json().data.Email).toBe('ada@example.com');
    await expect.poll(() => page.locator('#email').textContent()).toBe('ada@example.com');
    await page.getByRole('link', { name: 'Log out' }).click();
    await expect.poll(() => page.locator('[data-ae-show="signed-out"]').isVisible()).toBe(true);

    // Sign in with the network, through the local OpenID Connect provider.
    await page.getByRole('link', { name: 'Sign in with Google' }).click();
    await page.waitForURL(/accesstoken=/);
    const social = (await exchange(page, { details: '1' })).response.json();
    expect(social.data).toMatchObject({ Email: 'john.doe@example.com', FirstName: 'John', Surname: 'Doe' });
    expect(social.services).toEqual([expect.objectContaining({ Service: 'google', UserID: 'johndoe' })]);
    await expect.poll(() => page.locator('#name').textContent()).toBe('John');
    await page.getByRole('link', { name: 'Log out' }).click();
    await expect.poll(() => page.locator('[data-ae-show="signed-out"]').isVisible()).toBe(true);

    // The page's own registration form: the page stays.
    const before = page.url();
    await page.getByLabel('Email', { exact: true }).fill('grace@example.com');
    await page.getByLabel('Password', { exact: true }).fill('correct horse');
    await page.getByRole('button', { name: 'Join' }).click();
    await expect.poll(() => page.locator('#email').textContent(), { timeout: 60_000 }).toBe('grace@example.com');
    expect((await events(page)).slice(-2)).toEqual(['registration grace@example.com', 'update grace@example.com']);
    expect(page.url()).toBe(before);
    await context.close();
  });

  it('registers with a country picked from the list when the application requires one', async () => {
    const requiring = await t.tenant('advanced');
    await whitelist(t, requiring, 'www.fans.localhost');
    const set = await t.graphql(requiring.apiKey, 'mutation { setRequiredFields(fields: [COUNTRY]) { id } }');
    expect(set.body.errors).toBeUndefined();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gatewayBase}/framework/flow/${requiring.applicationId}/register?return=${encodeURIComponent(pageUrl)}`);

    // Left on "Choose a country": refused on the form itself, the list marked.
    await page.getByLabel('Email address').fill('linus@example.com');
    await page.getByLabel(/^Password/).fill('correct horse');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Choose a country.');
    await expect.poll(() => page.getByLabel('Country').getAttribute('aria-invalid')).toBe('true');
    await snap(page, 'register-country-error');

    await page.getByLabel('First name').fill('Linus');
    await page.getByLabel(/^Password/).fill('correct horse');
    await page.getByLabel('Country').selectOption({ label: 'New Zealand' });
    await snap(page, 'register-country');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/accesstoken=/);
    expect(page.url().startsWith(pageUrl)).toBe(true);
    const token = new URL(page.url()).searchParams.get('accesstoken')!;
    const member = await t.request({ method: 'POST', url: `/v1.1/auth?${new URLSearchParams({ apiKey: requiring.apiKey, accessToken: token })}` });
    expect(member.json().data).toMatchObject({ Email: 'linus@example.com', FirstName: 'Linus', Country: 'NZ' });
    await context.close();
  });

  it('refuses a return URL and a page that are not whitelisted', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const refused = await page.goto(`${gatewayBase}/framework/flow/${tenant.applicationId}/login?return=${encodeURIComponent(evilUrl)}`);
    expect(refused?.status()).toBe(403);
    await expect.poll(() => page.getByRole('heading').textContent()).toBe('This site cannot use this sign-in');
    expect(await page.textContent('body')).toContain('Error code 16');

    // The refused script (403, JSON) is blocked by the browser: the widget never starts.
    const script = page.waitForRequest((request) => request.url().includes('/framework/js/'));
    await page.goto(evilUrl, { waitUntil: 'networkidle' });
    await script;
    expect(await page.evaluate('typeof window.aeJS')).toBe('undefined');
    await context.close();
  });
});
