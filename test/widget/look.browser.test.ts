import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { temporaryDirectory } from '../support/leftovers.js';
import { whitelist } from './support.js';

/**
 * The hosted sign-in page with an application's look, in Debian's Chromium: the page's policy lets
 * its stylesheet and its logo (served over https from a whitelisted host) load, with no violation
 * reported, and the accent reaches the button.
 */
const chromiumPath = '/usr/bin/chromium';
const screenshots = path.resolve('test-results/screenshots');
// A 2×1 PNG.
const logo = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAADklEQVR4nGPgyjP8D8IADE8DUdzsYhMAAAAASUVORK5CYII=', 'base64');

let t: TestGateway;
let tenant: Tenant;
let browser: Browser;
let logoServer: https.Server;
let gatewayBase: string;
let logoUrl: string;

describe.skipIf(!fs.existsSync(chromiumPath) || !fs.existsSync('/usr/bin/openssl'))('the sign-in page look in a browser', () => {
  beforeAll(async () => {
    fs.mkdirSync(screenshots, { recursive: true });
    const dir = temporaryDirectory('look-tls');
    execFileSync(
      '/usr/bin/openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=logo.fans.localhost'],
      { stdio: 'ignore' },
    );
    logoServer = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (_request, response) => {
      response.writeHead(200, { 'content-type': 'image/png' }).end(logo);
    });
    await new Promise<void>((resolve) => logoServer.listen(0, '127.0.0.1', resolve));
    logoUrl = `https://logo.fans.localhost:${(logoServer.address() as AddressInfo).port}/logo.png`;

    t = await startTestGateway();
    await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    gatewayBase = `http://id.fans.localhost:${(t.gateway.app.server.address() as AddressInfo).port}`;
    tenant = await t.tenant('advanced');
    await whitelist(t, tenant, 'www.fans.localhost');
    await whitelist(t, tenant, 'logo.fans.localhost');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--ignore-certificate-errors', '--host-resolver-rules=MAP *.localhost 127.0.0.1'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => logoServer?.close(resolve));
  });

  it('loads the logo and the styles with no Content-Security-Policy violation', async () => {
    const set = await t.graphql(tenant.apiKey, 'mutation($input: SignInPageLookInput!) { setSignInPageLook(input: $input) { id } }', {
      input: { title: 'Look Club', accentColor: '#0a6e31', backgroundColor: '#fdf6e3', logoUrl, footerLinkUrl: 'https://www.fans.localhost/privacy' },
    });
    expect(set.body.errors).toBeUndefined();

    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content.Security.Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    // Any violation is reported to the console as well as by Chromium itself.
    await page.addInitScript("document.addEventListener('securitypolicyviolation', (event) => console.error('violation ' + event.violatedDirective))");
    await page.goto(`${gatewayBase}/framework/flow/${tenant.applicationId}/login?return=${encodeURIComponent('http://www.fans.localhost/club')}`);
    const image = page.getByRole('img', { name: 'Look Club' });
    await expect.poll(() => image.isVisible()).toBe(true);
    await expect.poll(() => page.evaluate("document.querySelector('img.logo').complete && document.querySelector('img.logo').naturalWidth")).toBe(2);
    expect(await page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    expect(await page.evaluate("getComputedStyle(document.querySelector('button[type=submit]')).backgroundColor")).toBe('rgb(10, 110, 49)');
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(253, 246, 227)');
    expect(await page.getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).toBe('https://www.fans.localhost/privacy');
    await page.screenshot({ path: path.join(screenshots, 'login-look.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });
});
