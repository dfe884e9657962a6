import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { dashboardQuery, type DashboardData } from '../../src/http/pages/dashboard/browser/queries.js';
import { standardWindows } from '../../src/http/pages/dashboard/browser/windows.js';
import { createApplication } from '../../src/modules/tenancy/tenancy.service.js';
import { createTestDatabase } from '../support/database.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ensurePagesBuilt, hasChromium, launchBrowser, listen, offlineContext, screenshots } from './browser.js';
import { seedDashboard, type DashboardSeed } from './seed.js';

/**
 * The dashboard at /dashboard on generated data: signed in with the application key (prefilled
 * here as the demo key), a brand and a standard window picked, its figures and charts filled from
 * the public GraphQL API. Screenshots at phone and desktop sizes go to test-results/screenshots.
 */
let database: DatabaseHandle;
let t: TestGateway;
let tenant: Tenant;
let seed: DashboardSeed;

beforeAll(async () => {
  await ensurePagesBuilt();
  database = await createTestDatabase();
  // The application exists before the gateway starts, so the gateway can prefill its key as the demo key.
  const created = await createApplication(database.db, { accountName: `dashboard-${process.pid}`, name: 'Aurora fan club', plan: 'advanced' });
  tenant = { accountId: created.account.id, applicationId: created.application.id, apiKey: created.apiKey };
  t = await startTestGateway({}, database, { demoApiKey: tenant.apiKey });
  seed = await seedDashboard(t, tenant);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await database?.close();
});

async function apiAnswer(windowId: string): Promise<DashboardData> {
  const window = standardWindows.find((candidate) => candidate.id === windowId)!;
  const brandId = String(seed.brandId);
  const answer = await t.graphql<DashboardData>(tenant.apiKey, dashboardQuery, { brandId, window: { period: window.period }, brand: { brandId } });
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return answer.body.data!;
}

describe('the dashboard page', () => {
  it('is served with its bundle and a strict policy, the demo key prefilled outside production', async () => {
    const response = await t.request({ url: '/dashboard' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('<script type="module" src="/assets/dashboard.js">');
    expect(response.body).toContain(`"apiKey":"${tenant.apiKey}"`);
    expect((await t.request({ url: '/assets/dashboard.js' })).statusCode).toBe(200);
    expect((await t.request({ url: '/assets/dashboard.css' })).statusCode).toBe(200);
  });

  it('asks the API for what the seed holds: every record of the brand in six months', async () => {
    const answer = await apiAnswer('6m');
    expect(answer.brandStats.timeline.reduce((sum, line) => sum + line.totalCount, 0)).toBe(seed.brandRecords);
    expect(answer.registrationStats.totals.registrations).toBe(seed.registrations);
    expect(answer.members.edges).toHaveLength(10);
  });
});

describe.skipIf(!hasChromium)('the dashboard in a browser, offline', () => {
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    base = await listen(t);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const figure = (page: Page, id: string) => page.locator(`#${id}`).innerText();
  // A locator, not waitForFunction: the page's policy forbids the eval that one needs.
  const ready = (page: Page) => page.locator('body[data-data="ready"]').waitFor();
  const format = (value: number) => new Intl.NumberFormat('en-US').format(value);

  it('signs in with the key, shows a brand over each window, keeps the key for the tab, and signs out', { timeout: 60_000 }, async () => {
    const { context, blocked } = await offlineContext(browser, base, { viewport: { width: 390, height: 844 }, locale: 'en-US', deviceScaleFactor: 2 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // The wrong key below is answered 401, which Chromium reports as a failed resource.
      if (message.type() === 'error' && !message.text().includes('status of 401')) problems.push(message.text());
    });

    await page.goto(`${base}/dashboard`);
    await expect.poll(() => page.getByLabel('Application key').inputValue()).toBe(tenant.apiKey);
    await page.screenshot({ path: `${screenshots}/dashboard-sign-in-phone.png`, fullPage: true });

    // A wrong key is refused with the gateway's own message.
    await page.getByLabel('Application key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#sign-in-error').innerText()).toMatch(/unknown or revoked/);

    await page.getByLabel('Application key').fill(tenant.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await ready(page);
    expect(await page.locator('#application').innerText()).toBe('Aurora fan club (advanced plan)');
    expect(await page.locator('#brand option').allInnerTexts()).toEqual(['Aurora Skies', 'Night Drive']);
    expect(await page.locator('#window [aria-pressed="true"]').innerText()).toBe('1 month');

    const month = await apiAnswer('1m');
    expect(await figure(page, 'figure-active')).toBe(format(month.brandStats.members.activeMembers));
    expect(await figure(page, 'figure-records')).toBe(format(month.brandStats.timeline.reduce((sum, line) => sum + line.totalCount, 0)));
    expect(await page.locator('#top-members tr').count()).toBe(10);
    await page.screenshot({ path: `${screenshots}/dashboard-month-phone.png` });

    // Six months: every record of the brand.
    await page.getByRole('button', { name: '6 months' }).click();
    await expect.poll(() => figure(page, 'figure-records')).toBe(format(seed.brandRecords));
    await ready(page);
    const halfYear = await apiAnswer('6m');
    const top = halfYear.members.edges[0].node;
    expect(await page.locator('#top-members tr').first().innerText()).toContain(`${top.firstName}`);
    expect(await page.locator('#top-members tr').first().innerText()).toContain(format(top.score.points));
    expect(page.url()).toContain(`brand=${seed.brandId}&window=6m`);

    // The key stays for the tab: a reload signs in again and keeps the selection.
    await page.reload();
    await ready(page);
    expect(await page.locator('#window [aria-pressed="true"]').innerText()).toBe('6 months');
    expect(await figure(page, 'figure-records')).toBe(format(seed.brandRecords));

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.screenshot({ path: `${screenshots}/dashboard-6m-desktop.png`, fullPage: true });
    await page.getByRole('button', { name: '1 week' }).click();
    await ready(page);
    const week = await apiAnswer('1w');
    expect(await figure(page, 'figure-registrations')).toBe(format(week.registrationStats.totals.registrations));
    await page.screenshot({ path: `${screenshots}/dashboard-week-desktop.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${screenshots}/dashboard-week-phone.png`, fullPage: true });

    // The other brand: fewer records, its own numbers.
    await page.locator('#brand').selectOption({ label: 'Night Drive' });
    await ready(page);
    expect(page.url()).toContain(`brand=${seed.otherBrandId}`);
    expect(Number((await figure(page, 'figure-records')).replace(/,/g, ''))).toBeLessThan(seed.brandRecords);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);

    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
