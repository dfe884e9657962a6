import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { buildPagesIfChanged } from '../../scripts/build-pages.mjs';
import type { TestGateway } from '../support/gateway.js';

/** Debian's Chromium, as the widget's browser tests use it; the browser tests skip without it. */
export const chromiumPath = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(chromiumPath);
export const screenshots = path.resolve('test-results/screenshots');

/** The pages' bundles, made again when their sources changed since the last build. */
export const ensurePagesBuilt = buildPagesIfChanged;

export async function launchBrowser(): Promise<Browser> {
  fs.mkdirSync(screenshots, { recursive: true });
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
}

export async function listen(t: TestGateway): Promise<string> {
  await t.gateway.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.gateway.app.server.address() as AddressInfo).port}`;
}

/**
 * A browser context cut off from every network but the gateway: any other request is aborted and
 * listed, so a test can assert the page asked for nothing elsewhere.
 */
export async function offlineContext(browser: Browser, gatewayBase: string, options: Parameters<Browser['newContext']>[0] = {}) {
  const context: BrowserContext = await browser.newContext(options);
  const blocked: string[] = [];
  const origin = new URL(gatewayBase).origin;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || new URL(url).origin === origin) return route.continue();
    blocked.push(url);
    return route.abort('internetdisconnected');
  });
  return { context, blocked };
}
