import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberEmailLinks } from '../../src/db/schema/index.js';
import { issueEmailLink } from '../../src/modules/email/email-links.js';
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
  });
});
