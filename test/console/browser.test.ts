import { base32 } from '@otplib/plugin-base32-scure';
import { crypto } from '@otplib/plugin-crypto-node';
import { generate } from '@otplib/totp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaffRole } from '../../src/modules/staff/permissions.js';
import { consoleGraphql, signInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ensurePagesBuilt, hasChromium, launchBrowser, listen } from '../pages/browser.js';
import { addSessionCookie, checkScreen, cookieOf, expectAccessible, phoneContext, sectionNames, watchProblems } from './browser-support.js';

/**
 * The console at /console in Debian's Chromium, on a phone's screen and offline but for the
 * gateway: the real sign-in (password, then a code), an invitation used, and each role's view of
 * the console (what it shows and what it leaves out), every screen checked by axe and for sideways
 * scrolling. The fans' screens are driven in browser-fans.test.ts.
 */
let t: TestGateway;
let tenant: Tenant;

beforeAll(async () => {
  await ensurePagesBuilt();
  t = await startTestGateway();
  tenant = await t.tenant('advanced', `console-browser-${process.pid}`);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('the console page', () => {
  it('is one page for every console address, with its bundle and the pages’ strict policy', async () => {
    for (const url of ['/console', '/console/fans', '/console/fans/42/activity?page=abc', '/console/invite']) {
      const response = await t.request({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      expect(response.headers['content-security-policy']).not.toContain('unsafe-eval');
      expect(response.body).toContain('<script type="module" src="/assets/console.js">');
      expect(response.body).toContain('"endpoint":"/console/graphql"');
    }
    // A file's address no route answers is not the page.
    expect((await t.request({ url: '/console/nothing/here.csv' })).statusCode).toBe(404);
    expect((await t.request({ url: '/assets/console.js' })).statusCode).toBe(200);
    expect((await t.request({ url: '/assets/console.css' })).statusCode).toBe(200);
    // The API beside it is not the page: a GET of the GraphQL endpoint is not answered with HTML.
    expect((await t.request({ method: 'POST', url: '/console/graphql', payload: {} })).headers['content-type']).not.toContain('text/html');
  });

  it('is served in production too', async () => {
    const production = await startTestGateway({ NODE_ENV: 'production', PUBLIC_URL: 'https://fans.example.com' }, t.database);
    try {
      expect((await production.request({ url: '/console/staff' })).statusCode).toBe(200);
      expect((await production.request({ url: '/assets/console.js' })).statusCode).toBe(200);
    } finally {
      await production.close();
    }
  });
});

/** The code an authenticator app shows for the secret at that moment. */
function totpCode(secret: string, at = Date.now()): Promise<string> {
  return generate({ secret, crypto, base32, epoch: Math.floor(at / 1000) });
}

describe.skipIf(!hasChromium)('the console in a browser', () => {
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    base = await listen(t);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

  it('signs in with email and password, sets up a second factor, then signs in with a code', { timeout: 120_000 }, async () => {
    const password = 'a long enough password 1';
    const own = await t.tenant();
    const owner = await signInStaff(t, { accountId: own.accountId, role: 'owner', password });
    const { context, blocked } = await phoneContext(browser, base);
    const page = await context.newPage();
    // The wrong password below is answered 401, which Chromium reports as a failed resource.
    const problems = watchProblems(page, [/status of 401/]);

    await page.goto(`${base}/console`);
    await page.getByLabel('Email', { exact: true }).waitFor();
    await checkScreen(page, 'sign-in');

    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/email or password is wrong/);
    await expectAccessible(page, 'sign-in refused');

    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await nav(page).waitFor();
    expect(await nav(page).getByRole('link').allInnerTexts()).toEqual([...sectionNames]);

    // The viewer's own second factor: a QR code and its key, confirmed by a code of the key.
    await nav(page).getByRole('link', { name: 'Account' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    const secret = (await page.locator('code.secret').innerText()).trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await checkScreen(page, 'account-totp-setup');
    const setupCode = await totpCode(secret);
    await page.getByLabel('Code', { exact: true }).fill(setupCode);
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await expect.poll(() => page.getByText('Two-factor sign-in is on.').count()).toBe(1);

    // The owner's setting for the whole account.
    // Pessimistic: the box shows the server's setting once it answered.
    const requireBox = page.getByLabel('Require two-factor sign-in');
    await requireBox.click();
    await expect.poll(() => page.getByText('Every staff member now signs in with a code.').count()).toBe(1);
    await expect.poll(() => requireBox.isChecked()).toBe(true);
    await requireBox.click();
    await expect.poll(() => page.getByText('A code is no longer required.').count()).toBe(1);
    await expect.poll(() => requireBox.isChecked()).toBe(false);
    await checkScreen(page, 'account');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email', { exact: true }).waitFor();
    expect((await context.cookies()).filter((cookie) => cookie.name.includes('console'))).toEqual([]);

    // Now the password alone is not enough: the code is asked for.
    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    await checkScreen(page, 'sign-in-code');
    // The setup's code was used: the next step's code (accepted within a step of now) signs in.
    await page.getByLabel('Code', { exact: true }).fill(await totpCode(secret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await nav(page).waitFor();

    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lets an owner invite a colleague, who opens the one-time link and chooses a password', { timeout: 120_000 }, async () => {
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const { context, blocked } = await phoneContext(browser, base);
    await addSessionCookie(context, base, cookieOf(owner.cookie));
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${base}/console/staff`);

    const email = `invited-${process.pid}@example.com`;
    await page.getByLabel('Staff email').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('support');
    await page.getByRole('button', { name: 'Invite' }).click();
    const linkField = page.getByLabel(`One-time sign-in link for ${email}`);
    await linkField.waitFor();
    const link = await linkField.inputValue();
    expect(link).toMatch(/\/console\/invite#.+/);
    await checkScreen(page, 'staff-invited');
    const row = page.getByRole('row').filter({ hasText: email });
    expect(await row.getByRole('cell').allInnerTexts()).toContain('Invited');

    const invited = await phoneContext(browser, base);
    const invitedPage = await invited.context.newPage();
    const invitedProblems = watchProblems(invitedPage);
    await invitedPage.goto(link.replace(/^https?:\/\/[^/]+/, base));
    await invitedPage.getByLabel('New password').fill('the invited one’s password');
    await checkScreen(invitedPage, 'invite');
    await invitedPage.getByRole('button', { name: 'Set password and sign in' }).click();
    await nav(invitedPage).waitFor();
    expect(new URL(invitedPage.url()).hash).toBe('');
    expect(await nav(invitedPage).getByRole('link').allInnerTexts()).toEqual(['Fans', 'Segments', 'Dashboard', 'Account']);

    // The owner makes them an analyst: their session ends (a role change signs out), and the list says so.
    await page.reload();
    await page.getByLabel(`Role of ${email}`).selectOption('analyst');
    await expect.poll(() => page.getByText(`${email} is now analyst.`).count()).toBe(1);
    await invitedPage.reload();
    await invitedPage.getByLabel('Email', { exact: true }).waitFor();

    // Removal asks first.
    await page.getByRole('button', { name: `Remove ${email}` }).click();
    await page.getByRole('dialog').waitFor();
    await checkScreen(page, 'staff-remove-dialog');
    await page.getByRole('button', { name: 'Remove from the account' }).click();
    await expect.poll(() => page.getByText(`${email} was removed.`).count()).toBe(1);
    await expect.poll(() => page.getByRole('row').filter({ hasText: email }).count()).toBe(0);

    expect([...blocked, ...invited.blocked]).toEqual([]);
    expect([...problems, ...invitedProblems]).toEqual([]);
    await invited.context.close();
    await context.close();
  });

  it('lets an owner create an API key, shown once, and revoke it after asking', { timeout: 120_000 }, async () => {
    const own = await t.tenant();
    const owner = await signInStaff(t, { accountId: own.accountId, role: 'owner' });
    const [application] = (await consoleGraphql(t, owner, '{ applications { name } }')).body.data.applications;
    const { context, blocked } = await phoneContext(browser, base);
    await addSessionCookie(context, base, cookieOf(owner.cookie));
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${base}/console`);
    await nav(page).getByRole('link', { name: 'Applications' }).click();
    const keys = page.getByRole('table', { name: `API keys of ${application.name}` });
    await keys.waitFor();
    expect(await keys.getByRole('row').count()).toBe(2);
    await checkScreen(page, 'applications');

    await page.getByRole('button', { name: `Create key for ${application.name}` }).click();
    const field = page.getByLabel(`New key for ${application.name}`);
    await field.waitFor();
    const apiKey = await field.inputValue();
    expect(apiKey).toMatch(/^mq_[A-Za-z0-9_-]{43}$/);
    expect(await field.getAttribute('readonly')).not.toBeNull();
    expect(await page.getByText('It will not be shown again').count()).toBe(1);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect.poll(() => page.getByText(/^(Copied\.|Selected: copy it)/).count()).toBe(1);
    await expect.poll(() => keys.getByRole('row').count()).toBe(3);
    const prefix = apiKey.slice(0, 9);
    expect(await keys.getByRole('row').filter({ hasText: prefix }).getByRole('cell').allInnerTexts()).toContain('Live');
    await checkScreen(page, 'applications-new-key');
    expect((await t.graphql(apiKey, '{ application { name } }')).body.data.application.name).toBe(application.name);

    // Revoking asks first; Cancel changes nothing.
    await page.getByRole('button', { name: `Revoke key ${prefix}…` }).click();
    await page.getByRole('dialog').waitFor();
    await checkScreen(page, 'applications-revoke-dialog');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await keys.getByRole('row').filter({ hasText: prefix }).getByRole('cell').allInnerTexts()).toContain('Live');
    await page.getByRole('button', { name: `Revoke key ${prefix}…` }).click();
    await page.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await expect.poll(() => page.getByText(`The key ${prefix}… was revoked.`).count()).toBe(1);
    await expect.poll(async () => (await keys.getByRole('row').filter({ hasText: prefix }).innerText()).includes('Revoked')).toBe(true);
    expect(await page.getByLabel(`New key for ${application.name}`).count()).toBe(0);
    expect(await page.getByRole('button', { name: `Revoke key ${prefix}…` }).count()).toBe(0);
    expect((await t.graphql(apiKey, '{ application { name } }')).body.errors[0].extensions.code).toBe('INVALID_API_KEY');
    expect((await t.graphql(own.apiKey, '{ application { name } }')).body.data.application.name).toBe(application.name);
    await checkScreen(page, 'applications-revoked');

    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lets an owner set how long records are kept, refusing too short a retention before it is sent', { timeout: 120_000 }, async () => {
    const own = await t.tenant();
    const owner = await signInStaff(t, { accountId: own.accountId, role: 'owner' });
    const retention = async () => (await consoleGraphql(t, owner, '{ recordRetention { months } }')).body.data.recordRetention.months;
    const { context, blocked } = await phoneContext(browser, base);
    await addSessionCookie(context, base, cookieOf(owner.cookie));
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${base}/console/account`);
    const section = page.getByRole('region', { name: 'Record retention' });
    await section.getByText('Every activity record is kept.').waitFor();
    const months = section.getByLabel('Months of records to keep');

    // Under the minimum, the browser holds the form back (the server refuses it too: retention.test.ts).
    await months.fill('3');
    await section.getByRole('button', { name: 'Save retention' }).click();
    expect(await months.evaluate((input) => (input as unknown as { validity: { rangeUnderflow: boolean } }).validity.rangeUnderflow)).toBe(true);
    expect(await retention()).toBeNull();

    await months.fill('18');
    await section.getByRole('button', { name: 'Save retention' }).click();
    await section.getByText('Records older than 18 months leave within the hour.').waitFor();
    await section.getByText('Activity records older than 18 months are removed.', { exact: false }).waitFor();
    expect(await retention()).toBe(18);
    await checkScreen(page, 'account-retention');

    await months.fill('');
    await section.getByRole('button', { name: 'Save retention' }).click();
    await section.getByText('Every record is kept.').waitFor();
    expect(await retention()).toBeNull();

    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  // What each role is shown. Hiding is never the control: the same operation sent straight to the
  // server by that role is refused (the server's own per-role tests cover every operation).
  const views: Record<StaffRole, { sections: string[]; requireTotp: boolean }> = {
    owner: { sections: [...sectionNames], requireTotp: true },
    admin: { sections: ['Fans', 'Segments', 'Dashboard', 'Audit log', 'Account'], requireTotp: false },
    support: { sections: ['Fans', 'Segments', 'Dashboard', 'Account'], requireTotp: false },
    analyst: { sections: ['Segments', 'Dashboard', 'Account'], requireTotp: false },
  };

  describe.each(['owner', 'admin', 'support', 'analyst'] as const)('as %s', (role) => {
    it('shows the sections and controls of the role, and the server refuses the rest', { timeout: 120_000 }, async () => {
      const staff = await signInStaff(t, { accountId: (await t.tenant()).accountId, role });
      const { context, blocked } = await phoneContext(browser, base);
      await addSessionCookie(context, base, cookieOf(staff.cookie));
      const page = await context.newPage();
      const problems = watchProblems(page);

      await page.goto(`${base}/console`);
      await nav(page).waitFor();
      expect(await nav(page).getByRole('link').allInnerTexts()).toEqual(views[role].sections);
      // The console opens on the first section the role has.
      expect(new URL(page.url()).pathname).toBe(`/console/${views[role].sections[0] === 'Fans' ? 'fans' : 'segments'}`);

      // Every role has the dashboard and the segments.
      await nav(page).getByRole('link', { name: 'Dashboard' }).click();
      await page.getByRole('img', { name: /Records per day/ }).waitFor();
      await page.getByRole('button', { name: '1 week' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('days')).toBe('7');
      await expect.poll(() => page.getByRole('button', { name: '1 week' }).getAttribute('aria-pressed')).toBe('true');
      await checkScreen(page, `dashboard-${role}`);
      await nav(page).getByRole('link', { name: 'Segments' }).click();
      await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
      await expect.poll(() => page.locator('.loading').count()).toBe(0);
      await checkScreen(page, `segments-${role}`);

      await page.goto(`${base}/console/account`);
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      expect(await page.getByLabel('Require two-factor sign-in').count()).toBe(views[role].requireTotp ? 1 : 0);
      // Every role reads the record retention; only an owner's page has the field that changes it.
      await page.getByRole('region', { name: 'Record retention' }).getByText('Every activity record is kept.').waitFor();
      expect(await page.getByLabel('Months of records to keep').count()).toBe(role === 'owner' ? 1 : 0);
      expect(await page.getByRole('button', { name: 'Change password' }).count()).toBe(1);
      await checkScreen(page, `account-${role}`);

      if (role !== 'owner') {
        const answer = await consoleGraphql(t, staff, '{ staff { id } }');
        expect(answer.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
        // Typed in by hand, the Staff and Applications screens show the server's refusal, not the list.
        for (const screen of ['staff', 'applications']) {
          await page.goto(`${base}/console/${screen}`);
          await expect.poll(() => page.getByRole('alert').count()).toBeGreaterThan(0);
          expect(await page.getByRole('table').count()).toBe(0);
        }
        expect((await consoleGraphql(t, staff, '{ applications { id } }')).body.errors?.[0].extensions.code).toBe('FORBIDDEN');
      } else {
        await page.goto(`${base}/console/staff`);
        await page.getByRole('table', { name: 'Staff of the account' }).waitFor();
        await checkScreen(page, 'staff');
      }

      expect(blocked).toEqual([]);
      // A refusal typed in by hand is a 200 with errors for GraphQL: nothing logged as failed.
      expect(problems).toEqual([]);
      await context.close();
    });
  });
});
