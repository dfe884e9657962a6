import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applications } from '../../src/db/schema/index.js';
import { issueEmailLink } from '../../src/modules/email/email-links.js';
import { contrastRatio, readableTextOn } from '../../src/modules/widget/look.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { temporaryDirectory } from '../support/leftovers.js';
import { whitelist } from './support.js';

/**
 * The hosted pages' look per application (docs/widget.md, "The pages' look"): set and read through
 * GraphQL and the CLI, drawn on the sign-in and reset pages under a policy that allows exactly its
 * stylesheet and its logo's origin, hostile values refused with nothing written, one tenant's look
 * out of another's reach.
 */
let t: TestGateway;
const site = 'https://fans.example.com/welcome';

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

async function tenant(): Promise<Tenant> {
  const created = await t.tenant('advanced');
  await whitelist(t, created, 'fans.example.com');
  await whitelist(t, created, 'cdn.fans.example.com');
  return created;
}

const lookFields = 'signInPageLook { title accentColor accentTextColor backgroundColor logoUrl footerLinkUrl footerLinkText }';
const setLook = `mutation($input: SignInPageLookInput!) { setSignInPageLook(input: $input) { id name ${lookFields} } }`;
const readLook = `{ application { name ${lookFields} } }`;

const fullLook = {
  title: 'The <Fan> Club & Co',
  accentColor: '#FFD700',
  backgroundColor: '#101820',
  logoUrl: 'https://cdn.fans.example.com/img/logo.png?v=2',
  footerLinkUrl: 'https://fans.example.com/privacy',
  footerLinkText: 'Privacy & cookies',
};

async function storedSettings(app: Tenant) {
  const [row] = await t.database.db
    .select({ settings: applications.settings })
    .from(applications)
    .where(and(eq(applications.accountId, app.accountId), eq(applications.id, app.applicationId)));
  return row.settings;
}

function policyOf(response: { headers: Record<string, unknown> }): string {
  return String(response.headers['content-security-policy']);
}

/** The policy's style hash is the hash of the page's one stylesheet. */
function expectStyleAllowed(response: { body: string; headers: Record<string, unknown> }) {
  const css = /<style>([\s\S]*?)<\/style>/.exec(response.body)![1];
  expect(response.body.match(/<style>/g)).toHaveLength(1);
  const hash = createHash('sha256').update(css).digest('base64');
  expect(policyOf(response)).toContain(`style-src 'sha256-${hash}'`);
  expect(policyOf(response)).not.toContain('unsafe-inline');
}

describe('the sign-in page look', () => {
  it('has defaults when unset: the application name, the usual colours, no logo, no image source allowed', async () => {
    const app = await tenant();
    const read = await t.graphql(app.apiKey, readLook);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.application.signInPageLook).toEqual({
      title: read.body.data.application.name,
      accentColor: '#3b2db5',
      accentTextColor: '#ffffff',
      backgroundColor: '#f3f4f7',
      logoUrl: null,
      footerLinkUrl: null,
      footerLinkText: null,
    });
    const page = await t.request({ url: `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<p class="lead">to ${read.body.data.application.name}</p>`);
    expect(page.body).toContain(':root{--accent:#3b2db5;--on-accent:#ffffff;--link:#3b2db5;--page:#f3f4f7;');
    expect(page.body).not.toContain('<img');
    expect(page.body).not.toContain('page-footer"');
    expect(policyOf(page)).not.toContain('img-src');
    expectStyleAllowed(page);
  });

  it('is set and read back through GraphQL, and drawn on the sign-in and reset pages with its logo allowed by img-src', async () => {
    const app = await tenant();
    const set = await t.graphql(app.apiKey, setLook, { input: fullLook });
    expect(set.body.errors).toBeUndefined();
    const expected = {
      title: 'The <Fan> Club & Co',
      accentColor: '#ffd700',
      accentTextColor: '#000000',
      backgroundColor: '#101820',
      logoUrl: 'https://cdn.fans.example.com/img/logo.png?v=2',
      footerLinkUrl: 'https://fans.example.com/privacy',
      footerLinkText: 'Privacy & cookies',
    };
    expect(set.body.data.setSignInPageLook.signInPageLook).toEqual(expected);
    expect((await t.graphql(app.apiKey, readLook)).body.data.application.signInPageLook).toEqual(expected);

    const login = await t.request({ url: `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}` });
    expect(login.statusCode).toBe(200);
    expect(login.body).toContain('<title>Sign in · The &lt;Fan&gt; Club &amp; Co</title>');
    expect(login.body).toContain('<p class="lead">to The &lt;Fan&gt; Club &amp; Co</p>');
    // A light accent: black button text; links on the white card fall back to the body colour.
    expect(login.body).toContain(':root{--accent:#ffd700;--on-accent:#000000;--link:#1b1b1f;--page:#101820;--on-page:#ffffff}');
    expect(login.body).toContain('<img class="logo" src="https://cdn.fans.example.com/img/logo.png?v=2" alt="The &lt;Fan&gt; Club &amp; Co">');
    expect(login.body).toContain('<footer class="page-footer"><a href="https://fans.example.com/privacy">Privacy &amp; cookies</a></footer>');
    expect(policyOf(login)).toContain('img-src https://cdn.fans.example.com;');
    expect(policyOf(login)).toMatch(/^default-src 'none'; /);
    expectStyleAllowed(login);

    const register = await t.request({ url: `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent(site)}` });
    expect(register.body).toContain('<p class="lead">for The &lt;Fan&gt; Club &amp; Co</p>');
    expect(register.body).toContain('<img class="logo"');

    const registered = await t.graphql(app.apiKey, 'mutation($input: RegisterMemberInput!) { registerMember(input: $input) { member { id } } }', {
      input: { credentials: { network: 'email', email: `look-${process.pid}@example.com`, password: 'correct horse' } },
    });
    const memberId = Number(registered.body.data.registerMember.member.id);
    const token = await issueEmailLink(t.database.db, { accountId: app.accountId, applicationId: app.applicationId, memberId, email: `look-${process.pid}@example.com` }, 'reset');
    const reset = await t.request({ url: `/framework/flow/${app.applicationId}/reset-password?token=${encodeURIComponent(token)}` });
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.body).toContain('<title>Choose a new password · The &lt;Fan&gt; Club &amp; Co</title>');
    expect(reset.body).toContain('--accent:#ffd700');
    expect(reset.body).toContain('<img class="logo" src="https://cdn.fans.example.com/img/logo.png?v=2"');
    expect(policyOf(reset)).toContain('img-src https://cdn.fans.example.com;');
    expectStyleAllowed(reset);

    // Other applications' pages, and pages without the application, allow no images.
    const missing = await t.request({ url: `/framework/flow/999999/login?return=${encodeURIComponent(site)}` });
    expect(missing.statusCode).toBe(404);
    expect(policyOf(missing)).not.toContain('img-src');
    expectStyleAllowed(missing);

    // Left out, values return to the default.
    const cleared = await t.graphql(app.apiKey, setLook, { input: { accentColor: '#0a6e31' } });
    expect(cleared.body.data.setSignInPageLook.signInPageLook).toMatchObject({
      title: cleared.body.data.setSignInPageLook.name,
      accentColor: '#0a6e31',
      accentTextColor: '#ffffff',
      logoUrl: null,
      footerLinkUrl: null,
    });
    const plain = await t.request({ url: `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}` });
    expect(plain.body).not.toContain('<img');
    expect(policyOf(plain)).not.toContain('img-src');
  });

  it('refuses hostile values with a clear error and writes nothing', async () => {
    const app = await tenant();
    expect((await t.graphql(app.apiKey, setLook, { input: { title: 'Kept', accentColor: '#112233' } })).body.errors).toBeUndefined();
    const before = await storedSettings(app);
    const refusals: [Record<string, string>, string, string][] = [
      [{ accentColor: '</style><script>alert(1)</script>' }, 'INVALID_PARAMETER', 'input.accentColor'],
      [{ accentColor: 'red;} body{display:none' }, 'INVALID_PARAMETER', 'input.accentColor'],
      [{ backgroundColor: '#fff;}body{background:url(https://evil.example.com/x)' }, 'INVALID_PARAMETER', 'input.backgroundColor'],
      [{ backgroundColor: 'red' }, 'INVALID_PARAMETER', 'input.backgroundColor'],
      [{ logoUrl: 'javascript:alert(1)' }, 'INVALID_PARAMETER', 'input.logoUrl'],
      [{ logoUrl: 'http://cdn.fans.example.com/logo.png' }, 'INVALID_PARAMETER', 'input.logoUrl'],
      [{ logoUrl: 'data:image/svg+xml,<svg onload=alert(1)>' }, 'INVALID_PARAMETER', 'input.logoUrl'],
      [{ logoUrl: 'https://user:pw@cdn.fans.example.com/logo.png' }, 'INVALID_PARAMETER', 'input.logoUrl'],
      [{ logoUrl: 'https://evil.example.com/logo.png' }, 'DOMAIN_NOT_WHITELISTED', 'input.logoUrl'],
      [{ footerLinkUrl: 'javascript:alert(document.cookie)' }, 'INVALID_PARAMETER', 'input.footerLinkUrl'],
      [{ footerLinkUrl: 'https://evil.example.com/privacy' }, 'DOMAIN_NOT_WHITELISTED', 'input.footerLinkUrl'],
      [{ footerLinkText: 'Privacy' }, 'INVALID_PARAMETER', 'input.footerLinkText'],
      [{ title: 'x'.repeat(81) }, 'INVALID_PARAMETER', 'input.title'],
      [{ title: 'line\nbreak' }, 'INVALID_PARAMETER', 'input.title'],
      // A good value beside a bad one: nothing of it is written either.
      [{ title: 'New title', accentColor: '#00ff00', logoUrl: 'javascript:alert(1)' }, 'INVALID_PARAMETER', 'input.logoUrl'],
    ];
    for (const [input, code, param] of refusals) {
      const answer = await t.graphql(app.apiKey, setLook, { input });
      expect(answer.body.data, JSON.stringify(input)).toBeNull();
      expect(answer.body.errors[0].extensions, JSON.stringify(input)).toMatchObject({ code, param });
      expect(answer.body.errors[0].message).toMatch(param.startsWith('input.') && code === 'INVALID_PARAMETER' ? /is invalid: / : /not on a domain whitelisted/);
    }
    expect(await storedSettings(app)).toEqual(before);
    const page = await t.request({ url: `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}` });
    expect(page.body).toContain('<p class="lead">to Kept</p>');
    expect(page.body).toContain('--accent:#112233');
    expect(page.body).not.toContain('<script');
  });

  it('stops showing a logo whose domain leaves the whitelist', async () => {
    const app = await tenant();
    expect((await t.graphql(app.apiKey, setLook, { input: { logoUrl: 'https://cdn.fans.example.com/logo.png' } })).body.errors).toBeUndefined();
    const removed = await t.request({ method: 'POST', url: '/v1.1/app/unwhitelist', headers: { 'x-api-key': app.apiKey }, payload: { domain: 'cdn.fans.example.com' } });
    expect(removed.statusCode, removed.body).toBe(200);
    const page = await t.request({ url: `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<img');
    expect(policyOf(page)).not.toContain('img-src');
  });

  it("is one application's: another account's key neither sees nor changes it", async () => {
    const owner = await tenant();
    const other = await tenant();
    expect((await t.graphql(owner.apiKey, setLook, { input: fullLook })).body.errors).toBeUndefined();
    const ownerSettings = await storedSettings(owner);

    // The other key reads and sets its own application only: there is no argument naming another.
    const otherRead = await t.graphql(other.apiKey, readLook);
    expect(otherRead.body.data.application.signInPageLook).toMatchObject({ title: otherRead.body.data.application.name, logoUrl: null });
    const otherSet = await t.graphql(other.apiKey, setLook, { input: { title: 'Hijacked', accentColor: '#000000' } });
    expect(otherSet.body.data.setSignInPageLook.id).toBe(String(other.applicationId));
    expect(await storedSettings(owner)).toEqual(ownerSettings);
    // The owner's whitelist does not count for the other application.
    const foreignLogo = await t.graphql(other.apiKey, setLook, { input: { logoUrl: 'https://cdn.fans.example.com/logo.png' } });
    expect(foreignLogo.body.errors).toBeUndefined();
    const stranger = await t.tenant('basic');
    const refused = await t.graphql(stranger.apiKey, setLook, { input: { logoUrl: 'https://cdn.fans.example.com/logo.png' } });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'DOMAIN_NOT_WHITELISTED' });

    // A GraphQL query naming the application is answered as unknown: the field takes no id.
    const named = await t.graphql(other.apiKey, `{ application(id: ${owner.applicationId}) { ${lookFields} } }`);
    expect(named.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');

    // Each application's pages show its own look.
    const ownerPage = await t.request({ url: `/framework/flow/${owner.applicationId}/login?return=${encodeURIComponent(site)}` });
    expect(ownerPage.body).toContain('The &lt;Fan&gt; Club &amp; Co');
    expect(ownerPage.body).not.toContain('Hijacked');
    // An application id that does not exist is not found.
    const none = await t.request({ url: `/framework/flow/${owner.applicationId + 100000}/login?return=${encodeURIComponent(site)}` });
    expect(none.statusCode).toBe(404);
  });

  it('computes a button text colour that reads on any accent (at least 4.5:1)', () => {
    for (let step = 0; step < 4096; step++) {
      const hex = (n: number) => (n * 17).toString(16).padStart(2, '0');
      const colour = `#${hex(step >> 8)}${hex((step >> 4) & 15)}${hex(step & 15)}`;
      expect(contrastRatio(colour, readableTextOn(colour)), colour).toBeGreaterThanOrEqual(4.5);
    }
  });
});

const run = promisify(execFile);

describe('marquee app look', () => {
  it('sets, shows and refuses as the mutation does', { timeout: 300_000 }, async () => {
    const dataDir = temporaryDirectory('look-cli');
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent', ENV_FILE: '' };
    const cli = async (...args: string[]) => JSON.parse((await run(process.execPath, [path.resolve('scripts/run.mjs'), 'cli', ...args, '--json'], { env, cwd: process.cwd() })).stdout);
    const created = await cli('app', 'create', '--account', 'Look Label', '--name', 'Look Site', '--plan', 'basic');
    const application = String(created.applicationId);

    expect((await cli('app', 'look', '--application', application, '--show')).signInPageLook).toMatchObject({ title: 'Look Site', accentColor: '#3b2db5', logoUrl: null });
    const set = await cli('app', 'look', '--application', application, '--title', 'Look & Feel', '--accent-color', '#0A6E31', '--background-color', '#ffffff');
    expect(set.signInPageLook).toMatchObject({ title: 'Look & Feel', accentColor: '#0a6e31', accentTextColor: '#ffffff', backgroundColor: '#ffffff' });
    expect((await cli('app', 'look', '--application', application, '--show')).signInPageLook).toEqual(set.signInPageLook);

    // Refused: a hostile colour, and a logo on a domain the application has not whitelisted; nothing changes.
    for (const args of [
      ['--accent-color', 'red;} body{display:none'],
      ['--logo-url', 'https://cdn.example.com/logo.png'],
      ['--logo-url', 'javascript:alert(1)'],
    ]) {
      const failure = await run(process.execPath, [path.resolve('scripts/run.mjs'), 'cli', 'app', 'look', '--application', application, ...args], { env, cwd: process.cwd() }).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failure?.code, args.join(' ')).not.toBe(0);
      expect(failure?.stderr).toMatch(/is invalid|not on a domain whitelisted/);
    }
    expect((await cli('app', 'look', '--application', application, '--show')).signInPageLook).toEqual(set.signInPageLook);
    await expect(run(process.execPath, [path.resolve('scripts/run.mjs'), 'cli', 'app', 'look', '--application', '999', '--show'], { env, cwd: process.cwd() })).rejects.toMatchObject({
      stderr: expect.stringContaining('No application 999'),
    });
  });
});
