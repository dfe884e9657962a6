import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOutbox, memberEmailLinks, memberServices, members } from '../../src/db/schema/index.js';
import { maxAttempts } from '../../src/modules/email/outbox.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { linkIn, TestSmtpServer, type ReceivedMail } from '../support/smtp.js';
import { CookieJar, csrfTokenOf, submitForm, whitelist } from './support.js';

let t: TestGateway;
let smtp: TestSmtpServer;
const origin = 'https://fans.example.com';
const site = `${origin}/welcome`;
/** Every body the gateway answered, checked at the end for what must never leave it. */
const bodies: string[] = [];

beforeAll(async () => {
  smtp = new TestSmtpServer();
  await smtp.start();
  t = await startTestGateway({ SMTP_URL: smtp.url, MAIL_FROM: 'fans@marquee.test' });
});
afterAll(async () => {
  for (const body of bodies) {
    expect(body).not.toMatch(/\$argon2id\$/);
    expect(body).not.toMatch(/secret_hash|secretHash/);
  }
  await t?.close();
  await smtp?.stop();
});

let counter = 0;
const uniqueEmail = (name = 'fan') => `${name}${++counter}-${process.pid}@example.com`;

async function tenant(): Promise<Tenant> {
  const created = await t.tenant('advanced');
  await whitelist(t, created, 'fans.example.com');
  return created;
}

/** A fan registered through the hosted page: signed in on this browser (the jar). */
async function registered(app: Tenant, email = uniqueEmail()) {
  const jar = new CookieJar();
  const page = `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent(site)}`;
  const response = await submitForm(t, jar, page, { email, password: 'correct horse' });
  expect(response.statusCode, response.body).toBe(303);
  const [member] = await t.database.db
    .select()
    .from(members)
    .where(and(eq(members.accountId, app.accountId), eq(members.email, email)));
  return { email, jar, member };
}

/** What the page's script posts: a simple form post from a whitelisted origin, with the fan's cookies. */
async function framework(app: Tenant, path: string, fields: Record<string, string>, jar?: CookieJar, from = origin) {
  const response = await t.request({
    method: 'POST',
    url: `/framework/${app.applicationId}/${path}`,
    headers: { origin: from, 'content-type': 'application/x-www-form-urlencoded', ...(jar ? { cookie: jar.header() } : {}) },
    payload: new URLSearchParams(fields).toString(),
  });
  bodies.push(response.body);
  return response;
}

/** Every message the requests so far caused, sent: the background work finished, the outbox drained. */
async function delivered(address: string): Promise<ReceivedMail[]> {
  await t.gateway.mail.drain();
  return smtp.to(address);
}

async function outboxOf(app: Tenant, recipient: string) {
  return t.database.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.accountId, app.accountId), eq(emailOutbox.recipient, recipient)));
}

async function passwordHashOf(app: Tenant, email: string) {
  const [row] = await t.database.db
    .select({ hash: memberServices.passwordHash })
    .from(memberServices)
    .where(and(eq(memberServices.accountId, app.accountId), eq(memberServices.network, 'email'), eq(memberServices.uid, email)));
  return row.hash;
}

async function signedInUser(app: Tenant, jar: CookieJar) {
  const response = await t.request({ url: `/framework/session/${app.applicationId}`, headers: { origin, cookie: jar.header() } });
  return response.json().user;
}

async function signIn(app: Tenant, email: string, password: string) {
  return submitForm(t, new CookieJar(), `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}`, { email, password });
}

/** Opens a link as a browser does, keeping cookies; answers the page. */
async function open(link: URL, jar = new CookieJar()) {
  const response = await t.request({ url: link.pathname + link.search, headers: { cookie: jar.header() } });
  jar.absorb(response);
  bodies.push(response.body);
  return response;
}

async function memberRow(app: Tenant, id: number) {
  const [row] = await t.database.db
    .select()
    .from(members)
    .where(and(eq(members.accountId, app.accountId), eq(members.id, id)));
  return row;
}

/** Opens a verification link and presses its button (the page's form, with its CSRF token). */
async function confirm(link: URL) {
  const response = await submitForm(t, new CookieJar(), link.pathname + link.search, { token: link.searchParams.get('token')! });
  bodies.push(response.body);
  return response;
}

/** The links of a page's ways on (sign in, back to the site, ask for a new email), as URLs. */
function linksOf(body: string): string[] {
  const ways = /<ul class="ways">(.*?)<\/ul>/s.exec(body)?.[1] ?? '';
  return [...ways.matchAll(/href="([^"]+)"/g)].map((match) => match[1].replace(/&amp;/g, '&'));
}

/** A link as the gateway's path and query; the site's own links (the return URL) as they are. */
const pathOf = (href: string) => (href.startsWith(origin) ? href : new URL(href).pathname + new URL(href).search);

/** Posts the reset page's form with a new password. */
async function setPassword(link: URL, password: string) {
  const jar = new CookieJar();
  const page = await open(link, jar);
  expect(page.statusCode, page.body).toBe(200);
  const token = /name="token" value="([^"]+)"/.exec(page.body)![1];
  const returnUrl = /name="return" value="([^"]+)"/.exec(page.body)?.[1].replace(/&amp;/g, '&');
  const response = await t.request({
    method: 'POST',
    url: link.pathname,
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrfTokenOf(page.body), token, password, ...(returnUrl ? { return: returnUrl } : {}) }).toString(),
  });
  bodies.push(response.body);
  return { response, token, jar, csrf: csrfTokenOf(page.body) };
}

describe('password reset by email', () => {
  it('sends a link through the SMTP server that sets a new password once, ends the other sessions and lets the fan sign in', async () => {
    const app = await tenant();
    const { email, jar } = await registered(app);
    expect(await signedInUser(app, jar)).not.toBeNull();

    const asked = await framework(app, 'reset-password', { email, return: site });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json()).toEqual({ sent: true });
    expect(asked.headers['access-control-allow-origin']).toBe(origin);

    const [mail] = await delivered(email);
    expect(mail.from).toBe('fans@marquee.test');
    expect(mail.raw).toMatch(/^From: "?app-\d+"? <fans@marquee\.test>/m);
    expect(mail.subject).toMatch(/^Choose a new password for app-\d+$/);
    const link = linkIn(mail);
    expect(link.pathname).toBe(`/framework/flow/${app.applicationId}/reset-password`);
    expect(link.searchParams.get('return')).toBe(site);
    // Only the secret's digest is stored: the link's token is nowhere in the database.
    const secret = link.searchParams.get('token')!.split('.')[1];
    const [stored] = await t.database.db.select().from(memberEmailLinks).where(eq(memberEmailLinks.accountId, app.accountId));
    expect(stored.secretHash).not.toContain(secret);
    expect((await outboxOf(app, email))[0]).toMatchObject({ status: 'sent', body: '', attempts: 1 });

    const { response } = await setPassword(link, 'a brand new horse');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).toContain('Your password is changed');
    expect(response.body).toContain(`/framework/flow/${app.applicationId}/login?return=`);

    // The browser that was signed in is signed out; the old password fails, the new one works.
    expect(await signedInUser(app, jar)).toBeNull();
    expect((await signIn(app, email, 'correct horse')).statusCode).toBe(401);
    const signedIn = await signIn(app, email, 'a brand new horse');
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toMatch(/^https:\/\/fans\.example\.com\/welcome\?accesstoken=/);

    // Used: the page says so, and posting again changes nothing.
    const hash = await passwordHashOf(app, email);
    const again = await open(link);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('This link has been used already');
    expect(again.body).toContain('Error code 15');
    expect(await passwordHashOf(app, email)).toBe(hash);
  });

  it('answers an unknown address exactly as a registered one, and sends nothing', async () => {
    const app = await tenant();
    const { email } = await registered(app);
    const unknown = uniqueEmail('nobody');
    const known = await framework(app, 'reset-password', { email });
    const missing = await framework(app, 'reset-password', { email: unknown });
    expect(missing.statusCode).toBe(known.statusCode);
    expect(missing.body).toBe(known.body);
    const headersOf = (response: typeof known) =>
      Object.keys(response.headers)
        .filter((name) => !/^(date|x-request-id|ratelimit-remaining)$/i.test(name))
        .sort();
    expect(headersOf(missing)).toEqual(headersOf(known));
    expect(await delivered(unknown)).toEqual([]);
    expect(await outboxOf(app, unknown)).toEqual([]);
    expect(await delivered(email)).toHaveLength(1);

    // The hosted "Forgot your password?" page, the same way.
    const pageOf = async (address: string) => {
      const jar = new CookieJar();
      const form = await t.request({ url: `/framework/flow/${app.applicationId}/forgot-password` });
      jar.absorb(form);
      expect(form.statusCode).toBe(200);
      const response = await t.request({
        method: 'POST',
        url: `/framework/flow/${app.applicationId}/forgot-password`,
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrfTokenOf(form.body), email: address }).toString(),
      });
      return { status: response.statusCode, body: response.body.replaceAll(address, '<address>') };
    };
    expect(await pageOf(unknown)).toEqual(await pageOf(email));
    expect(await delivered(unknown)).toEqual([]);
    expect(await delivered(email)).toHaveLength(2);
  });

  it('limits a flood per address (code 6) and per member (silently), sending at most three emails', async () => {
    const app = await tenant();
    const { email } = await registered(app);
    const answers = [];
    for (let i = 0; i < 6; i += 1) answers.push(await framework(app, 'reset-password', { email }));
    expect(answers.slice(0, 5).map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[5].statusCode).toBe(429);
    expect(answers[5].json().error).toMatchObject({ code: 6, type: 'RATE_LIMITED' });
    // When to ask again, as every refusal of the kind says it (core/errors.ts, rateLimited).
    expect(Number(answers[5].headers['retry-after'])).toBeGreaterThan(0);
    expect(await delivered(email)).toHaveLength(3);
    // An unknown address is refused at the same point: the refusal tells nothing either.
    const unknown = uniqueEmail('nobody');
    const statuses = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await framework(app, 'reset-password', { email: unknown })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('refuses an expired link, a forged one and another application’s, changing nothing', async () => {
    const app = await tenant();
    const other = await tenant();
    const { email } = await registered(app);
    await framework(app, 'reset-password', { email });
    const [mail] = await delivered(email);
    const link = linkIn(mail);
    const hash = await passwordHashOf(app, email);

    // Another application (another account) with the same token: not a link of it.
    const elsewhere = new URL(link);
    elsewhere.pathname = `/framework/flow/${other.applicationId}/reset-password`;
    expect((await open(elsewhere)).statusCode).toBe(400);
    // A forged secret for the right id, and a malformed token.
    const forged = new URL(link);
    forged.searchParams.set('token', `${link.searchParams.get('token')!.split('.')[0]}.${'A'.repeat(43)}`);
    const forgedPage = await open(forged);
    expect(forgedPage.statusCode).toBe(400);
    expect(forgedPage.body).toContain('This link is not valid');
    forged.searchParams.set('token', '99999999999.x');
    expect((await open(forged)).statusCode).toBe(400);

    // Expired: the page says so, and a post (with a form loaded while it was valid) changes nothing.
    const jar = new CookieJar();
    const form = await open(link, jar);
    await t.database.db
      .update(memberEmailLinks)
      .set({ expiresAt: sql`now() - interval '1 minute'` })
      .where(eq(memberEmailLinks.accountId, app.accountId));
    const expired = await open(link);
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('This link has expired');
    const posted = await t.request({
      method: 'POST',
      url: link.pathname,
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrfTokenOf(form.body), token: link.searchParams.get('token')!, password: 'another new horse' }).toString(),
    });
    expect(posted.statusCode).toBe(410);
    expect(await passwordHashOf(app, email)).toBe(hash);
  });

  it('refuses a too short new password on the page, keeping the link usable', async () => {
    const app = await tenant();
    const { email } = await registered(app);
    await framework(app, 'reset-password', { email });
    const link = linkIn((await delivered(email))[0]);
    const { response } = await setPassword(link, 'short');
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Choose a password of at least');
    expect((await setPassword(link, 'long enough now')).response.statusCode).toBe(200);
  });

  it('refuses a malformed address (code 4), a page off the whitelist (code 16) and a return URL off it, queuing nothing', async () => {
    const app = await tenant();
    const malformed = await framework(app, 'reset-password', { email: 'not an address' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toMatchObject({ code: 4, param: 'email' });
    const { email } = await registered(app);
    const offPage = await framework(app, 'reset-password', { email }, undefined, 'https://evil.example.net');
    expect(offPage.statusCode).toBe(403);
    expect(offPage.json().error.code).toBe(16);
    const offReturn = await framework(app, 'reset-password', { email, return: 'https://evil.example.net/' });
    expect(offReturn.statusCode).toBe(403);
    expect(offReturn.json().error).toMatchObject({ code: 16, param: 'return' });
    await t.gateway.mail.drain();
    expect(await outboxOf(app, email)).toEqual([]);
  });
});

describe('email verification', () => {
  it('sends the signed-in fan a link that confirms the address once, then returns to the site', async () => {
    const app = await tenant();
    const { email, jar, member } = await registered(app);
    expect(member.verifiedEmail).toBeNull();
    const sent = await framework(app, 'verify-email/send', { return: site }, jar);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toEqual({ sent: true, EmailAddress: email });

    const [mail] = await delivered(email);
    expect(mail.subject).toMatch(/^Confirm your email address for app-\d+$/);
    expect(mail.text).toContain('expires in 72 hours');
    const link = linkIn(mail);
    // Opening it shows the button that confirms, and changes nothing.
    const page = await open(link);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Confirm my email address');
    expect((await memberRow(app, member.id)).verifiedEmail).toBeNull();
    const confirmed = await confirm(link);
    expect(confirmed.statusCode, confirmed.body).toBe(303);
    expect(confirmed.headers.location).toBe(`${site}?email_verified=1`);
    const row = await memberRow(app, member.id);
    expect(row.verifiedEmail).toBe(email);
    expect(row.emailVerifiedAt).not.toBeNull();

    const reused = await open(link);
    expect(reused.statusCode).toBe(410);
    expect(reused.body).toContain('This link has been used already');
  });

  it('a link opened by GET changes nothing; confirming an address another member holds shows the 1111 page and merges nothing', async () => {
    const app = await tenant();
    const victimEmail = uniqueEmail('victim');
    // The victim signed up with a network and the application verified the address.
    const [victim] = (await t.rest(app, 'POST', '/member/register', { service: 'soundcloud', authtoken: 'sc', uid: `sc-${counter}-${process.pid}`, email: victimEmail })).json;
    expect((await t.rest(app, 'POST', `/member/${victim.data.ID}/verify`, { service: 'soundcloud', verified_email: victimEmail })).status).toBe(200);

    // The attacker registers the address on the hosted form, and asks for a verification email.
    const jar = new CookieJar();
    const form = await submitForm(t, jar, `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent(site)}`, { email: victimEmail, password: 'attacker horse' });
    expect(form.statusCode, form.body).toBe(303);
    const [identity] = await t.database.db
      .select()
      .from(memberServices)
      .where(and(eq(memberServices.accountId, app.accountId), eq(memberServices.network, 'email'), eq(memberServices.uid, victimEmail)));
    const attackerId = identity.memberId;
    expect(attackerId).not.toBe(victim.data.ID);
    expect((await framework(app, 'verify-email/send', { return: site }, jar)).statusCode).toBe(200);
    const link = linkIn((await delivered(victimEmail))[0]);

    // The victim (or their mail scanner) opens the link: a page with a button; nothing changes.
    const opened = await open(link);
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.body).toContain('Confirm my email address');
    const unchanged = async () => {
      expect(await memberRow(app, attackerId)).toMatchObject({ mergedIntoId: null, verifiedEmail: null, emailVerifiedAt: null });
      expect(await memberRow(app, victim.data.ID)).toMatchObject({ mergedIntoId: null, verifiedEmail: victimEmail });
      const [stored] = await t.database.db.select().from(memberEmailLinks).where(eq(memberEmailLinks.accountId, app.accountId));
      expect(stored.usedAt).toBeNull();
    };
    await unchanged();

    // Confirming: refused with the collision page, a way to sign in, and nothing written.
    const confirmed = await confirm(link);
    expect(confirmed.statusCode, confirmed.body).toBe(409);
    expect(confirmed.body).toContain('This address already belongs to an account');
    expect(confirmed.body).toContain('Error code 1111');
    expect(linksOf(confirmed.body).map(pathOf)).toContain(`/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}`);
    await unchanged();
    // The attacker's password signs in as the attacker's member only.
    const login = await t.rest(app, 'POST', '/member/login', { service: 'email', email: victimEmail, password: 'attacker horse' });
    expect(login.json.data.ID).toBe(attackerId);
    // Through the API the same token answers EMAIL_IN_USE, and the link stays unspent.
    const api = await t.graphql(app.apiKey, `mutation($token: String!) { completeEmailVerification(token: $token) { member { id } } }`, { token: link.searchParams.get('token') });
    expect(api.body.errors[0].extensions).toMatchObject({ code: 'EMAIL_IN_USE', aeCode: 1111 });
    await unchanged();
  });

  it('answers code 15 without a signed-in fan, and refuses a link once the address changed', async () => {
    const app = await tenant();
    const anonymous = await framework(app, 'verify-email/send', {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toMatchObject({ code: 15, param: 'session' });

    const { email, jar, member } = await registered(app);
    await framework(app, 'verify-email/send', {}, jar);
    const link = linkIn((await delivered(email))[0]);
    await t.database.db
      .update(members)
      .set({ email: uniqueEmail('moved') })
      .where(and(eq(members.accountId, app.accountId), eq(members.id, member.id)));
    const page = await open(link);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('no longer uses');
    const [row] = await t.database.db
      .select()
      .from(members)
      .where(and(eq(members.accountId, app.accountId), eq(members.id, member.id)));
    expect(row.verifiedEmail).toBeNull();
  });
});

describe('the pages of the emailed links lead somewhere', () => {
  /** Each link of the page's ways on: the site's is the return URL; every one of the gateway's opens (200). */
  async function expectWays(body: string, expected: string[]) {
    const links = linksOf(body);
    expect(links.map(pathOf)).toEqual(expected);
    for (const href of links.filter((link) => !link.startsWith(origin))) {
      const response = await t.request({ url: pathOf(href) });
      expect(response.statusCode, `${href}: ${response.body}`).toBe(200);
    }
  }

  it('"Reset your password", "Check your email" and a refused reset link: sign in, the site, a new email', async () => {
    const app = await tenant();
    const flow = `/framework/flow/${app.applicationId}`;
    const back = `return=${encodeURIComponent(site)}`;
    const { email } = await registered(app);

    const forgot = await t.request({ url: `${flow}/forgot-password?${back}` });
    expect(forgot.body).toContain('Reset your password');
    await expectWays(forgot.body, [`${flow}/login?${back}`, site]);
    // Opened without a return URL: sign-in only, and no way to a site it does not know.
    await expectWays((await t.request({ url: `${flow}/forgot-password` })).body, [`${flow}/login`]);

    const sent = await submitForm(t, new CookieJar(), `${flow}/forgot-password?${back}`, { email });
    expect(sent.body).toContain('Check your email');
    await expectWays(sent.body, [`${flow}/forgot-password?${back}`, `${flow}/login?${back}`, site]);

    const link = linkIn((await delivered(email))[0]);
    const form = await open(link);
    expect(form.body).toContain('Choose a new password');
    await expectWays(form.body, [`${flow}/login?${back}`, site]);
    const forged = new URL(link);
    forged.searchParams.set('token', `${link.searchParams.get('token')!.split('.')[0]}.${'A'.repeat(43)}`);
    const refused = await open(forged);
    expect(refused.body).toContain('This link does not work');
    expect(refused.body).toContain('Ask for a new email');
    await expectWays(refused.body, [`${flow}/forgot-password?${back}`, `${flow}/login?${back}`, site]);
    await t.database.db
      .update(memberEmailLinks)
      .set({ expiresAt: sql`now() - interval '1 minute'` })
      .where(eq(memberEmailLinks.accountId, app.accountId));
    const expired = await open(link);
    expect(expired.body).toContain('This link has expired');
    await expectWays(expired.body, [`${flow}/forgot-password?${back}`, `${flow}/login?${back}`, site]);
  });

  it('the verification pages: confirm, a used link, confirmed without a site', async () => {
    const app = await tenant();
    const flow = `/framework/flow/${app.applicationId}`;
    const back = `return=${encodeURIComponent(site)}`;
    const { email, jar, member } = await registered(app);
    await framework(app, 'verify-email/send', { return: site }, jar);
    const link = linkIn((await delivered(email))[0]);
    const page = await open(link);
    await expectWays(page.body, [`${flow}/login?${back}`, site]);
    expect((await confirm(link)).statusCode).toBe(303);
    // Used: a new verification is asked for from the site once signed in, so the sign-in page that returns there.
    const used = await open(link);
    expect(used.body).toContain('This link does not work');
    await expectWays(used.body, [`${flow}/login?${back}`, site]);

    // A link without a return URL (asked through the API): the confirmed page leads to sign-in.
    await t.database.db
      .update(members)
      .set({ verifiedEmail: null })
      .where(and(eq(members.accountId, app.accountId), eq(members.id, member.id)));
    expect((await t.graphql(app.apiKey, `mutation($id: ID!) { sendVerificationEmail(id: $id) }`, { id: String(member.id) })).body.data.sendVerificationEmail).toBe(true);
    const bare = linkIn((await delivered(email))[1]);
    expect(bare.searchParams.get('return')).toBeNull();
    const done = await confirm(bare);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.body).toContain('Your email address is confirmed');
    await expectWays(done.body, [`${flow}/login`]);
    const again = await open(bare);
    expect(again.body).toContain('This link does not work');
    await expectWays(again.body, [`${flow}/login`]);
  });
});

describe('emails through GraphQL', () => {
  const request = `mutation($email: String!) { requestPasswordReset(email: $email) }`;
  const verify = `mutation($id: ID!) { sendVerificationEmail(id: $id) }`;

  it('sends both with the application’s sender name and templates, and completes them with the tokens', async () => {
    const app = await tenant();
    const { email, member } = await registered(app);
    const set = await t.graphql(app.apiKey, `mutation($input: EmailSettingsInput!) { setEmailSettings(input: $input) { emailSettings { senderName resetPassword { subject } verifyEmail { subject } } } }`, {
      input: { senderName: 'The Band', resetPassword: { subject: 'New password for {{username}}', body: 'Hi {{firstName}}, go to {{link}} within {{expires}}.' } },
    });
    expect(set.body.errors).toBeUndefined();
    expect(set.body.data.setEmailSettings.emailSettings).toEqual({
      senderName: 'The Band',
      resetPassword: { subject: 'New password for {{username}}' },
      verifyEmail: { subject: 'Confirm your email address for {{application}}' },
    });

    expect((await t.graphql(app.apiKey, request, { email })).body.data.requestPasswordReset).toBe(true);
    const [mail] = await delivered(email);
    expect(mail.raw).toMatch(/^From: "?The Band"? <fans@marquee\.test>/m);
    // {{username}} no longer says the username: the first name, or (none here) the address.
    expect(mail.subject).toBe(`New password for ${email}`);
    expect(mail.text.trim()).toMatch(/^Hi , go to http:\/\/\S+ within 1 hour\.$/);
    const token = linkIn(mail).searchParams.get('token')!;
    const done = await t.graphql(app.apiKey, `mutation($token: String!, $password: String!) { completePasswordReset(token: $token, password: $password) { member { id } jwt } }`, {
      token,
      password: 'set by the api',
    });
    expect(done.body.data.completePasswordReset.member.id).toBe(String(member.id));
    const again = await t.graphql(app.apiKey, `mutation($token: String!) { completePasswordReset(token: $token, password: "and once more") { jwt } }`, { token });
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', aeCode: 15 });

    expect((await t.graphql(app.apiKey, verify, { id: String(member.id) })).body.data.sendVerificationEmail).toBe(true);
    const verifyMail = (await delivered(email)).find((received) => received.subject.startsWith('Confirm'))!;
    const verified = await t.graphql(app.apiKey, `mutation($token: String!) { completeEmailVerification(token: $token) { member { verifiedEmail } } }`, {
      token: linkIn(verifyMail).searchParams.get('token'),
    });
    expect(verified.body.data.completeEmailVerification.member.verifiedEmail).toBe(email);
  });

  it("answers another account's member and token as unknown, and refuses a template without {{link}}, changing nothing", async () => {
    const app = await tenant();
    const other = await tenant();
    const { email, member } = await registered(app);
    const elsewhere = await t.graphql(other.apiKey, verify, { id: String(member.id) });
    expect(elsewhere.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // A reset of another account's member's address, asked by this account: nothing is sent.
    expect((await t.graphql(other.apiKey, request, { email })).body.data.requestPasswordReset).toBe(true);
    expect(await delivered(email)).toEqual([]);

    await t.graphql(app.apiKey, request, { email });
    const token = linkIn((await delivered(email))[0]).searchParams.get('token')!;
    const taken = await t.graphql(other.apiKey, `mutation($token: String!) { completePasswordReset(token: $token, password: "not yours at all") { jwt } }`, { token });
    expect(taken.body.errors[0].extensions.code).toBe('INVALID_TOKEN');

    const bad = await t.graphql(app.apiKey, `mutation { setEmailSettings(input: { verifyEmail: { subject: "Hi", body: "no link here" } }) { id } }`);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'verifyEmail.body' });
    const unknown = await t.graphql(app.apiKey, `mutation { setEmailSettings(input: { resetPassword: { subject: "Hi", body: "{{link}} {{password}}" } }) { id } }`);
    expect(unknown.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
    const shown = await t.graphql(app.apiKey, `{ application { emailSettings { senderName verifyEmail { body } } } }`);
    expect(shown.body.data.application.emailSettings.senderName).toMatch(/^app-\d+$/);
    expect(shown.body.data.application.emailSettings.verifyEmail.body).toContain('{{link}}');
  });
});

describe('the outbox worker', () => {
  it('retries a message the server refuses, with a growing delay, and gives up after a bounded number of attempts', async () => {
    const app = await tenant();
    const { email } = await registered(app);
    smtp.failNext = 1;
    await t.graphql(app.apiKey, `mutation($email: String!) { requestPasswordReset(email: $email) }`, { email });
    expect(await delivered(email)).toEqual([]);
    const [first] = await outboxOf(app, email);
    expect(first).toMatchObject({ status: 'pending', attempts: 1 });
    expect(first.lastError).toContain('451');
    expect(first.nextAttemptAt.getTime()).toBeGreaterThan(first.createdAt.getTime());

    // Due again (the delay spent), then sent.
    await t.database.db
      .update(emailOutbox)
      .set({ nextAttemptAt: sql`now()` })
      .where(eq(emailOutbox.accountId, app.accountId));
    expect(await delivered(email)).toHaveLength(1);
    expect((await outboxOf(app, email))[0]).toMatchObject({ status: 'sent', attempts: 2, body: '' });

    // A message on its last attempt that fails is given up, its body (with the link) dropped.
    const second = uniqueEmail();
    await registered(app, second);
    smtp.failNext = 1;
    await t.graphql(app.apiKey, `mutation($email: String!) { requestPasswordReset(email: $email) }`, { email: second });
    await t.gateway.mail.drain();
    await t.database.db
      .update(emailOutbox)
      .set({ nextAttemptAt: sql`now()`, attempts: maxAttempts - 1 })
      .where(and(eq(emailOutbox.accountId, app.accountId), eq(emailOutbox.recipient, second)));
    smtp.failNext = 1;
    expect(await delivered(second)).toEqual([]);
    expect((await outboxOf(app, second))[0]).toMatchObject({ status: 'failed', attempts: maxAttempts, body: '' });
  });
});

describe('logout with return_url', () => {
  it('follows a whitelisted return_url (auth_method ignored), and refuses one off the whitelist with the session kept', async () => {
    const app = await tenant();
    const { jar } = await registered(app);
    const logout = (query: string) => t.request({ url: `/framework/flow/${app.applicationId}/logout?${query}`, headers: { cookie: jar.header() } });
    const refused = await logout(`auth_method=direct&return_url=${encodeURIComponent('https://evil.example.net/')}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Error code 16');
    expect(await signedInUser(app, jar)).not.toBeNull();
    // The link asks; the page's "Sign out" button (a POST with its CSRF token) signs out and goes back.
    const done = await submitForm(t, jar, `/framework/flow/${app.applicationId}/logout?auth_method=direct&return_url=${encodeURIComponent(`${site}?bye=1`)}`, {});
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`${site}?bye=1`);
    jar.absorb(done);
    expect(await signedInUser(app, jar)).toBeNull();
  });
});
