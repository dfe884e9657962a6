import fs from 'node:fs';
import { and, eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../src/db/schema/index.js';
import type { StaffRole } from '../../src/modules/staff/permissions.js';
import { createActivity, daysAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { consoleGraphql, signInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok } from '../support/rest.js';
import { ensurePagesBuilt, hasChromium, launchBrowser, listen } from '../pages/browser.js';
import { addSessionCookie, checkScreen, cookieOf, expectAccessible, phoneContext, watchProblems } from './browser-support.js';

/**
 * The console's fan screens driven as staff use them, on a phone: find a fan by email, name and id,
 * read every tab, edit the profile (a refused value shown on its field), end their sessions, export
 * their data, merge another fan into them after the preview, erase them by typing their email,
 * export a segment as CSV with its progress bar, and find each of those in the audit log. Then what
 * each role is shown of a fan.
 */
let t: TestGateway;
let tenant: Tenant;
let ana: number;
let bruno: number;
let carla: number;
const segmentRows = 1500;

async function nameFan(id: number, values: { firstName: string; surname: string; username?: string }) {
  await t.database.db.update(members).set(values).where(eq(members.id, id));
}

beforeAll(async () => {
  await ensurePagesBuilt();
  t = await startTestGateway();
  tenant = await t.tenant('advanced', `console-fans-${process.pid}`);
  const suffix = `${process.pid}-${tenant.accountId}`;
  [ana, bruno, carla] = await insertMembers(t, tenant, [
    { email: `ana.lima-${suffix}@example.com`, country: 'BR' },
    { email: `bruno-${suffix}@example.com`, country: 'PT' },
    { email: `carla-${suffix}@example.com`, country: 'ES' },
  ]);
  await nameFan(ana, { firstName: 'Ana', surname: 'Lima', username: `analima${process.pid}` });
  await nameFan(bruno, { firstName: 'Bruno', surname: 'Costa' });
  await nameFan(carla, { firstName: 'Carla', surname: 'Ruiz' });
  // Activity on a brand for Ana and Bruno: the timeline, the totals and what a merge moves.
  const brandId = await insertBrand(t, tenant, 'Aurora Skies');
  const listen = await createActivity(t, tenant, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brandId, points: 2 });
  await record(t, tenant, [
    ...[1, 2, 3].map((days) => ({ activityId: listen, memberId: ana, completedAt: daysAgo(days) })),
    ...[1, 4].map((days) => ({ activityId: listen, memberId: bruno, completedAt: daysAgo(days) })),
  ]);
  // A segment of every fan in Great Britain, big enough to stream in several chunks.
  await insertMembers(
    t,
    tenant,
    Array.from({ length: segmentRows }, () => ({ country: 'GB' })),
  );
  await ok(t.rest(tenant, 'POST', '/segment/create', { name: 'Fans in Britain', type: 'filter', filter: '{"countries":["GB"]}' }));
}, 180_000);

afterAll(async () => {
  await t?.close();
});

describe.skipIf(!hasChromium)('the fan screens in a browser', () => {
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    base = await listen(t);
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function signedIn(role: StaffRole) {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role });
    const session = await phoneContext(browser, base);
    await addSessionCookie(session.context, base, cookieOf(staff.cookie));
    const page = await session.context.newPage();
    return { ...session, page, staff, problems: watchProblems(page) };
  }

  const search = async (page: Page, text: string) => {
    await page.getByRole('searchbox', { name: 'Search fans' }).fill(text);
    await page.getByRole('searchbox', { name: 'Search fans' }).press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe(text);
  };
  const results = (page: Page) => page.getByRole('table', { name: /Fans matching/ });
  const status = (page: Page, text: string | RegExp) => expect.poll(() => page.getByRole('status').allInnerTexts()).toContainEqual(expect.stringMatching(text));

  it('finds, reads, edits, exports, merges and erases a fan, exports a segment, and shows each in the audit log', { timeout: 240_000 }, async () => {
    const { context, page, blocked, problems } = await signedIn('admin');
    const anaEmail = `ana.lima-${process.pid}-${tenant.accountId}@example.com`;

    await page.goto(`${base}/console`);
    await page.getByRole('searchbox', { name: 'Search fans' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/fans');
    await checkScreen(page, 'fans-empty');

    // By email, by name, by member id: the same fan.
    for (const text of [anaEmail, 'Ana', String(ana)]) {
      await search(page, text);
      await expect.poll(() => results(page).getByRole('link', { name: 'Ana Lima' }).count()).toBe(1);
    }
    await checkScreen(page, 'fans-results');

    await results(page).getByRole('link', { name: 'Ana Lima' }).click();
    await page.getByRole('heading', { name: 'Ana Lima', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/fans/${ana}/profile`);
    await checkScreen(page, 'fan-profile');
    for (const tab of ['Services', 'Opt-ins', 'Activity', 'Sessions', 'Emails', 'Audit']) {
      await page.getByRole('navigation', { name: 'Fan' }).getByRole('link', { name: tab }).click();
      await page.getByRole('region', { name: tab }).waitFor();
      await expect.poll(() => page.locator('.loading').count()).toBe(0);
      await checkScreen(page, `fan-${tab.toLowerCase()}`);
    }
    expect(new URL(page.url()).pathname).toBe(`/console/fans/${ana}/audit`);
    // The three records, a header row above them. Recorded activity may reach the timeline a moment
    // after the batch answered (the queue on PostgreSQL): the screen is loaded again until it shows them.
    const activityRows = async () => {
      await page.goto(`${base}/console/fans/${ana}/activity`);
      await page.getByRole('region', { name: 'Activity' }).waitFor();
      await expect.poll(() => page.locator('.loading').count()).toBe(0);
      return page
        .getByRole('table', { name: /Activity/ })
        .getByRole('row')
        .count();
    };
    await expect.poll(activityRows, { timeout: 20_000, interval: 500 }).toBe(4);

    // Editing: a refused value is shown on its field, then a good one is saved and shown.
    await page.goto(`${base}/console/fans/${ana}/profile`);
    await page.getByLabel('Email address').fill('not an address');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');
    const describedBy = await page.getByLabel('Email address').getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy!.split(' ').at(-1)}"]`).innerText()).not.toBe('');
    await expectAccessible(page, 'profile with an error');
    await page.getByLabel('Email address').fill(anaEmail);
    await page.getByLabel('First name').fill('Anabel');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('heading', { name: 'Anabel Lima', level: 1 }).waitFor();
    await status(page, 'Profile saved.');

    await page.getByRole('button', { name: 'End sessions' }).click();
    await status(page, 'Every session of the fan was ended.');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export data' }).click();
    const exported = JSON.parse(fs.readFileSync(await (await download).path(), 'utf8'));
    expect(JSON.stringify(exported)).toContain(anaEmail);

    // Merge Bruno into Ana: the preview says what moves, then Bruno is gone.
    await page.getByRole('button', { name: 'Merge', exact: true }).click();
    await page.getByLabel("The other fan's member id").fill(String(bruno));
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('table', { name: 'What moves' }).waitFor();
    await checkScreen(page, 'fan-merge-dialog');
    await page.getByRole('button', { name: 'Merge these fans' }).click();
    await status(page, `Fan ${bruno} was merged into this fan.`);
    expect(await page.getByRole('dialog').count()).toBe(0);
    // A merged fan's id answers their survivor.
    await page.goto(`${base}/console/fans/${bruno}/profile`);
    await page.getByRole('heading', { name: 'Anabel Lima', level: 1 }).waitFor();
    await page.goto(`${base}/console/fans`);
    await search(page, `bruno-${process.pid}-${tenant.accountId}@example.com`);
    await expect.poll(() => results(page).getByRole('link', { name: 'Bruno Costa' }).count()).toBe(0);

    // Erase: the dialog says it is irreversible and waits for the email typed out.
    await page.goto(`${base}/console/fans/${ana}/profile`);
    await page.getByRole('button', { name: 'Erase', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('irreversible');
    const confirm = dialog.getByRole('button', { name: 'Erase permanently' });
    expect(await confirm.isDisabled()).toBe(true);
    await checkScreen(page, 'fan-erase-dialog');
    await dialog.getByLabel("Type the fan's email to confirm").fill(anaEmail.toUpperCase());
    await confirm.click();
    await status(page, 'Anabel Lima was erased.');
    expect(new URL(page.url()).pathname).toBe('/console/fans');
    await search(page, anaEmail);
    await expect.poll(() => page.getByText(`No fan matches “${anaEmail}”.`).count()).toBe(1);

    // The segment's CSV: streamed, the progress bar reaching its end, every row in the file.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Segments' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Fans in Britain' });
    await row.waitFor();
    await checkScreen(page, 'segments');
    const csvDownload = page.waitForEvent('download');
    await row.getByRole('button', { name: /Export CSV/ }).click();
    const csv = fs.readFileSync(await (await csvDownload).path(), 'utf8');
    const progress = row.locator('progress');
    await expect.poll(() => progress.getAttribute('value')).toBe(String(segmentRows));
    expect(await progress.getAttribute('max')).toBe(String(segmentRows));
    await status(page, `Fans in Britain: ${new Intl.NumberFormat('en-US').format(segmentRows)} rows exported.`);
    expect(csv.trimEnd().split('\n')).toHaveLength(segmentRows + 1);
    await checkScreen(page, 'segments-exported');

    // The same fans by filter, without a segment: the countries typed, the file's rows counted.
    const byFilter = page.getByRole('region', { name: 'Export fans by filter' });
    await byFilter.getByLabel('Countries').fill('GB');
    const filteredDownload = page.waitForEvent('download');
    await byFilter.getByRole('button', { name: /Export CSV/ }).click();
    const filtered = fs.readFileSync(await (await filteredDownload).path(), 'utf8');
    const filteredRows = filtered.trimEnd().split('\n').slice(1);
    expect(filteredRows).toHaveLength(segmentRows);
    const britain = await t.database.db
      .select({ id: members.id })
      .from(members)
      .where(and(eq(members.accountId, tenant.accountId), eq(members.country, 'GB')));
    expect(new Set(filteredRows.map((line) => Number(line.split(',')[0])))).toEqual(new Set(britain.map((row) => row.id)));
    await checkScreen(page, 'segments-filter-exported');

    // The audit log holds each of those, and filters by action and fan.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
    const log = page.getByRole('table', { name: /Audit entries/ });
    await log.waitFor();
    const actions = await log.locator('td[data-label="Action"]').allInnerTexts();
    for (const action of ['fan.view', 'fan.edit', 'fan.sessions_end', 'fan.export', 'fan.merge', 'fan.erase', 'segment.export']) expect(actions).toContain(action);
    await checkScreen(page, 'audit');
    await page.getByLabel('Action').selectOption('fan.erase');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => log.locator('td[data-label="Action"]').allInnerTexts()).toEqual(['fan.erase']);
    expect(new URL(page.url()).searchParams.get('action')).toBe('fan.erase');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Fan id').fill(String(ana));
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('fan')).toBe(String(ana));
    await expect.poll(async () => new Set(await log.locator('td[data-label="Target"]').allInnerTexts())).toEqual(new Set([`fan ${ana}`]));

    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  // What each role is shown of a fan; the server refuses the same operations (its own tests cover each).
  const buttons = ['Export data', 'End sessions', 'Send password reset', 'Merge', 'Erase'] as const;
  const shown: Record<StaffRole, readonly string[]> = {
    owner: buttons,
    admin: buttons,
    support: ['End sessions', 'Send password reset'],
    analyst: [],
  };

  describe.each(['owner', 'admin', 'support', 'analyst'] as const)('as %s', (role) => {
    it("shows the fan's actions of the role", { timeout: 120_000 }, async () => {
      const { context, page, blocked, problems, staff } = await signedIn(role);
      await page.goto(`${base}/console/fans/${carla}/profile`);
      if (role === 'analyst') {
        // No fan screen in the navigation, and the address typed in shows the server's refusal.
        await expect.poll(() => page.getByRole('alert').count()).toBe(1);
        expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Fans' }).count()).toBe(0);
        const answer = await consoleGraphql(t, staff, 'query($id: ID!) { fan(id: $id) { id } }', { id: String(carla) });
        expect(answer.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
      } else {
        await page.getByRole('heading', { name: 'Carla Ruiz', level: 1 }).waitFor();
        for (const name of buttons) expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(shown[role].includes(name) ? 1 : 0);
        expect(await page.getByRole('button', { name: 'Save profile' }).count()).toBe(1);
        expect(await page.getByRole('navigation', { name: 'Fan' }).getByRole('link', { name: 'Audit' }).count()).toBe(role === 'support' ? 0 : 1);
      }
      await checkScreen(page, `fan-${role}`);
      expect(blocked).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  });
});
