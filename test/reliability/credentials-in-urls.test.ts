import { Writable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { emailOutbox, members } from '../../src/db/schema/index.js';
import { buildGateway, type Gateway } from '../../src/http/server.js';
import { redactUrl, withoutCredentials } from '../../src/lib/url-credentials.js';
import { createLogger } from '../../src/logger.js';
import { startTestGateway, testSecretKey, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, submitForm, whitelist } from '../widget/support.js';

/**
 * Sign-in tokens stay out of links and logs. The widget's `trigger.verify_email(location.href)`,
 * right after a sign-in, sends the page's address with its live `?accesstoken=` as the return URL:
 * the emailed link must not carry it, and a log line of any URL that nests it, however deep, must
 * not show it.
 */
let t: TestGateway;
let app: Tenant;
const origin = 'https://fans.example.com';
const site = `${origin}/welcome`;
const secret = 'SIGNINSECRET0123456789';

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  await whitelist(t, app, 'fans.example.com');
});
afterAll(() => t?.close());

async function registered() {
  const jar = new CookieJar();
  const email = `links-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const response = await submitForm(t, jar, `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent(site)}`, { email, password: 'correct horse' });
  expect(response.statusCode, response.body).toBe(303);
  return { email, jar };
}

async function queuedBodies(recipient: string): Promise<string> {
  const rows = await t.database.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.accountId, app.accountId), eq(emailOutbox.recipient, recipient)));
  expect(rows.length).toBeGreaterThan(0);
  return rows.map((row) => `${row.subject}\n${row.body}`).join('\n');
}

describe('the verification link', () => {
  const returnUrls = [
    `${site}?accesstoken=${secret}&tab=news`,
    `${site}?AccessToken=${secret}`,
    `${site}?apiKey=${secret}#access_token=${secret}`,
    `${site}?next=${encodeURIComponent(`${site}?accesstoken=${secret}`)}`,
  ];

  it.each(returnUrls)('carries no credential of the return URL the page sent (%s)', async (returnUrl) => {
    const { email, jar } = await registered();
    const sent = await t.request({
      method: 'POST',
      url: `/framework/${app.applicationId}/verify-email/send`,
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      payload: new URLSearchParams({ return: returnUrl }).toString(),
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const bodies = await queuedBodies(email);
    expect(bodies).not.toContain(secret);
    // The page itself is still where the link leads back to.
    expect(bodies).toContain(encodeURIComponent(site));
  });

  it('asked for through the API, carries none either', async () => {
    const { email } = await registered();
    const [member] = await t.database.db
      .select()
      .from(members)
      .where(and(eq(members.accountId, app.accountId), eq(members.email, email)));
    const answer = await t.graphql(app.apiKey, 'mutation($id: ID!, $r: String) { sendVerificationEmail(id: $id, returnUrl: $r) }', { id: String(member.id), r: `${site}?accesstoken=${secret}` });
    expect(answer.body.errors, answer.text).toBeUndefined();
    expect(await queuedBodies(email)).not.toContain(secret);
  });
});

describe('return URLs without credentials', () => {
  it('keep every other parameter and the fragment', () => {
    expect(withoutCredentials(new URL(`${site}?a=1&token=x&b=2#top`)).toString()).toBe(`${site}?a=1&b=2#top`);
    expect(withoutCredentials(new URL(`${site}?accesstoken=x`)).toString()).toBe(site);
    expect(withoutCredentials(new URL(site)).toString()).toBe(site);
  });
});

describe('a logged URL', () => {
  it('redacts a credential nested in a parameter, at any depth up to the bound', () => {
    const once = `${site}?accesstoken=${secret}`;
    const twice = `${site}?next=${encodeURIComponent(once)}`;
    for (const nested of [once, twice, `${site}#access_token=${secret}`, `a=1&ApiKey=${secret}`]) {
      const url = `/framework/flow/1/verify-email?token=abc&return=${encodeURIComponent(nested)}`;
      const redacted = redactUrl(url);
      expect(redacted, nested).not.toContain(secret);
      expect(redacted).not.toContain('abc');
      expect(redacted).toContain('/framework/flow/1/verify-email?token=[redacted]&return=');
    }
    // Encoded twice in one value.
    expect(redactUrl(`/x?return=${encodeURIComponent(encodeURIComponent(once))}`)).not.toContain(secret);
    // Nothing to redact: the URL as it was.
    const plain = `/x?return=${encodeURIComponent(`${site}?tab=news`)}&page=2`;
    expect(redactUrl(plain)).toBe(plain);
  });

  describe('in the request log', () => {
    let gateway: Gateway;
    const lines: string[] = [];
    beforeAll(async () => {
      const config = loadConfig({ LOG_LEVEL: 'info', LOG_FORMAT: 'json', USAGE_FLUSH_SECONDS: '3600', SECRET_KEY: testSecretKey });
      const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
      gateway = await buildGateway({ config, database: t.database, logger: createLogger(config, sink) });
    }, 60_000);
    afterAll(() => gateway?.close());

    it('shows no credential nested two levels deep in a parameter', async () => {
      const inner = `${site}?accesstoken=${secret}`;
      const outer = `${site}?next=${encodeURIComponent(inner)}`;
      const url = `/framework/flow/${app.applicationId}/verify-email?token=1.${'a'.repeat(43)}&return=${encodeURIComponent(outer)}`;
      await gateway.app.inject({ method: 'GET', url });
      const logged = lines.filter((line) => line.includes('verify-email'));
      expect(logged.length).toBeGreaterThan(0);
      for (const line of logged) expect(line).not.toContain(secret);
    });
  });
});
