import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { ensureDemoAccount, type DemoCredentials } from '../../src/modules/tenancy/demo.js';
import { createTestDatabase } from '../support/database.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { ensurePagesBuilt, hasChromium, launchBrowser, listen, offlineContext, screenshots } from './browser.js';
import { temporaryDirectory } from '../support/leftovers.js';

/**
 * The explorer at GET /graphql (a browser asks for HTML): GraphiQL from the gateway's own bundle,
 * the demo key in its headers outside production, Apollo Sandbox a link away; in production,
 * Apollo's production page and no key anywhere.
 */
let database: DatabaseHandle;
let demo: DemoCredentials;
let t: TestGateway;
let production: TestGateway;
const html = { accept: 'text/html' };

beforeAll(async () => {
  await ensurePagesBuilt();
  database = await createTestDatabase();
  demo = (await ensureDemoAccount(database.db, temporaryDirectory('demo')))!;
  t = await startTestGateway({}, database, { demoApiKey: demo.apiKey });
  production = await startTestGateway({ NODE_ENV: 'production' }, database, { demoApiKey: demo.apiKey });
});

afterAll(async () => {
  await t?.close();
  await production?.close();
  await database?.close();
});

function pageConfig(page: string) {
  const match = /<script type="application\/json" id="page-config">(.*?)<\/script>/s.exec(page);
  expect(match, page.slice(0, 500)).toBeTruthy();
  return JSON.parse(match![1]);
}

describe('the explorer page', () => {
  it('is the landing page of /graphql, made only of local assets, with the demo key in its headers', async () => {
    const response = await t.request({ url: '/graphql', headers: html });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain('<script type="module" src="/assets/explorer.js">');
    expect(response.body).toContain('<link rel="stylesheet" href="/assets/explorer.css">');
    // Nothing loaded from elsewhere: no absolute URL in a src or href.
    expect(response.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(pageConfig(response.body)).toMatchObject({ endpoint: '/graphql', apiKey: demo.apiKey, sandboxUrl: '/graphql/sandbox' });

    for (const file of ['explorer.js', 'explorer.css']) {
      const asset = await t.request({ url: `/assets/${file}` });
      expect(asset.statusCode, file).toBe(200);
      expect(asset.body.length, file).toBeGreaterThan(10_000);
      const again = await t.request({ url: `/assets/${file}`, headers: { 'if-none-match': String(asset.headers.etag) } });
      expect(again.statusCode).toBe(304);
    }
    expect((await t.request({ url: '/assets/explorer.js.map' })).statusCode).toBe(404);
    expect((await t.request({ url: '/assets/..%2Fmain.js' })).statusCode).toBe(404);
  });

  it('keeps Apollo Sandbox one link away, loading from Apollo’s CDN only there', async () => {
    const response = await t.request({ url: '/graphql/sandbox' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-security-policy']).toContain('https://embeddable-sandbox.cdn.apollographql.com');
    expect(pageConfig(response.body)).toMatchObject({ endpoint: '/graphql', apiKey: demo.apiKey });
    expect((await t.request({ url: '/assets/sandbox.js' })).statusCode).toBe(200);
  });

  it('answers GraphQL as before: a query with the key, introspection without', async () => {
    const answer = await t.graphql(demo.apiKey, '{ application { name } }');
    expect(answer.body).toEqual({ data: { application: { name: 'Demo application' } } });
  });

  it('in production: Apollo’s production page, no explorer, no sandbox, no key', async () => {
    const response = await production.request({ url: '/graphql', headers: html });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain('/assets/explorer.js');
    expect(response.body).not.toContain(demo.apiKey);
    expect((await production.request({ url: '/graphql/sandbox' })).statusCode).toBe(404);
    expect((await production.request({ url: '/assets/explorer.js' })).statusCode).toBe(404);
    const dashboard = await production.request({ url: '/dashboard' });
    expect(dashboard.statusCode).toBe(200);
    expect(dashboard.body).not.toContain(demo.apiKey);
    expect(pageConfig(dashboard.body).apiKey).toBeUndefined();
  });
});

describe.skipIf(!hasChromium)('the explorer in a browser, offline', () => {
  let browser: Browser;
  // The gateway listens once for the cases below.
  let listening: Promise<string> | undefined;
  const gatewayBase = () => (listening ??= listen(t));
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A new page of the context, and the page errors and console errors it shows from its start. */
  async function pageWatchingErrors(context: Awaited<ReturnType<typeof offlineContext>>['context']) {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    return { page, problems };
  }

  it('loads with only the gateway reachable, runs a query with the prefilled key, and shows the answer', { timeout: 60_000 }, async () => {
    const base = await gatewayBase();
    const { context, blocked } = await offlineContext(browser, base, { viewport: { width: 1440, height: 900 } });
    const { page, problems } = await pageWatchingErrors(context);

    await page.goto(`${base}/graphql`);
    await page.locator('.graphiql-container').waitFor();
    // The schema came through introspection: the Explorer panel lists the query fields.
    await page.locator('.graphiql-explorer-root').getByText('brandStats', { exact: true }).first().waitFor();
    await page
      .getByRole('button', { name: /headers/i })
      .first()
      .click();
    await expect.poll(() => page.locator('.graphiql-editor-tool').innerText()).toContain(demo.apiKey);

    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.graphiql-response');
    await expect.poll(() => result.innerText(), { timeout: 15_000 }).toContain('"name": "Demo application"');
    expect(await result.innerText()).toContain('"totalCount": 0');
    await page.screenshot({ path: `${screenshots}/explorer-desktop.png` });
    await expect(page.getByRole('link', { name: /Apollo Sandbox/ }).getAttribute('href')).resolves.toBe('/graphql/sandbox');

    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);

    // The Sandbox link: its page asks Apollo's CDN for the embed script, and nothing else; offline it says so.
    await page.getByRole('link', { name: /Apollo Sandbox/ }).click();
    await page.waitForURL(`${base}/graphql/sandbox`);
    await expect.poll(() => blocked).toEqual(['https://embeddable-sandbox.cdn.apollographql.com/v2/embeddable-sandbox.umd.production.min.js']);
    expect(await page.locator('#sandbox-fallback').innerText()).toContain('cannot be reached');
    await context.close();
  });

  it('at phone width (390×844) shows the query editor, the Explorer panel closed until asked for', { timeout: 60_000 }, async () => {
    const base = await gatewayBase();
    const { context, blocked } = await offlineContext(browser, base, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const { page, problems } = await pageWatchingErrors(context);

    await page.goto(`${base}/graphql`);
    const editor = page.locator('.graphiql-query-editor');
    await editor.waitFor();
    await expect.poll(() => page.locator('.graphiql-query-editor').innerText()).toContain('application');
    // Visible: most of the screen's width, and what is drawn at its middle is the editor itself, not a panel over it.
    const box = (await editor.boundingBox())!;
    expect(box.width).toBeGreaterThan(250);
    expect(box.height).toBeGreaterThan(300);
    expect(box.x + box.width).toBeLessThanOrEqual(390 + 1);
    const [x, y] = [Math.round(box.x + box.width / 2), Math.round(box.y + Math.min(box.height / 2, 100))];
    const onTop = await page.evaluate(`Boolean(document.elementFromPoint(${x}, ${y})?.closest('.graphiql-query-editor'))`);
    expect(onTop).toBe(true);
    await page.screenshot({ path: `${screenshots}/explorer-phone.png` });

    // The Explorer is one tap away in the sidebar.
    expect(await page.locator('.graphiql-explorer-root').count()).toBe(0);
    await page.locator('.graphiql-sidebar button[aria-label="Show GraphiQL Explorer"]').click();
    await page.locator('.graphiql-explorer-root').getByText('brandStats', { exact: true }).first().waitFor();
    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
