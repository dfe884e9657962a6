import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { offlineContext, screenshots } from '../pages/browser.js';

const require = createRequire(import.meta.url);
/** axe-core's script, put into the page by evaluate (the pages' policy allows no other script; evaluate is not bound by it). */
const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rules the console is held to: WCAG 2.0, 2.1 and 2.2 at levels A and AA. */
const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe on the page as it is now and fails on any serious or critical violation, naming the state it was in. */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  // A string, evaluated in the page: the test code has no DOM types of its own.
  const run = `axe.run(document, ${JSON.stringify({ runOnly: { type: 'tag', values: axeTags }, resultTypes: ['violations'] })}).then((result) => result.violations)`;
  const violations = await page.evaluate<AxeViolation[]>(run);
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  expect(serious, `axe on ${state}`).toEqual([]);
}

/** A phone: 390×844 CSS pixels, touch, twice the pixel density, offline but for the gateway. */
export function phoneContext(browser: Browser, base: string) {
  return offlineContext(browser, base, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'en-US', acceptDownloads: true });
}

export function desktopContext(browser: Browser, base: string) {
  return offlineContext(browser, base, { viewport: { width: 1440, height: 900 }, locale: 'en-US', acceptDownloads: true });
}

/** The page's script errors and console errors, to assert there were none. */
export function watchProblems(page: Page, expected: RegExp[] = []): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    // A refusal the test asks for on purpose is reported by Chromium as a failed resource.
    if (expected.some((pattern) => pattern.test(text))) return;
    problems.push(text);
  });
  return problems;
}

/** Nothing wider than the screen: the page never scrolls sideways. */
export async function expectNoSideScroll(page: Page, view: string): Promise<void> {
  const width = page.viewportSize()!.width;
  const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
  expect(scrollWidth, `${view} is wider than the screen`).toBeLessThanOrEqual(width);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: path.join(screenshots, `console-${name}-${page.viewportSize()!.width}.png`), fullPage: true });
}

/** Every check a screen gets on a phone: no sideways scroll, no serious accessibility violation, a screenshot. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await expectNoSideScroll(page, name);
  await expectAccessible(page, name);
  await screenshot(page, name);
}

/** The staff session's cookie set on the context, as the browser would hold it after signing in. */
export async function addSessionCookie(context: BrowserContext, base: string, cookie: { name: string; value: string }): Promise<void> {
  await context.addCookies([{ name: cookie.name, value: cookie.value, url: base, httpOnly: true, sameSite: 'Strict' }]);
}

/** A cookie header's `name=value` as Playwright sets it on a context. */
export function cookieOf(header: string): { name: string; value: string } {
  const at = header.indexOf('=');
  return { name: header.slice(0, at), value: header.slice(at + 1) };
}

/** The link-opening nav of the console, by the names staff read. */
export const sectionNames = ['Fans', 'Segments', 'Dashboard', 'Audit log', 'Staff', 'Applications', 'Account'] as const;
