import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, staffSessions } from '../../src/db/schema/index.js';
import { consoleGraphql, csrfHeaders, signInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * Signing in to the console over HTTP: the password check and its one error, the throttle, the
 * cookie, the CSRF rules of every console POST, sign-out, and the session's idle and absolute limits.
 */
let t: TestGateway;
let tenant: Tenant;
const password = 'a long enough password';

function postSession(payload: unknown, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url: '/console/session', headers: { ...csrfHeaders, ...headers }, payload: payload as Record<string, unknown> });
}

const cookieOf = (response: { headers: Record<string, unknown> }) => {
  const header = response.headers['set-cookie'];
  return (Array.isArray(header) ? header : [header]).filter(Boolean) as string[];
};
const cookieValue = (setCookie: string) => setCookie.split(';', 1)[0];

const viewerQuery = '{ viewer { id email role account { id } } }';

beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant();
});
afterAll(() => t?.close());

describe('POST /console/session', () => {
  it('signs a staff member in with email and password: the cookie is HttpOnly, SameSite=Strict, Path=/, and the session answers viewer', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'support', password });
    const response = await postSession({ email: staff.email.toUpperCase(), password });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      staff: { id: String(staff.staffId), email: staff.email, role: 'support', account: { id: String(tenant.accountId) }, permissions: expect.arrayContaining(['fans.read']) },
      secondFactorRequired: false,
    });
    expect(response.headers['cache-control']).toBe('no-store');
    const [setCookie] = cookieOf(response);
    // Plain HTTP in tests: no __Host- prefix and no Secure (browsers refuse either without HTTPS).
    expect(setCookie).toMatch(/^mq_console=\d+\.[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/; Secure/);
    expect(setCookie).not.toMatch(/; Domain=/);

    const viewer = await consoleGraphql(t, { cookie: cookieValue(setCookie) }, viewerQuery);
    expect(viewer.body.data.viewer).toEqual({ id: String(staff.staffId), email: staff.email, role: 'support', account: { id: String(tenant.accountId) } });
    // Only the digest is stored: the cookie's secret appears nowhere in the table.
    const secret = cookieValue(setCookie).split('.')[1];
    const rows = await t.database.db.select().from(staffSessions).where(eq(staffSessions.staffId, staff.staffId));
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows.some((row) => row.tokenHash === undefined)).toBe(false);
  });

  it('answers one identical error for an unknown email and a wrong password, writing no session', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'admin', password });
    const before = await t.database.db.select().from(staffSessions).where(eq(staffSessions.accountId, tenant.accountId));
    const unknown = await postSession({ email: 'nobody-here@example.com', password });
    const wrong = await postSession({ email: staff.email, password: 'not the password at all' });
    for (const response of [unknown, wrong]) {
      expect(response.statusCode).toBe(401);
      expect(cookieOf(response)).toEqual([]);
    }
    expect(unknown.json()).toEqual(wrong.json());
    expect(wrong.json()).toEqual({ error: { code: 18, type: 'WRONG_PASSWORD', message: 'The email or password is wrong.', param: null } });
    const after = await t.database.db.select().from(staffSessions).where(eq(staffSessions.accountId, tenant.accountId));
    expect(after).toHaveLength(before.length);
    // The failure against a known staff member is in the account's log; the unknown address is in none.
    const failures = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, tenant.accountId), eq(auditEvents.action, 'staff.sign_in_failed')));
    expect(failures.map((event) => [event.actorId, event.outcome, event.targetId])).toEqual([[staff.staffId, 'failed', String(staff.staffId)]]);
  });

  it('refuses missing and malformed input with the field named, and a staff member without a password as a wrong one', async () => {
    expect((await postSession({ password })).json().error).toMatchObject({ type: 'MISSING_PARAMETER', param: 'email' });
    expect((await postSession({ email: 'a@example.com' })).json().error).toMatchObject({ type: 'MISSING_PARAMETER', param: 'password' });
    expect((await postSession({ email: 'not an address', password })).json().error).toMatchObject({ type: 'INVALID_PARAMETER', param: 'email' });
    expect((await postSession({ email: `${'a'.repeat(300)}@example.com`, password })).json().error).toMatchObject({ type: 'INVALID_PARAMETER', param: 'email' });
    expect((await postSession({ email: 'a@example.com', password: 'x'.repeat(5000) })).json().error).toMatchObject({ type: 'INVALID_PARAMETER', param: 'password' });
    expect((await postSession({ email: 'a@example.com', password, accountId: 'x' })).json().error).toMatchObject({ type: 'INVALID_PARAMETER', param: 'accountId' });
    const invited = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst' });
    expect((await postSession({ email: invited.email, password })).json().error).toMatchObject({ type: 'WRONG_PASSWORD' });
  });

  it('throttles repeated failures per email: RATE_LIMITED with Retry-After', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst', password });
    let refused: Awaited<ReturnType<typeof postSession>> | undefined;
    for (let attempt = 0; attempt < 10 && !refused; attempt++) {
      const response = await postSession({ email: staff.email, password: 'wrong password!' });
      if (response.statusCode === 429) refused = response;
      else expect(response.statusCode).toBe(401);
    }
    if (!refused) throw new Error('the back-off starts after a few failures');
    expect(refused.json().error).toMatchObject({ code: 6, type: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(cookieOf(refused)).toEqual([]);
  });

  it('ends the session on sign-out: the cookie is cleared and the session answers no more', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const end = await t.request({ method: 'POST', url: '/console/session/end', headers: { ...csrfHeaders, cookie: staff.cookie }, payload: {} });
    expect(end.statusCode).toBe(200);
    expect(end.json()).toEqual({ staff: null });
    expect(cookieOf(end)[0]).toMatch(/^mq_console=;/);
    expect((await consoleGraphql(t, staff, viewerQuery)).body.data.viewer).toBeNull();
    const [row] = await t.database.db.select().from(staffSessions).where(eq(staffSessions.id, staff.sessionId));
    expect(row.revokedAt).not.toBeNull();
  });
});

describe('CSRF on every console POST', () => {
  it('refuses a request without the x-console-csrf header, from another origin or another site, before anything runs', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'owner', password });
    const attempts = [
      { headers: { 'content-type': 'application/json' }, param: 'x-console-csrf' },
      { headers: { ...csrfHeaders, origin: 'https://evil.example.org' }, param: 'origin' },
      { headers: { ...csrfHeaders, origin: 'null' }, param: 'origin' },
      { headers: { ...csrfHeaders, 'sec-fetch-site': 'cross-site' }, param: 'sec-fetch-site' },
      { headers: { ...csrfHeaders, 'sec-fetch-site': 'same-site' }, param: 'sec-fetch-site' },
    ];
    for (const { headers, param } of attempts) {
      for (const url of ['/console/session', '/console/graphql', '/console/session/end', '/console/invite']) {
        const response = await t.request({
          method: 'POST',
          url,
          headers: { ...headers, cookie: staff.cookie },
          payload: { email: staff.email, password, query: 'mutation { requireTotp(required: true) }' },
        });
        expect(response.statusCode, `${url} ${param}`).toBe(403);
        expect(response.json(), url).toMatchObject(url === '/console/graphql' ? { errors: [{ extensions: { code: 'FORBIDDEN' } }] } : { error: { type: 'FORBIDDEN', param } });
        expect(cookieOf(response)).toEqual([]);
      }
    }
    // Nothing ran: the setting is unchanged, and the session still answers.
    const viewer = await consoleGraphql(t, staff, '{ viewer { secondFactorRequired } }');
    expect(viewer.body.data.viewer).toEqual({ secondFactorRequired: false });
  });

  it('takes the same origin (Origin and Sec-Fetch-Site naming this gateway)', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst' });
    const response = await t.request({
      method: 'POST',
      url: '/console/graphql',
      headers: { ...csrfHeaders, cookie: staff.cookie, origin: 'http://localhost:80', host: 'localhost:80', 'sec-fetch-site': 'same-origin' },
      payload: { query: viewerQuery },
    });
    expect(response.json().data.viewer).toMatchObject({ id: String(staff.staffId) });
  });

  it('answers no CORS on /console, even for an origin CORS_ORIGINS allows on the API', async () => {
    const preflight = await t.request({ method: 'OPTIONS', url: '/console/graphql', headers: { origin: 'https://evil.example.org', 'access-control-request-method': 'POST' } });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.statusCode).not.toBe(204);
  });

  it('leaves console answers uncompressed', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const response = await t.request({
      method: 'POST',
      url: '/console/graphql',
      headers: { ...csrfHeaders, cookie: staff.cookie, 'accept-encoding': 'gzip, br' },
      payload: { query: `{ ${Array.from({ length: 10 }, (_, i) => `a${i}: viewer { email permissions }`).join(' ')} }` },
    });
    expect(response.body.length).toBeGreaterThan(1024);
    expect(response.headers['content-encoding']).toBeUndefined();
  });
});

describe('session limits', () => {
  it('ends a session idle for 30 minutes, keeps one used within them (and notes its use)', async () => {
    const idle = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const active = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await t.database.db
      .update(staffSessions)
      .set({ lastSeenAt: ago(31) })
      .where(eq(staffSessions.id, idle.sessionId));
    await t.database.db
      .update(staffSessions)
      .set({ lastSeenAt: ago(29) })
      .where(eq(staffSessions.id, active.sessionId));
    expect((await consoleGraphql(t, idle, viewerQuery)).body.data.viewer).toBeNull();
    expect((await consoleGraphql(t, active, viewerQuery)).body.data.viewer).toMatchObject({ id: String(active.staffId) });
    const [touched] = await t.database.db.select().from(staffSessions).where(eq(staffSessions.id, active.sessionId));
    expect(touched.lastSeenAt.getTime()).toBeGreaterThan(ago(1).getTime());
    // A refused operation says why: sign in again.
    const refused = await consoleGraphql(t, idle, 'mutation { startTotpSetup { uri } }');
    expect(refused.body.errors![0].extensions.code).toBe('STAFF_SESSION_REQUIRED');
  });

  it('ends a session 12 hours after sign-in however active it is', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const [row] = await t.database.db.select().from(staffSessions).where(eq(staffSessions.id, staff.sessionId));
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(12 * 3600_000);
    await t.database.db
      .update(staffSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(staffSessions.id, staff.sessionId));
    expect((await consoleGraphql(t, staff, viewerQuery)).body.data.viewer).toBeNull();
  });

  it('ignores a forged or malformed cookie', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const [name, value] = staff.cookie.split('=');
    const [account, secret] = value.split('.');
    // One character changed at the front: the last one of base64url may carry unused bits, and may be the replacement already.
    const forged = `${secret[0] === 'A' ? 'B' : 'A'}${secret.slice(1)}`;
    for (const cookie of [`${name}=${account}.${forged}`, `${name}=${Number(account) + 1}.${secret}`, `${name}=${secret}`, `${name}=../../x`]) {
      expect((await consoleGraphql(t, { cookie }, viewerQuery)).body.data.viewer).toBeNull();
    }
  });
});

describe('over HTTPS', () => {
  it('names the cookie __Host-mq_console, Secure, and takes the PUBLIC_URL origin only', async () => {
    const secure = await startTestGateway({ PUBLIC_URL: 'https://console.example.com' }, t.database);
    try {
      const staff = await signInStaff(secure, { accountId: tenant.accountId, role: 'owner', password });
      const signIn = (origin: string) => secure.request({ method: 'POST', url: '/console/session', headers: { ...csrfHeaders, origin }, payload: { email: staff.email, password } });
      expect((await signIn('http://console.example.com')).statusCode).toBe(403);
      const response = await signIn('https://console.example.com');
      expect(response.statusCode).toBe(200);
      const [setCookie] = cookieOf(response);
      expect(setCookie).toMatch(/^__Host-mq_console=\d+\.[A-Za-z0-9_-]{43};/);
      for (const attribute of ['; Secure', '; HttpOnly', '; SameSite=Strict', '; Path=/']) expect(setCookie).toContain(attribute);
      const viewer = await secure.request({ method: 'POST', url: '/console/graphql', headers: { ...csrfHeaders, cookie: cookieValue(setCookie) }, payload: { query: viewerQuery } });
      expect(viewer.json().data.viewer).toMatchObject({ id: String(staff.staffId) });
    } finally {
      await secure.close();
    }
  });
});
