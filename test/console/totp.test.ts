import { base32 } from '@otplib/plugin-base32-scure';
import { crypto } from '@otplib/plugin-crypto-node';
import { generate } from '@otplib/totp';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, staffUsers } from '../../src/db/schema/index.js';
import { consoleGraphql, csrfHeaders, signInStaff, type SignedInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * The second factor: setting it up (secret, otpauth URI, QR code), confirming it, signing in with
 * it, a code refused the second time, and an account that requires it.
 */
let t: TestGateway;
let tenant: Tenant;
const password = 'a long enough password';

/** The code of the authenticator app `stepsAhead` steps from now (one step ahead is still accepted: clocks drift). */
const codeOf = (secret: string, stepsAhead = 0) => generate({ secret, crypto, base32, epoch: Date.now() / 1000 + 30 * stepsAhead });

function signIn(payload: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/console/session', headers: csrfHeaders, payload });
}

async function setUp(staff: SignedInStaff): Promise<string> {
  const started = await consoleGraphql(t, staff, 'mutation { startTotpSetup { secret uri qrSvgDataUrl } }');
  const { secret, uri, qrSvgDataUrl } = started.body.data.startTotpSetup;
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(uri).toBe(`otpauth://totp/Marquee%20console:${encodeURIComponent(staff.email)}?secret=${secret}&issuer=Marquee+console&algorithm=SHA1&digits=6&period=30`);
  expect(qrSvgDataUrl).toMatch(/^data:image\/svg\+xml;base64,/);
  expect(Buffer.from(qrSvgDataUrl.split(',')[1], 'base64').toString()).toMatch(/^<svg /);
  const confirmed = await consoleGraphql(t, staff, 'mutation($code: String!) { confirmTotp(code: $code) { secondFactorEnabled secondFactorOwed } }', { code: await codeOf(secret) });
  expect(confirmed.body.data.confirmTotp).toEqual({ secondFactorEnabled: true, secondFactorOwed: false });
  return secret;
}

beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant();
});
afterAll(() => t?.close());

describe('TOTP', () => {
  it('is set up with a secret confirmed by a code; the secret is stored sealed', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst', password });
    const secret = await setUp(staff);
    const [row] = await t.database.db.select().from(staffUsers).where(eq(staffUsers.id, staff.staffId));
    expect(row.totpSecretSealed).toMatch(/^v1\./);
    expect(row.totpSecretSealed).not.toContain(secret);
    expect(row.totpPendingSealed).toBeNull();
    const [entry] = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, tenant.accountId), eq(auditEvents.action, 'staff.totp'), eq(auditEvents.actorId, staff.staffId)));
    expect(entry).toMatchObject({ actorType: 'staff', details: { enabled: true } });
  });

  it('refuses a wrong or malformed confirmation code, leaving the second factor off', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'analyst' });
    const confirm = (code: string) => consoleGraphql(t, staff, 'mutation($code: String!) { confirmTotp(code: $code) { secondFactorEnabled } }', { code });
    expect((await confirm('123456')).body.errors![0].extensions).toMatchObject({ code: 'CONFLICT', param: 'code' });
    const { secret } = (await consoleGraphql(t, staff, 'mutation { startTotpSetup { secret } }')).body.data.startTotpSetup;
    const right = await codeOf(secret);
    const wrong = right === '000000' ? '000001' : '000000';
    for (const code of [wrong, 'abcdef', '1'.repeat(40)]) {
      const refused = await confirm(code);
      expect(refused.body.errors![0].extensions.param).toBe('code');
    }
    const [row] = await t.database.db.select().from(staffUsers).where(eq(staffUsers.id, staff.staffId));
    expect(row.totpSecretSealed).toBeNull();
    expect((await consoleGraphql(t, staff, '{ viewer { secondFactorEnabled } }')).body.data.viewer).toEqual({ secondFactorEnabled: false });
  });

  it('makes the password alone ask for the code; the code signs in once, and the same code is refused the second time', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'support', password });
    const secret = await setUp(staff);

    const asked = await signIn({ email: staff.email, password });
    expect(asked.statusCode).toBe(200);
    expect(asked.json()).toEqual({ staff: null, secondFactorRequired: true });
    expect(asked.headers['set-cookie']).toBeUndefined();

    // The setup's code was the current step's; the next step's code is still accepted (one step of drift).
    const code = await codeOf(secret, 1);
    const wrongPassword = await signIn({ email: staff.email, password: 'not the password!', code });
    expect(wrongPassword.json().error).toMatchObject({ type: 'WRONG_PASSWORD', param: null });

    const signedIn = await signIn({ email: staff.email, password, code });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json()).toMatchObject({ staff: { id: String(staff.staffId), secondFactorEnabled: true, secondFactorOwed: false }, secondFactorRequired: false });

    const replayed = await signIn({ email: staff.email, password, code });
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json().error).toMatchObject({ type: 'WRONG_PASSWORD', param: 'code' });
    expect(replayed.headers['set-cookie']).toBeUndefined();
    // An older code (the setup's step) is refused too once a later one was used.
    expect((await signIn({ email: staff.email, password, code: await codeOf(secret) })).json().error).toMatchObject({ param: 'code' });
  });

  it('a session that has not proved the enabled factor answers only the viewer and the setup', async () => {
    const staff = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    await setUp(staff);
    // A session made without the factor, as a one-time link's is.
    const other = await signInStaff(t, { accountId: tenant.accountId, role: 'owner', email: staff.email });
    expect((await consoleGraphql(t, other, '{ viewer { secondFactorOwed } }')).body.data.viewer).toEqual({ secondFactorOwed: true });
    const refused = await consoleGraphql(t, other, '{ staff { id } }');
    expect(refused.body.errors![0].extensions).toMatchObject({ code: 'STAFF_SESSION_REQUIRED', param: 'code' });
  });
});

describe('an account that requires TOTP', () => {
  it('lets a staff member without one sign in only to set one up, then everything their role allows', async () => {
    const account = await t.tenant();
    const owner = await signInStaff(t, { accountId: account.accountId, role: 'owner', secondFactor: true });
    const required = await consoleGraphql(t, owner, 'mutation { requireTotp(required: true) }');
    expect(required.body.data).toEqual({ requireTotp: true });

    const admin = await signInStaff(t, { accountId: account.accountId, role: 'admin', password });
    const signedIn = await signIn({ email: admin.email, password });
    expect(signedIn.json()).toMatchObject({ staff: { secondFactorRequired: true, secondFactorEnabled: false, secondFactorOwed: true }, secondFactorRequired: true });
    const cookie = { cookie: String(signedIn.headers['set-cookie']).split(';', 1)[0] };

    const before = await consoleGraphql(t, cookie, '{ viewer { role secondFactorOwed } }');
    expect(before.body.data.viewer).toEqual({ role: 'admin', secondFactorOwed: true });
    const refused = await consoleGraphql(t, cookie, 'mutation { changePassword(current: "a long enough password", next: "another long password") { id } }');
    expect(refused.body.errors![0].extensions).toMatchObject({ code: 'STAFF_SESSION_REQUIRED', param: 'code' });

    const { secret } = (await consoleGraphql(t, cookie, 'mutation { startTotpSetup { secret } }')).body.data.startTotpSetup;
    const confirmed = await consoleGraphql(t, cookie, 'mutation($code: String!) { confirmTotp(code: $code) { secondFactorOwed } }', { code: await codeOf(secret) });
    expect(confirmed.body.data.confirmTotp).toEqual({ secondFactorOwed: false });
    expect((await consoleGraphql(t, cookie, '{ viewer { secondFactorOwed secondFactorEnabled } }')).body.data.viewer).toEqual({ secondFactorOwed: false, secondFactorEnabled: true });

    // The owner's own session proved a factor before the requirement; a session that did not is held back.
    const unproved = await signInStaff(t, { accountId: account.accountId, role: 'owner' });
    expect((await consoleGraphql(t, unproved, '{ staff { id } }')).body.errors![0].extensions.code).toBe('STAFF_SESSION_REQUIRED');
    expect((await consoleGraphql(t, owner, 'mutation { requireTotp(required: false) }')).body.data).toEqual({ requireTotp: false });
    expect((await consoleGraphql(t, unproved, '{ staff { id } }')).body.data.staff).toHaveLength(3);
  });

  it('refuses a non-boolean setting', async () => {
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const refused = await consoleGraphql(t, owner, 'mutation { requireTotp(required: "yes") }');
    expect(refused.status).toBe(400);
    expect(refused.body.errors![0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
