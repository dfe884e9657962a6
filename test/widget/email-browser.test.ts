import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { linkIn, TestSmtpServer } from '../support/smtp.js';
import { whitelist } from './support.js';

/**
 * The emailed links followed in Debian's Chromium: "Forgot your password?" on the hosted sign-in
 * page, the reset email read from a real SMTP server, its link opened, a new password set and used,
 * the used link's page leading back; then a verification link whose page confirms by its button and
 * comes back to the site. Host names as in browser.test.ts.
 */
const chromiumPath = '/usr/bin/chromium';

let t: TestGateway;
let smtp: TestSmtpServer;
let tenant: Tenant;
let browser: Browser;
let site: http.Server;
let gatewayBase: string;
let pageUrl: string;

describe.skipIf(!fs.existsSync(chromiumPath))('emailed links in a browser', () => {
  beforeAll(async () => {
    smtp = new TestSmtpServer();
    await smtp.start();
    t = await startTestGateway({ SMTP_URL: smtp.url, MAIL_FROM: 'fans@marquee.test' });
    await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    gatewayBase = `http://id.fans.localhost:${(t.gateway.app.server.address() as AddressInfo).port}`;
    tenant = await t.tenant('advanced');
    await whitelist(t, tenant, 'www.fans.localhost');
    site = http.createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Fans</title><h1>Welcome back</h1>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://www.fans.localhost:${(site.address() as AddressInfo).port}/club`;
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--host-resolver-rules=MAP *.localhost 127.0.0.1'] });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.stop();
    await new Promise((resolve) => site?.close(resolve));
  });

  it('resets a forgotten password through the emailed link, then signs in with it', async () => {
    const email = `forgetful-${process.pid}@example.com`;
    const registered = await t.graphql(
      tenant.apiKey,
      `mutation($email: String!) { registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" } }) { member { id } } }`,
      { email },
    );
    expect(registered.body.errors).toBeUndefined();

    const page = await (await browser.newContext()).newPage();
    const login = `${gatewayBase}/framework/flow/${tenant.applicationId}/login?return=${encodeURIComponent(pageUrl)}`;
    await page.goto(login);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect.poll(() => page.getByRole('heading').textContent()).toBe('Check your email');

    await t.gateway.mail.drain();
    const [mail] = smtp.to(email);
    const link = linkIn(mail);
    expect(link.origin).toBe(gatewayBase);
    await page.goto(link.toString());
    await page.getByLabel(/^New password/).fill('a brand new horse');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.getByRole('heading').textContent()).toBe('Your password is changed');

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill('a brand new horse');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.toString().startsWith(`${pageUrl}?accesstoken=`));

    // The link again: used; the page leads to the form that sends a new one.
    await page.goto(link.toString());
    expect(await page.getByRole('heading').textContent()).toBe('This link does not work');
    await page.getByRole('link', { name: 'Ask for a new email' }).click();
    expect(await page.getByRole('heading').textContent()).toBe('Reset your password');
    await page.getByRole('link', { name: 'Back to the site' }).click();
    await page.waitForURL(pageUrl);
  });

  it('confirms an address through the emailed link and comes back to the site', async () => {
    const email = `unverified-${process.pid}@example.com`;
    const registered = await t.graphql(
      tenant.apiKey,
      `mutation($email: String!) { registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" } }) { member { id } } }`,
      { email },
    );
    const id = registered.body.data.registerMember.member.id;
    expect((await t.graphql(tenant.apiKey, `mutation($id: ID!, $back: String) { sendVerificationEmail(id: $id, returnUrl: $back) }`, { id, back: pageUrl })).body.data.sendVerificationEmail).toBe(true);
    await t.gateway.mail.drain();
    const page = await (await browser.newContext()).newPage();
    const link = linkIn(smtp.to(email)[0]);
    // The API was called through the injector (host localhost): the link names that host; the browser reaches the same gateway.
    await page.goto(`${gatewayBase}${link.pathname}${link.search}`);
    // Opening the link only shows the button; nothing is verified until it is pressed.
    expect(await page.getByRole('heading').textContent()).toBe('Confirm your email address');
    const before = await t.graphql(tenant.apiKey, `query($id: ID!) { member(lookup: { id: $id }) { verifiedEmail } }`, { id });
    expect(before.body.data.member.verifiedEmail).toBeNull();
    await page.getByRole('button', { name: 'Confirm my email address' }).click();
    await page.waitForURL(`${pageUrl}?email_verified=1`);
    expect(await page.getByRole('heading').textContent()).toBe('Welcome back');
    const shown = await t.graphql(tenant.apiKey, `query($id: ID!) { member(lookup: { id: $id }) { verifiedEmail } }`, { id });
    expect(shown.body.data.member.verifiedEmail).toBe(email);
  });
});
