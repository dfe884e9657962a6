import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

/**
 * The reference page in Debian's Chromium with every address but the gateway's cut off: it asks
 * for nothing elsewhere (a request the page makes, or one its policy stops before it is made,
 * which Chromium reports as a console error) and logs no error.
 */
const chromiumPath = '/usr/bin/chromium';
const screenshots = path.resolve('test-results/screenshots');

let t: TestGateway;
let browser: Browser;
let base: string;

describe.skipIf(!fs.existsSync(chromiumPath))('the /v1.1 reference page in a browser', () => {
  beforeAll(async () => {
    fs.mkdirSync(screenshots, { recursive: true });
    t = await startTestGateway();
    await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.gateway.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders the operations with no network beyond the gateway', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const refused: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
      refused.push(url);
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(`console: ${message.text()}`);
    });
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!['127.0.0.1', 'localhost'].includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol)) elsewhere.push(request.url());
    });
    await page.goto(`${base}/v1.1/docs`);
    // Redoc heads each operation with its summary, and shows the error codes from the document.
    await page
      .locator('h2')
      .filter({ hasText: /^Register a member\s*$/ })
      .waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByText('DATABASE_UNAVAILABLE').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(screenshots, 'api-reference-desktop.png') });
    // Redoc draws its sidebar footer once the page has settled: wait for it before counting.
    await page.getByText('API docs by Redocly').waitFor();
    await page.waitForLoadState('networkidle');
    expect(refused).toEqual([]);
    expect(elsewhere).toEqual([]);
    expect(failures).toEqual([]);
    await context.close();
  });
});
