import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { whitelist } from './support.js';

/**
 * `aeJS` as AE's own clients use it (the AE Connect WordPress plugin's AEJSReady adds handlers to
 * every event at once, reads `aeJS.user.data`, `services`, `flow.return`, and calls the triggers),
 * on a page of the site's, in Debian's Chromium. Each event, trigger and flow step the framework
 * documents is exercised; the page records what its handlers received.
 */
const chromiumPath = '/usr/bin/chromium';

let t: TestGateway;
let tenant: Tenant;
let requiring: Tenant;
let browser: Browser;
let site: http.Server;
let gatewayBase: string;
let siteBase: string;
let list: { ID: string };
let pageList: { ID: string };

/**
 * The site's page. Query: `app` (application), `window=1` (auth_window), `handlers=0`
 * (default_flow_handlers false), `segment` (Widget.URL?segment=), `broken=1` (hooks that throw). The
 * opt-in checkbox names the main application's list unless the page names a segment or another application.
 */
function sitePage(query: URLSearchParams): string {
  const applicationId = query.get('app') ?? String(tenant.applicationId);
  const segment = query.get('segment');
  const script = `${gatewayBase}/framework/js/${applicationId}${segment ? `?segment=${segment}` : ''}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fans</title></head><body>
<a href="#" data-ae-register-window="true">Register</a>
<a href="#" data-ae-login-window="true" data-ae-return="${siteBase}/club?from=window">Sign in</a>
<a href="#" data-ae-logout-link="true">Log out</a>
<form id="signup" data-ae-type="register" data-ae-register-form="email" method="post">
  <label>Email <input type="email" name="email"></label>
  <label>Password <input type="password" name="password"></label>
  <label><input type="checkbox" data-ae-optin="Weekly news" ${query.get('segment') || query.get('app') ? '' : `data-ae-optin-segmentid="${list.ID}"`} checked> Weekly news</label>
  <button>Join</button>
</form>
<form id="signin" data-ae-type="login" data-ae-register-form="email" method="post">
  <label>Sign-in email <input type="email" name="email"></label>
  <label>Sign-in password <input type="password" name="password"></label>
  <button>Sign in here</button>
</form>
<p>Hello <span id="name" data-ae-user-firstname></span> <span id="email" data-ae-user-email></span></p>
<script>
  window.log = [];
  window.pageState = 'kept';
  function record(event) {
    return function () { window.log.push({ event: event, args: JSON.parse(JSON.stringify(Array.prototype.slice.call(arguments))) }); };
  }
  window.AEJSReady = function (aeJS) {
    window.readyCalled = true;
    ${query.get('window') === '1' ? 'aeJS.settings.auth_window = true;' : ''}
    ${query.get('handlers') === '0' ? 'aeJS.settings.default_flow_handlers = false;' : ''}
    ['onFlow', 'onLogin', 'onUser', 'onLogout', 'onWindow', 'onEmailVerify', 'onPasswordReset'].forEach(function (name) {
      aeJS.events[name].addHandler(record(name));
    });
    window.removed = aeJS.events.onUser.addHandler(function () { window.removedHandlerRan = true; });
    aeJS.events.onUser.removeHandler(window.removed);
    ${query.get('broken') === '1' ? "aeJS.events.onUser.addHandler(function () { throw new Error('handler broke'); }); throw new Error('AEJSReady broke');" : ''}
  };
</script>
<script src="${script}"></script>
</body></html>`;
}

/** Waits on the page's state (a password check takes its time on a busy machine), never on a clock. */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 60_000 });

type Logged = { event: string; args: unknown[] };
const log = (page: Page) => page.evaluate<Logged[]>('window.log');
const logged = async (page: Page, event: string) => (await log(page)).filter((entry) => entry.event === event).map((entry) => entry.args);

async function openSite(context: BrowserContext, query: Record<string, string> = {}) {
  const page = await context.newPage();
  await page.goto(`${siteBase}/club?${new URLSearchParams(query)}`);
  await page.waitForFunction('window.readyCalled === true');
  return page;
}

async function register(tenantOf: Tenant, email: string) {
  const response = await t.rest(tenantOf, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', firstname: 'Lin' });
  return response.json[0].data.AccessToken as string;
}

async function routeExists(path: string) {
  const response = await t.request({ method: 'POST', url: path, headers: { origin: siteBase, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=x%40example.com' });
  return response.statusCode !== 404;
}

describe.skipIf(!fs.existsSync(chromiumPath))('aeJS as AE clients use it, in a browser', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    t = await startTestGateway();
    await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    gatewayBase = `http://id.fans.localhost:${(t.gateway.app.server.address() as AddressInfo).port}`;
    tenant = await t.tenant('advanced');
    requiring = await t.tenant('advanced');
    await whitelist(t, tenant, 'www.fans.localhost');
    await whitelist(t, requiring, 'www.fans.localhost');
    expect((await t.graphql(requiring.apiKey, 'mutation { setRequiredFields(fields: [COUNTRY]) { id } }')).body.errors).toBeUndefined();
    list = (await t.rest(tenant, 'POST', '/segment/create', { name: 'Newsletter', label: 'Weekly news' })).json;
    pageList = (await t.rest(tenant, 'POST', '/segment/create', { name: 'Tour', label: 'Tour dates' })).json;

    site = http.createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://site');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(sitePage(url.searchParams));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteBase = `http://www.fans.localhost:${(site.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--host-resolver-rules=MAP *.localhost 127.0.0.1'] });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => site?.close(resolve));
  });

  it('offers AE\'s settings, events and triggers; redirect flow: onFlow, onLogin(user, "registration"), onUser(user, "init"), flow.return, onLogout', async () => {
    const context = await browser.newContext();
    const page = await openSite(context);
    const surface = await page.evaluate(`({
      settings: [aeJS.settings.auth_window, aeJS.settings.default_flow_handlers, aeJS.settings.return_url],
      events: Object.keys(aeJS.events).filter(function (name) { return typeof aeJS.events[name].addHandler === 'function' && typeof aeJS.events[name].removeHandler === 'function'; }),
      triggers: Object.keys(aeJS.trigger).filter(function (name) { return typeof aeJS.trigger[name] === 'function'; }).sort(),
      get: Object.keys(aeJS.trigger.get).sort(),
      user: aeJS.user
    })`);
    expect(surface).toMatchObject({ settings: [false, true, null], user: null, get: ['flow', 'user'] });
    expect((surface as { events: string[] }).events).toEqual(expect.arrayContaining(['onFlow', 'onLogin', 'onUser', 'onLogout', 'onWindow', 'onEmailVerify', 'onPasswordReset']));
    expect((surface as { triggers: string[] }).triggers).toEqual(
      expect.arrayContaining(['attach', 'authenticate', 'login', 'flow', 'logout', 'verify_email', 'send_verify_email', 'reset_password', 'verify_reset_password', 'submit']),
    );

    await page.getByRole('link', { name: 'Register' }).click();
    await page.waitForURL(/\/framework\/flow\/\d+\/register/);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Email address').fill('ada@example.com');
    await page.getByLabel(/^Password/).fill('correct horse');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/accesstoken=/);
    await poll(() => page.locator('#name').textContent()).toBe('Ada');
    const logins = await logged(page, 'onLogin');
    expect(logins).toEqual([[expect.objectContaining({ data: expect.objectContaining({ Email: 'ada@example.com', FirstName: 'Ada' }) }), 'registration', false]]);
    expect(await logged(page, 'onUser')).toEqual([[expect.anything(), 'init']]);
    expect(await page.evaluate('window.removedHandlerRan')).toBeUndefined();
    expect(await page.evaluate('aeJS.flow.return')).toBe(`${siteBase}/club`);

    // aeJS.user has the REST envelope's shape: what /v1.1/auth gives the site's server, less its secrets.
    const user = await page.evaluate<{ data: Record<string, unknown>; services: Record<string, unknown>[]; optins: unknown[] }>('aeJS.user');
    const token = new URL(page.url()).searchParams.get('accesstoken')!;
    const envelope = (await t.rest(tenant, 'POST', '/auth', { accesstoken: token, details: 1 })).json;
    expect(Object.keys(envelope).sort()).toEqual(['data', 'jwt', 'optins', 'services']);
    expect(Object.keys(user).sort()).toEqual(['data', 'optins', 'services']);
    for (const [key, value] of Object.entries(user.data)) if (key in envelope.data) expect(envelope.data[key], key).toEqual(value);
    expect(user.data.AccessToken).toBeUndefined();
    expect(envelope.data.AccessToken).toMatch(/^[0-9a-f]{32}_\d+$/);
    expect(user.services).toEqual([expect.objectContaining({ Service: 'email', ID: envelope.services[0].ID, UserID: 'ada@example.com' })]);
    expect(user.optins).toEqual(envelope.optins);

    // A reload of the return page does not report the same sign-in again.
    await page.reload();
    await page.waitForFunction('window.readyCalled === true');
    await poll(() => page.locator('#name').textContent()).toBe('Ada');
    expect(await logged(page, 'onLogin')).toEqual([]);
    expect(await logged(page, 'onUser')).toEqual([[expect.anything(), 'init']]);

    await page.getByRole('link', { name: 'Log out' }).click();
    await poll(() => logged(page, 'onLogout')).toEqual([[expect.objectContaining({ data: expect.objectContaining({ Email: 'ada@example.com' }) })]]);
    expect(await page.evaluate('aeJS.user')).toBeNull();
    await context.close();
  });

  it('onFlow "authenticate" names the hosted page; settings.services limits the networks; trigger.flow and authenticate navigate', async () => {
    const context = await browser.newContext();
    const page = await openSite(context);
    await page.evaluate(`aeJS.settings.services = 'email'; aeJS.trigger.authenticate('google', 'login')`);
    expect(await logged(page, 'onFlow')).toEqual([[expect.objectContaining({ step: 'error', code: 4, service: 'google' })]]);
    await Promise.all([page.waitForURL(/\/framework\/flow\/\d+\/login\?return=/), page.evaluate(`aeJS.trigger.flow('login', '${siteBase}/club?after=flow')`)]);
    expect(new URL(page.url()).searchParams.get('return')).toBe(`${siteBase}/club?after=flow`);
    await page.goBack();
    await page.waitForFunction('window.readyCalled === true');
    await Promise.all([page.waitForURL(/\/framework\/flow\/\d+\/register\?return=/), page.evaluate(`aeJS.trigger.authenticate('email', 'register', '${siteBase}/club?after=register')`)]);
    await context.close();
  });

  it('auth_window: the flow runs in a popup, the page stays, onWindow open/close, onLogin(user, "login") and onUser(user, "update")', async () => {
    const context = await browser.newContext();
    const page = await openSite(context, { window: '1' });
    const [popup] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name: 'Sign in' }).click()]);
    await popup.waitForURL(/\/framework\/flow\/\d+\/login/);
    const authenticate = (await logged(page, 'onFlow'))[0][0] as Record<string, string>;
    expect(authenticate).toMatchObject({ step: 'authenticate', service: 'email', type: 'login', return: `${siteBase}/club?from=window` });
    expect(authenticate.auth_url).toMatch(new RegExp(`/framework/flow/${tenant.applicationId}/login\\?return=`));
    expect(await logged(page, 'onWindow')).toEqual([[expect.objectContaining({ type: 'open' })]]);

    await popup.getByLabel('Email address').fill('ada@example.com');
    await popup.getByLabel('Password').fill('correct horse');
    await Promise.all([popup.waitForEvent('close'), popup.getByRole('button', { name: 'Sign in' }).click()]);
    await poll(() => logged(page, 'onLogin')).toEqual([[expect.objectContaining({ data: expect.objectContaining({ Email: 'ada@example.com' }) }), 'login', false]]);
    expect(await logged(page, 'onUser')).toEqual([[expect.anything(), 'update']]);
    expect((await logged(page, 'onWindow')).map(([event]) => (event as { type: string }).type)).toEqual(['open', 'close']);
    expect(page.url()).toBe(`${siteBase}/club?window=1`);
    expect(await page.evaluate('window.pageState')).toBe('kept');
    expect(await page.evaluate('aeJS.flow.return')).toBe(`${siteBase}/club?from=window`);
    await context.close();
  });

  it('on-page email forms: registration with opt-ins without leaving the page, then error steps 13 and 18 (default handlers draw the message)', async () => {
    const context = await browser.newContext();
    const page = await openSite(context);
    await page.getByLabel('Email', { exact: true }).fill('grace@example.com');
    await page.getByLabel('Password', { exact: true }).fill('correct horse');
    await page.getByRole('button', { name: 'Join' }).click();
    await poll(() => logged(page, 'onLogin')).toHaveLength(1);
    const [[user, type]] = await logged(page, 'onLogin');
    expect(type).toBe('registration');
    expect((user as { optins: unknown[] }).optins).toEqual([expect.objectContaining({ Type: 'Segment', SegmentID: list.ID, Label: 'Weekly news' })]);
    const login = (await logged(page, 'onFlow')).find(([step]) => (step as { step: string }).step === 'login')![0] as { accesstoken: string };
    expect((await t.rest(tenant, 'POST', '/auth', { accesstoken: login.accesstoken })).json.data.Email).toBe('grace@example.com');
    expect(page.url()).toBe(`${siteBase}/club?`);
    expect(await page.evaluate('window.pageState')).toBe('kept');

    await page.getByLabel('Sign-in email').fill('nobody@example.com');
    await page.getByLabel('Sign-in password').fill('correct horse');
    await page.getByRole('button', { name: 'Sign in here' }).click();
    await poll(async () => (await logged(page, 'onFlow')).filter(([step]) => (step as { step: string }).step === 'error')).toEqual([
      [expect.objectContaining({ step: 'error', code: 13, service: 'email', type: 'login' })],
    ]);
    await poll(() => page.locator('#signin [role="alert"]').textContent()).toBeTruthy();

    await page.getByLabel('Sign-in email').fill('grace@example.com');
    await page.getByLabel('Sign-in password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in here' }).click();
    await poll(async () => (await logged(page, 'onFlow')).filter(([step]) => (step as { step: string }).step === 'error').map(([step]) => (step as { code: number }).code)).toEqual([13, 18]);
    await context.close();
  });

  it("default_flow_handlers false: no message of its own; Widget.URL?segment= takes the page's opt-ins; required-fields is a step the site draws", async () => {
    const context = await browser.newContext();
    const page = await openSite(context, { handlers: '0', segment: pageList.ID });
    await page.getByLabel('Sign-in email').fill('nobody@example.com');
    await page.getByLabel('Sign-in password').fill('correct horse');
    await page.getByRole('button', { name: 'Sign in here' }).click();
    await poll(() => logged(page, 'onFlow')).toEqual([[expect.objectContaining({ step: 'error', code: 13 })]]);
    expect(await page.locator('[role="alert"]').count()).toBe(0);

    await page.getByLabel('Email', { exact: true }).fill('linus@example.com');
    await page.getByLabel('Password', { exact: true }).fill('correct horse');
    await page.getByRole('button', { name: 'Join' }).click();
    await poll(() => logged(page, 'onLogin')).toHaveLength(1);
    expect(((await logged(page, 'onLogin'))[0][0] as { optins: unknown[] }).optins).toEqual([expect.objectContaining({ SegmentID: pageList.ID, Label: 'Tour dates' })]);

    // An application requiring a country: the on-page registration lacks it, the site hears the step.
    const requiringPage = await openSite(context, { handlers: '0', app: String(requiring.applicationId) });
    await requiringPage.getByLabel('Email', { exact: true }).fill('mary@example.com');
    await requiringPage.getByLabel('Password', { exact: true }).fill('correct horse');
    await requiringPage.getByRole('button', { name: 'Join' }).click();
    await poll(() => logged(requiringPage, 'onLogin')).toHaveLength(1);
    const required = (await logged(requiringPage, 'onFlow')).find(([step]) => (step as { step: string }).step === 'required-fields')![0] as { fields: string[]; auth_url: string };
    expect(required.fields).toEqual(['country']);
    expect(required.auth_url).toMatch(new RegExp(`/framework/flow/${requiring.applicationId}/complete\\?return=`));
    await context.close();
  });

  it('trigger.login(accesstoken) starts a session from a member token; get.user, attach; failing page hooks are logged and the widget runs on', async () => {
    const context = await browser.newContext();
    const accessToken = await register(tenant, 'lin@example.com');
    const page = await openSite(context);
    const refused = await page.evaluate(`aeJS.trigger.login('nonsense')`);
    expect(refused).toMatchObject({ step: 'error', code: 15 });
    await page.evaluate(`aeJS.trigger.login(${JSON.stringify(accessToken)})`);
    expect(await logged(page, 'onLogin')).toEqual([[expect.objectContaining({ data: expect.objectContaining({ Email: 'lin@example.com' }) }), 'login', false]]);
    expect(await page.evaluate('aeJS.trigger.get.user().then(function (user) { return user.data.Email; })')).toBe('lin@example.com');
    await page.evaluate(`(function () { var p = document.createElement('p'); p.id = 'later'; p.setAttribute('data-ae-user-firstname', ''); document.body.appendChild(p); aeJS.trigger.attach(p); })()`);
    expect(await page.locator('#later').textContent()).toBe('Lin');

    const errors: string[] = [];
    const broken = await context.newPage();
    broken.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await broken.goto(`${siteBase}/club?broken=1`);
    await broken.waitForFunction('window.readyCalled === true');
    // AEJSReady threw and a handler throws: the widget still learns who is signed in and renders.
    await poll(() => broken.locator('#email').textContent()).toBe('lin@example.com');
    expect(await logged(broken, 'onUser')).toEqual([[expect.anything(), 'init']]);
    expect(errors.some((text) => text.includes('AEJSReady failed'))).toBe(true);
    expect(errors.some((text) => text.includes('onUser handler failed'))).toBe(true);
    await context.close();
  });

  it('email triggers: verify_email, send_verify_email, reset_password, verify_reset_password call the gateway and report onEmailVerify / onPasswordReset', async (test) => {
    const resetPath = `/framework/${tenant.applicationId}/reset-password`;
    const verifyPath = `/framework/${tenant.applicationId}/verify-email/send`;
    if (!(await routeExists(resetPath)) || !(await routeExists(verifyPath))) {
      test.skip('the gateway has no email endpoints (reset-password, verify-email/send) in this build');
      return;
    }
    const context = await browser.newContext();
    const page = await openSite(context);
    // Only the signed-in fan's own address is sent a verification: a page with nobody signed in
    // gets the flow's error step (code 15), and no onEmailVerify.
    await page.evaluate(`aeJS.trigger.send_verify_email('${siteBase}/club', 'grace@example.com', { subject: 'Hi', body: 'Verify' })`);
    const errorCodes = async () =>
      (await logged(page, 'onFlow'))
        .map(([step]) => step as { step: string; code?: number })
        .filter((step) => step.step === 'error')
        .map((step) => step.code);
    await poll(errorCodes).toEqual([15]);
    expect(await logged(page, 'onEmailVerify')).toEqual([]);
    await page.evaluate(`aeJS.trigger.reset_password('grace@example.com', '${siteBase}/club')`);
    await page.evaluate(`aeJS.trigger.verify_reset_password('${siteBase}/club')`);
    await poll(() => logged(page, 'onPasswordReset')).toHaveLength(1);
    await context.close();
  });
});
