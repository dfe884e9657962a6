import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOutbox, memberEmailLinks } from '../../src/db/schema/index.js';
import { issueEmailLink } from '../../src/modules/email/email-links.js';
import { createApplication } from '../../src/modules/tenancy/tenancy.service.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { linkIn, TestSmtpServer } from '../support/smtp.js';
import { CookieJar, csrfTokenOf } from '../widget/support.js';

/**
 * Emailed links end when they should (docs/widget.md, "Emails"): a reset link asked for before a
 * password change through the API, a revocation of the member's sessions, a merge, or an address
 * changed away and back opens on "This link does not work" and sets nothing; and a link raced by a
 * reset never leaves its password in place.
 */

let t: TestGateway;
let smtp: TestSmtpServer;
let app: Tenant;

beforeAll(async () => {
  smtp = new TestSmtpServer();
  await smtp.start();
  t = await startTestGateway({ SMTP_URL: smtp.url, MAIL_FROM: 'fans@marquee.test' });
  app = await t.tenant('advanced');
});
afterAll(async () => {
  await t?.close();
  await smtp?.stop();
});

let counter = 0;
const uniqueEmail = (name = 'link') => `${name}${++counter}-${process.pid}@example.com`;

/** A fan registered through the API with an email and a password. */
async function fan(password = 'correct horse') {
  const email = uniqueEmail();
  const registered = await t.rest(app, 'POST', '/member/register', { service: 'email', email, password });
  expect(registered.status, registered.body).toBe(200);
  const [envelope] = registered.json;
  const serviceId = envelope.services.find((service: { Service: string }) => service.Service === 'email').ID as number;
  return { id: envelope.data.ID as number, email, serviceId, accessToken: envelope.data.AccessToken as string };
}

/** The reset link the fan asks for, as the email delivers it. */
async function resetLink(email: string): Promise<URL> {
  const asked = await t.graphql(app.apiKey, 'mutation($email: String!) { requestPasswordReset(email: $email) }', { email });
  expect(asked.body.errors).toBeUndefined();
  await t.gateway.mail.drain();
  const mails = smtp.to(email);
  return linkIn(mails[mails.length - 1]);
}

/** The reset page opened while the link works: the form a fan (or whoever holds the email) posts later. */
async function openForm(link: URL) {
  const jar = new CookieJar();
  const page = await t.request({ url: link.pathname + link.search });
  jar.absorb(page);
  expect(page.statusCode, page.body).toBe(200);
  return { jar, csrf: csrfTokenOf(page.body), token: link.searchParams.get('token')! };
}

async function postForm(link: URL, form: Awaited<ReturnType<typeof openForm>>, password: string) {
  return t.request({
    method: 'POST',
    url: link.pathname,
    headers: { cookie: form.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: form.csrf, token: form.token, password }).toString(),
  });
}

const signsIn = async (email: string, password: string) => (await t.rest(app, 'POST', '/member/login', { service: 'email', email, password })).status === 200;

/** The link is refused on opening and on posting, and its password never signs in. */
async function expectLinkEnded(link: URL, form: Awaited<ReturnType<typeof openForm>>, email: string, stillWorks: string) {
  const opened = await t.request({ url: link.pathname + link.search });
  expect(opened.statusCode).toBe(410);
  expect(opened.body).toContain('This link does not work');
  expect(opened.body).toContain('Error code 15');
  const posted = await postForm(link, form, 'set by an old link');
  expect(posted.statusCode).toBe(410);
  expect(posted.body).toContain('This link does not work');
  // Through GraphQL too: INVALID_TOKEN, nothing set.
  const api = await t.graphql(app.apiKey, 'mutation($token: String!) { completePasswordReset(token: $token, password: "set by the api link") { jwt } }', { token: form.token });
  expect(api.body.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', aeCode: 15 });
  expect(await signsIn(email, 'set by an old link')).toBe(false);
  expect(await signsIn(email, 'set by the api link')).toBe(false);
  expect(await signsIn(email, stillWorks)).toBe(true);
}

describe('a reset link asked for before', () => {
  it('a password reset through the API opens on "This link does not work" and sets nothing', async () => {
    const member = await fan();
    const link = await resetLink(member.email);
    const form = await openForm(link);
    const reset = await t.rest(app, 'POST', `/member/${member.id}/reset`, { email: member.email, password: 'chosen by the application', member_service_id: member.serviceId });
    expect(reset.status, reset.body).toBe(200);
    await expectLinkEnded(link, form, member.email, 'chosen by the application');
  });

  it('a password set by registering the email identity again (member/[id]/register), the same', async () => {
    const member = await fan();
    const link = await resetLink(member.email);
    const form = await openForm(link);
    const attached = await t.rest(app, 'POST', `/member/${member.id}/register`, { service: 'email', email: member.email, password: 'attached again' });
    expect(attached.status, attached.body).toBe(200);
    await expectLinkEnded(link, form, member.email, 'attached again');
  });

  it('a revocation of the member’s sessions, the same', async () => {
    const member = await fan();
    const link = await resetLink(member.email);
    const form = await openForm(link);
    const revoked = await t.rest(app, 'POST', `/member/${member.id}/sessions/revoke`);
    expect(revoked.status, revoked.body).toBe(200);
    await expectLinkEnded(link, form, member.email, 'correct horse');
  });

  it('the address changed away and back, the same; and a verification link of it too', async () => {
    const member = await fan();
    const link = await resetLink(member.email);
    const form = await openForm(link);
    const verify = await t.graphql(app.apiKey, 'mutation($id: ID!) { sendVerificationEmail(id: $id) }', { id: String(member.id) });
    expect(verify.body.errors).toBeUndefined();
    await t.gateway.mail.drain();
    const verifyToken = linkIn(smtp.to(member.email).find((mail) => mail.subject.startsWith('Confirm'))!).searchParams.get('token');

    const away = await t.rest(app, 'POST', `/member/${member.id}/update`, { email: uniqueEmail('elsewhere') });
    expect(away.status, away.body).toBe(200);
    const back = await t.rest(app, 'POST', `/member/${member.id}/update`, { email: member.email });
    expect(back.status, back.body).toBe(200);
    expect(back.json.data.Email).toBe(member.email);
    await expectLinkEnded(link, form, member.email, 'correct horse');
    const verified = await t.graphql(app.apiKey, 'mutation($token: String!) { completeEmailVerification(token: $token) { member { verifiedEmail } } }', { token: verifyToken });
    expect(verified.body.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', aeCode: 15 });
  });

  it('a merge, for both members', async () => {
    const survivor = await fan('survivor horse');
    const merged = await fan('merged horse');
    const survivorLink = await resetLink(survivor.email);
    const mergedLink = await resetLink(merged.email);
    const survivorForm = await openForm(survivorLink);
    const mergedForm = await openForm(mergedLink);
    const merge = await t.rest(app, 'POST', `/member/${survivor.id}/merge`, { from: merged.id, accesstoken: merged.accessToken });
    expect(merge.status, merge.body).toBe(200);
    await expectLinkEnded(survivorLink, survivorForm, survivor.email, 'survivor horse');
    await expectLinkEnded(mergedLink, mergedForm, merged.email, 'merged horse');
  });

  it('a link used to set a password: the member’s other links end with it', async () => {
    const member = await fan();
    const first = await resetLink(member.email);
    const second = await resetLink(member.email);
    const form = await openForm(second);
    const used = await postForm(first, await openForm(first), 'set by the first link');
    expect(used.statusCode, used.body).toBe(200);
    await expectLinkEnded(second, form, member.email, 'set by the first link');
  });

  it('a link stored before links carried a generation works no more', async () => {
    const member = await fan();
    const link = await resetLink(member.email);
    const form = await openForm(link);
    await t.database.db
      .update(memberEmailLinks)
      .set({ sessionGeneration: null })
      .where(and(eq(memberEmailLinks.accountId, app.accountId), eq(memberEmailLinks.memberId, member.id)));
    await expectLinkEnded(link, form, member.email, 'correct horse');
  });

  it('nothing of the above: the link sets the password once', async () => {
    const member = await fan();
    const link = await resetLink(member.email);
    const posted = await postForm(link, await openForm(link), 'set by the link');
    expect(posted.statusCode, posted.body).toBe(200);
    expect(await signsIn(member.email, 'set by the link')).toBe(true);
    expect(await signsIn(member.email, 'correct horse')).toBe(false);
  });
});

describe('a reset link raced by a reset through the API', () => {
  it('never leaves the link’s password in place: the API’s new password signs in after every round', async () => {
    const rounds = 20;
    for (let round = 0; round < rounds; round += 1) {
      const member = await fan();
      // Issued as sendLink issues it (the emails' budgets would stop a loop of requests).
      const token = await issueEmailLink(t.database.db, { accountId: app.accountId, applicationId: app.applicationId, memberId: member.id, email: member.email }, 'reset');
      const [viaLink, viaApi] = await Promise.all([
        t.graphql(app.apiKey, 'mutation($token: String!) { completePasswordReset(token: $token, password: "set by the link") { jwt } }', { token }),
        t.rest(app, 'POST', `/member/${member.id}/reset`, { email: member.email, password: 'set by the api', member_service_id: member.serviceId }),
      ]);
      expect(viaApi.status, viaApi.body).toBe(200);
      if (viaLink.body.errors) expect(viaLink.body.errors[0].extensions.code).toBe('INVALID_TOKEN');
      // Whichever ran first, the API's reset is the last word: the link either ran before it or not at all.
      expect(await signsIn(member.email, 'set by the link'), `round ${round}`).toBe(false);
      expect(await signsIn(member.email, 'set by the api'), `round ${round}`).toBe(true);
    }
  }, 180_000);
});

describe('the brand’s mail', () => {
  const username = 'Hi\nClaim your prize at http://evil.example';
  /** What must never reach a message: the username and everything of a first name past its first line. */
  const forbidden = [/Claim/i, /prize/i, /evil/i, /http:\/\/evil/i, /<b>|&lt;b&gt;/i, /now!/i, /www\./i, /script/i];

  /** A member registered through the API with this first name and a username a phisher would choose. */
  async function registrant(tenant: Tenant, firstname: string) {
    const email = uniqueEmail('brand');
    const registered = await t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', firstname, username });
    expect(registered.status, registered.body).toBe(200);
    return { id: registered.json[0].data.ID as number, email };
  }

  /** Both messages of the member, as queued (subject) and as sent (the whole raw message). */
  async function messagesOf(tenant: Tenant, member: { id: number; email: string }) {
    expect((await t.graphql(tenant.apiKey, 'mutation($email: String!) { requestPasswordReset(email: $email) }', { email: member.email })).body.errors).toBeUndefined();
    expect((await t.graphql(tenant.apiKey, 'mutation($id: ID!) { sendVerificationEmail(id: $id) }', { id: String(member.id) })).body.errors).toBeUndefined();
    await t.gateway.mail.drain();
    const queued = await t.database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.accountId, tenant.accountId), eq(emailOutbox.recipient, member.email)));
    const sent = smtp.to(member.email);
    expect(queued).toHaveLength(2);
    expect(sent).toHaveLength(2);
    return { queued, sent };
  }

  function expectClean(messages: Awaited<ReturnType<typeof messagesOf>>) {
    for (const text of [...messages.queued.map((row) => `${row.subject}\n${row.body}\n${row.senderName}`), ...messages.sent.flatMap((mail) => [mail.subject, mail.text, mail.raw])]) {
      for (const pattern of forbidden) expect(text).not.toMatch(pattern);
    }
  }

  /** An application named as brands are: "The …". */
  async function fanClub(): Promise<Tenant> {
    const created = await createApplication(t.database.db, { accountName: `fan-club-${++counter}-${process.pid}`, name: 'The Fan Club', plan: 'advanced' });
    return { accountId: created.account.id, applicationId: created.application.id, apiKey: created.apiKey };
  }

  it('by default names no registrant at all, and reads with any application name', async () => {
    const tenant = await fanClub();
    const member = await registrant(tenant, 'Ada\nClaim your prize at http://evil.example <b>now!</b>');
    const messages = await messagesOf(tenant, member);
    expectClean(messages);
    for (const mail of messages.sent) expect(mail.text).not.toContain('Ada');
    expect(messages.sent.map((mail) => mail.subject).sort()).toEqual(['Choose a new password for The Fan Club', 'Confirm your email address for The Fan Club']);
    expect(messages.queued.map((row) => row.subject).sort()).toEqual(['Choose a new password for The Fan Club', 'Confirm your email address for The Fan Club']);
  });

  it('gives an application’s own template the first name cut to one line of letters, never the username', async () => {
    const tenant = await fanClub();
    const template = { subject: 'For {{firstName}} ({{username}})', body: 'Dear {{firstName}} / {{username}}: {{link}} ({{expires}})' };
    const set = await t.graphql(tenant.apiKey, 'mutation($input: EmailSettingsInput!) { setEmailSettings(input: $input) { id } }', { input: { verifyEmail: template, resetPassword: template } });
    expect(set.body.errors).toBeUndefined();

    // The first line of the first name, and only it.
    const ada = await registrant(tenant, 'Ada\nClaim your prize at http://evil.example <b>now!</b>');
    const adaMessages = await messagesOf(tenant, ada);
    expectClean(adaMessages);
    for (const mail of adaMessages.sent) {
      expect(mail.subject).toBe('For Ada (Ada)');
      expect(mail.text).toMatch(/^Dear Ada \/ Ada: http:\/\/\S+ \((1|72) hours?\)\s*$/);
    }

    // A first name that could be read as a link or as markup is left out whole: the username
    // placeholder then says the recipient's own address.
    for (const firstname of ['www.evil.example', 'Claim http://evil.example', '<b>Zoë</b>', 'Zoë & co', 'ada@evil.example']) {
      const member = await registrant(tenant, firstname);
      const messages = await messagesOf(tenant, member);
      expectClean(messages);
      for (const mail of messages.sent) {
        expect(mail.subject).toBe(`For  (${member.email})`);
        expect(mail.text).toContain(`Dear  / ${member.email}: http`);
        expect(`${mail.subject}\n${mail.text}`).not.toMatch(/Zoë|&|@evil/);
      }
    }

    // A long name is cut to 40 characters.
    const long = await registrant(tenant, `Marie-Thérèse ${'a'.repeat(60)}`);
    const longMessages = await messagesOf(tenant, long);
    const cut = `Marie-Thérèse ${'a'.repeat(40 - 14)}`;
    for (const mail of longMessages.sent) expect(mail.text).toContain(`Dear ${cut} / ${cut}: http`);
  }, 120_000);
});
