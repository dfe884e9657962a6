import { sql } from 'drizzle-orm';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginEvents, members, memberServices } from '../../src/db/schema/index.js';
import { createApplication, findAccountById } from '../../src/modules/tenancy/tenancy.service.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import type { RestParams } from '../support/rest.js';

let t: TestGateway;
let app: Tenant;
let basic: Tenant;
let stranger: Tenant;
/** Every response body of this suite, scanned at the end for stored password hashes. */
const bodies: string[] = [];

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  stranger = await t.tenant('advanced');
});
afterAll(async () => {
  const hashes = await t.database.db
    .select({ hash: memberServices.passwordHash })
    .from(memberServices)
    .where(sql`${memberServices.passwordHash} is not null`);
  expect(hashes.length).toBeGreaterThan(0);
  for (const { hash } of hashes) for (const body of bodies) expect(body).not.toContain(hash!);
  for (const body of bodies) expect(body).not.toMatch(/\$argon2id\$/);
  await t.close();
});

/** t.rest, keeping each body for the scan for password hashes at the end. */
async function call(tenant: Tenant, method: 'GET' | 'POST', path: string, query: RestParams = {}) {
  const answer = await t.rest(tenant, method, path, query);
  bodies.push(answer.body);
  return answer;
}

let counter = 0;
const uniqueEmail = () => `fan${++counter}-${Date.now()}@example.com`;

async function registerEmail(tenant = app, extra: Record<string, string> = {}) {
  const email = uniqueEmail();
  const response = await call(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', ...extra });
  expect(response.status, response.body).toBe(200);
  return { email, envelope: response.json[0] };
}

async function memberCount() {
  const [row] = await t.database.db.select({ n: sql<number>`count(*)::int` }).from(members);
  return row.n;
}

const timestamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('POST /v1.1/member/register', () => {
  it('registers by email and answers the envelope in a one-element array', async () => {
    const email = uniqueEmail();
    const response = await call(app, 'POST', '/member/register', {
      service: 'email',
      email,
      password: 'correct horse',
      firstname: 'Ada',
      surname: 'Lovelace',
      username: 'ada',
      birthdate: '10-12-1990',
      gender: 'f',
      city: 'London',
      country: 'gb',
      region: 'England',
      postcode: 'N1 9GU',
      partner: 'acme',
      sourceuid: '77',
      code: 'import-1',
      domain: 'https://fans.example.com/join',
      ip: '203.0.113.9',
      useragent: 'Mozilla/5.0',
    });
    expect(response.status).toBe(200);
    const body = response.json;
    expect(body).toHaveLength(1);
    const [envelope] = body;
    expect(Object.keys(envelope)).toEqual(['data', 'optins', 'services', 'jwt']);
    expect(envelope.data).toEqual({
      ID: expect.any(Number),
      Email: email,
      FirstName: 'Ada',
      Surname: 'Lovelace',
      Username: 'ada',
      Gender: 'F',
      Bio: null,
      AccessToken: expect.stringMatching(/^[0-9a-f]{32}_\d{10}$/),
      AvatarURL: null,
      Country: 'GB',
      City: 'London',
      State: 'England',
      PostCode: 'N1 9GU',
      Website: null,
      CountryCode: 'GB',
      GeoCountry: null,
      GeoCity: null,
      GeoRegion: null,
      GeoLat: null,
      GeoLong: null,
      VerifiedEmail: null,
    });
    expect(envelope.optins).toEqual([]);
    expect(envelope.services).toEqual([
      {
        Service: 'email',
        Valid: '1',
        ActivitySharing: '1',
        ID: expect.stringMatching(/^\d+$/),
        UserID: email.toLowerCase(),
        Username: 'ada',
        UserURL: null,
        Token: null,
        TokenSecret: null,
        LastUpdated: expect.stringMatching(timestamp),
        LastLogin: null,
        VerifiedEmail: null,
        PaidAccount: '0',
        Followers: null,
        Likes: null,
        PartnerCode: 'acme',
        PartnerID: '77',
        Domains: ['fans.example.com'],
      },
    ]);
    const [row] = await t.database.db
      .select()
      .from(members)
      .where(sql`${members.id} = ${envelope.data.ID}`);
    expect(row).toMatchObject({ birthDate: '1990-12-10', importCode: 'import-1', registeredByApplicationId: app.applicationId });
    const [event] = await t.database.db
      .select()
      .from(loginEvents)
      .where(sql`${loginEvents.memberId} = ${row.id}`);
    expect(event).toMatchObject({ kind: 'register', network: 'email', domain: 'fans.example.com', ip: '203.0.113.9', userAgent: 'Mozilla/5.0' });
  });

  it('signs a JWT that verifies against /.well-known/jwks.json', async () => {
    const { envelope } = await registerEmail();
    const jwks = (await t.request({ url: '/.well-known/jwks.json' })).json();
    const { payload, protectedHeader } = await jwtVerify(envelope.jwt, createLocalJWKSet(jwks));
    expect(protectedHeader.alg).toBe('EdDSA');
    expect(payload).toMatchObject({ sub: String(envelope.data.ID), aud: `app:${app.applicationId}`, acc: app.accountId });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('returns the existing member for the same email and password, and refuses another password with code 17', async () => {
    const { email, envelope } = await registerEmail();
    const again = await call(app, 'POST', '/member/register', { service: 'email', email: email.toUpperCase(), password: 'correct horse' });
    expect(again.json[0].data.ID).toBe(envelope.data.ID);
    const before = await memberCount();
    const refused = await call(app, 'POST', '/member/register', { service: 'email', email, password: 'another password' });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ error: { code: 17, type: 'CONFLICT', message: expect.any(String), param: 'email' } });
    expect(await memberCount()).toBe(before);
  });

  it('registers a network identity with its tokens sealed at rest; a repeat under trust answers the member and keeps them', async () => {
    const uid = `sp-${Date.now()}`;
    const first = await call(app, 'POST', '/member/register', { service: 'Spotify', authtoken: 'token-one', authsecret: 'refresh-one', uid, email: uniqueEmail() });
    const [envelope] = first.json;
    expect(envelope.services[0]).toMatchObject({ Service: 'spotify', UserID: uid, Token: 'token-one', TokenSecret: 'refresh-one', Domains: ['API'] });
    const [stored] = await t.database.db
      .select()
      .from(memberServices)
      .where(sql`${memberServices.uid} = ${uid}`);
    expect(stored.tokenSealed).toMatch(/^v1\./);
    expect(stored.tokenSealed).not.toContain('token-one');

    const second = await call(app, 'POST', '/member/register', { service: 'spotify', authtoken: 'token-two', uid, activity_sharing_enabled: 0 });
    expect(second.json[0].data.ID).toBe(envelope.data.ID);
    // Nothing proved token-two is the identity's: the stored tokens and settings stay (docs/networks.md).
    expect(second.json[0].services[0]).toMatchObject({ Token: 'token-one', TokenSecret: 'refresh-one', ActivitySharing: envelope.services[0].ActivitySharing });
  });

  it.each([
    [{ service: 'myspace', email: 'a@b.co', password: 'long enough' }, 4, 'service'],
    [{ service: 'rdio', authtoken: 'x', uid: '1' }, 4, 'service'],
    [{ email: 'a@b.co', password: 'long enough' }, 3, 'service'],
    [{ service: 'email', password: 'long enough' }, 3, 'email'],
    [{ service: 'email', email: 'a@b.co' }, 3, 'password'],
    [{ service: 'email', email: 'not-an-email', password: 'long enough' }, 4, 'email'],
    [{ service: 'email', email: 'new@b.co', password: 'short' }, 4, 'password'],
    [{ service: 'youtube', uid: '1' }, 3, 'authtoken'],
    [{ service: 'youtube', authtoken: 'x' }, 3, 'uid'],
    [{ service: 'email', email: 'a@b.co', password: 'long enough', birthdate: '1990/12/10' }, 4, 'birthdate'],
    [{ service: 'email', email: 'a@b.co', password: 'long enough', birthdate: '31-02-1990' }, 4, 'birthdate'],
    [{ service: 'email', email: 'a@b.co', password: 'long enough', gender: 'X' }, 4, 'gender'],
    [{ service: 'email', email: 'a@b.co', password: 'long enough', country: 'GBR' }, 4, 'country'],
    [{ service: 'email', email: 'a@b.co', password: 'long enough', domain: 'not a domain' }, 4, 'domain'],
    [{ service: 'email', email: 'a@b.co', password: 'long enough', activity_sharing_enabled: 2 }, 4, 'activity_sharing_enabled'],
  ])('refuses %o with code %i on %s, writing nothing', async (query, code, param) => {
    const before = await memberCount();
    const response = await call(app, 'POST', '/member/register', query);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: { code, type: expect.any(String), message: expect.any(String), param } });
    expect(await memberCount()).toBe(before);
  });

  it('makes one member of 50 concurrent registrations of one email, and of one network identity', async () => {
    const email = uniqueEmail();
    const uid = `yt-${Date.now()}`;
    const [byEmail, byNetwork] = await Promise.all([
      Promise.all(Array.from({ length: 50 }, () => call(app, 'POST', '/member/register', { service: 'email', email, password: 'same password' }))),
      Promise.all(Array.from({ length: 50 }, (_, i) => call(app, 'POST', '/member/register', { service: 'youtube', authtoken: `t${i}`, uid }))),
    ]);
    for (const responses of [byEmail, byNetwork]) {
      expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
      expect(new Set(responses.map((r) => r.json[0].data.ID)).size).toBe(1);
    }
    const rows = await t.database.db
      .select()
      .from(memberServices)
      .where(sql`${memberServices.uid} in (${email.toLowerCase()}, ${uid})`);
    expect(rows).toHaveLength(2);
    // 50 argon2 checks of one identity run one after another by design (the sign-in throttle), so
    // a loaded machine needs far longer than the default ceiling.
  }, 300_000);
});

describe('POST /v1.1/member/[id]/register', () => {
  it('attaches a network to a member, and refuses an identity that is another member’s', async () => {
    const { envelope } = await registerEmail();
    const uid = `dz-${Date.now()}`;
    const attached = await call(app, 'POST', `/member/${envelope.data.ID}/register`, { service: 'deezer', authtoken: 'dz', uid });
    expect(attached.status).toBe(200);
    expect(attached.json.services.map((s: { Service: string }) => s.Service)).toEqual(['email', 'deezer']);
    const other = await registerEmail();
    const refused = await call(app, 'POST', `/member/${other.envelope.data.ID}/register`, { service: 'deezer', authtoken: 'dz', uid });
    expect(refused.json.error).toMatchObject({ code: 17, param: 'uid' });
  });
});

describe('POST /v1.1/member/login', () => {
  it('signs in by email, records the login event and LastLogin', async () => {
    const { email, envelope } = await registerEmail();
    const response = await call(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse', domain: 'shop.example.com', ip: '198.51.100.7' });
    expect(response.status).toBe(200);
    const body = response.json;
    expect(body.data.ID).toBe(envelope.data.ID);
    expect(body.services[0].LastLogin).toMatch(timestamp);
    expect(body.services[0].Domains).toEqual(['API', 'shop.example.com']);
    const events = await t.database.db
      .select()
      .from(loginEvents)
      .where(sql`${loginEvents.memberId} = ${envelope.data.ID} and ${loginEvents.kind} = 'login'`);
    expect(events).toMatchObject([{ network: 'email', domain: 'shop.example.com', ip: '198.51.100.7', applicationId: app.applicationId }]);
  });

  it('answers 13 for an unknown identity and 18 for a wrong password', async () => {
    const { email } = await registerEmail();
    const unknown = await call(app, 'POST', '/member/login', { service: 'email', email: 'nobody@example.com', password: 'whatever1' });
    expect(unknown.json.error).toMatchObject({ code: 13, type: 'NO_ACCOUNT' });
    const wrong = await call(app, 'POST', '/member/login', { service: 'email', email, password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toMatchObject({ code: 18, type: 'WRONG_PASSWORD', param: 'password' });
    const social = await call(app, 'POST', '/member/login', { service: 'beatsmusic', authtoken: 'x', uid: 'nobody' });
    expect(social.json.error).toMatchObject({ code: 13 });
  });

  it('backs off after five failures, even for the right password, then lets the member in', async () => {
    const { email } = await registerEmail();
    for (let i = 0; i < 5; i += 1) {
      expect((await call(app, 'POST', '/member/login', { service: 'email', email, password: `wrong ${i}` })).json.error.code).toBe(18);
    }
    expect((await call(app, 'POST', '/member/login', { service: 'email', email, password: 'wrong 5' })).json.error.code).toBe(18);
    const blocked = await call(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse' });
    expect(blocked.status).toBe(429);
    expect(blocked.json.error).toMatchObject({ code: 6, message: expect.stringMatching(/try again in \d+ s/) });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await call(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse' })).status).toBe(200);
  });

  it('with strict_sso, needs a registration on that domain', async () => {
    const { email } = await registerEmail(app, { domain: 'one.example.com' });
    const elsewhere = await call(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse', domain: 'two.example.com', strict_sso: 1 });
    expect(elsewhere.json.error).toMatchObject({ code: 13, param: 'domain' });
    const there = await call(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse', domain: 'one.example.com', strict_sso: 1 });
    expect(there.status).toBe(200);
    const sso = await call(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse', domain: 'two.example.com' });
    expect(sso.status).toBe(200);
  });
});

describe('update, reset, verify, merge, delete', () => {
  it('updates the profile (birthdate with slashes) and moves the email identity with the address', async () => {
    const { envelope } = await registerEmail();
    const email = uniqueEmail();
    const response = await call(app, 'POST', `/member/${envelope.data.ID}/update`, { firstname: 'Grace', bio: 'Plays bass', birthdate: '01/02/1985', state: 'Kent', email });
    expect(response.json.data).toMatchObject({ FirstName: 'Grace', Bio: 'Plays bass', State: 'Kent', Email: email });
    expect((await call(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse' })).status).toBe(200);
    const bad = await call(app, 'POST', `/member/${envelope.data.ID}/update`, { birthdate: '02-30-1985' });
    expect(bad.json.error).toMatchObject({ code: 4, param: 'birthdate' });
  });

  it('resets a password on an advanced plan when email and service id match', async () => {
    const { email, envelope } = await registerEmail();
    const serviceId = envelope.services[0].ID;
    const mismatch = await call(app, 'POST', `/member/${envelope.data.ID}/reset`, { email: 'other@example.com', password: 'new password', member_service_id: serviceId });
    expect(mismatch.json.error).toMatchObject({ code: 4, param: 'email' });
    const ok = await call(app, 'POST', `/member/${envelope.data.ID}/reset`, { email, password: 'new password', member_service_id: serviceId });
    expect(ok.status).toBe(200);
    expect((await call(app, 'POST', '/member/login', { service: 'email', email, password: 'new password' })).status).toBe(200);
    const refused = await call(basic, 'POST', `/member/${envelope.data.ID}/reset`, {});
    expect(refused.json.error).toMatchObject({ code: 9, type: 'PLAN_REQUIRED' });
  });

  it('verifies an email only with the registering application’s key, for that member only: an address another member holds is code 1111', async () => {
    const account = await findAccountById(t.database.db, app.accountId);
    const sibling = await createApplication(t.database.db, { accountName: account.name, name: `sibling-${Date.now()}`, plan: 'advanced' });
    const siblingTenant = { accountId: app.accountId, applicationId: sibling.application.id, apiKey: sibling.apiKey };
    const shared = uniqueEmail();
    const first = (await registerEmail()).envelope;
    const second = (await call(app, 'POST', '/member/register', { service: 'soundcloud', authtoken: 'sc', uid: `sc-${Date.now()}`, firstname: 'Second' })).json[0];

    const wrongApp = await call(siblingTenant, 'POST', `/member/${first.data.ID}/verify`, { service: 'email', verified_email: shared });
    expect(wrongApp.json.error).toMatchObject({ code: 7, type: 'WRONG_APPLICATION' });

    const one = await call(app, 'POST', `/member/${first.data.ID}/verify`, { service: 'email', verified_email: shared });
    expect(one.json.data).toMatchObject({ ID: first.data.ID, VerifiedEmail: shared });
    // Verifying it again for the same member is no collision.
    expect((await call(app, 'POST', `/member/${first.data.ID}/verify`, { service: 'email', verified_email: shared })).status).toBe(200);
    const two = await call(app, 'POST', `/member/${second.data.ID}/verify`, { service: 'soundcloud', verified_email: shared.toUpperCase() });
    expect(two.status).toBe(409);
    expect(two.json).toEqual({ error: { code: 1111, type: 'EMAIL_IN_USE', message: expect.stringContaining('sign in'), param: 'verified_email' } });
    // Nothing merged: each id answers as itself, the second member unverified.
    expect((await call(app, 'GET', `/member/${second.data.ID}`)).json.data).toMatchObject({ ID: second.data.ID, VerifiedEmail: null });
    expect((await call(app, 'GET', `/member/${first.data.ID}`)).json.services.map((s: { Service: string }) => s.Service)).toEqual(['email']);
  });

  it('merges explicitly only with the other member’s access token', async () => {
    const into = (await registerEmail()).envelope;
    const from = (await registerEmail()).envelope;
    const wrong = await call(app, 'POST', `/member/${into.data.ID}/merge`, { from: from.data.ID, accesstoken: into.data.AccessToken });
    expect(wrong.json.error).toMatchObject({ code: 15, param: 'accesstoken' });
    expect((await call(app, 'GET', `/member/${from.data.ID}`)).json.data.ID).toBe(from.data.ID);
    const ok = await call(app, 'POST', `/member/${into.data.ID}/merge`, { from: from.data.ID, accesstoken: from.data.AccessToken });
    expect(ok.json.services).toHaveLength(2);
  });

  it('deletes a member with everything that is theirs', async () => {
    const { email, envelope } = await registerEmail();
    expect((await call(app, 'POST', `/member/${envelope.data.ID}/delete`)).json).toEqual({ Result: true });
    expect((await call(app, 'GET', `/member/${envelope.data.ID}`)).status).toBe(404);
    expect((await call(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse' })).json.error.code).toBe(13);
  });
});

describe('GET /v1.1/member/[id]', () => {
  it('finds a member by id, email, verified_email, partner, or service and username', async () => {
    const { email, envelope } = await registerEmail(app, { partner: 'label', sourceuid: '4242' });
    const uid = `tw-${Date.now()}`;
    await call(app, 'POST', `/member/${envelope.data.ID}/register`, { service: 'twitter', authtoken: 'tw', uid });
    await t.database.db
      .update(memberServices)
      .set({ username: 'AdaTweets' })
      .where(sql`${memberServices.uid} = ${uid}`);
    for (const [path, query] of [
      [`/member/${envelope.data.ID}`, {}],
      ['/member/0', { email }],
      ['/member', { partnerCode: 'label', partnerID: '4242' }],
      ['/member', { service: 'twitter', username: 'adatweets' }],
    ] as const) {
      const response = await call(app, 'GET', path, query);
      expect(response.status, JSON.stringify(query)).toBe(200);
      expect(response.json.data.ID).toBe(envelope.data.ID);
      expect(Object.keys(response.json)).toEqual(['data', 'optins', 'services', 'jwt']);
    }
    expect((await call(app, 'GET', '/member', { partnerCode: 'label' })).json.error).toMatchObject({ code: 3, param: 'partnerID' });
    expect((await call(app, 'GET', '/member', {})).json.error).toMatchObject({ code: 3, param: 'id' });
    expect((await call(app, 'GET', '/member/abc')).json.error).toMatchObject({ code: 4, param: 'id' });
  });

  it('finds a member by partnerCode and a non-numeric partnerID, as registration stored it', async () => {
    const sourceuid = `crm-${Date.now()}-A7`;
    const { envelope } = await registerEmail(app, { partner: 'shop', sourceuid });
    const found = await call(app, 'GET', '/member', { partnerCode: 'shop', partnerID: sourceuid });
    expect(found.status, found.body).toBe(200);
    expect(found.json.data.ID).toBe(envelope.data.ID);
    expect(found.json.services[0]).toMatchObject({ PartnerCode: 'shop', PartnerID: sourceuid });
    expect((await call(app, 'GET', '/member/0', { partnerCode: 'shop', partnerID: sourceuid })).json.data.ID).toBe(envelope.data.ID);
    // The same partner reference in another account names nobody here, and the reverse.
    const theirs = `crm-${Date.now()}-B9`;
    await registerEmail(stranger, { partner: 'shop', sourceuid: theirs });
    const elsewhere = await call(app, 'GET', '/member', { partnerCode: 'shop', partnerID: theirs });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json.error).toMatchObject({ code: 5 });
    expect((await call(stranger, 'GET', '/member', { partnerCode: 'shop', partnerID: sourceuid })).json.error).toMatchObject({ code: 5 });
  });

  it('adds the Extended node with extended=1, never a password, and trims with fields', async () => {
    const { envelope } = await registerEmail(app, { firstname: 'Ext' });
    const full = (await call(app, 'GET', `/member/${envelope.data.ID}`, { extended: 1 })).json;
    expect(full.data.Extended).toMatchObject({ aeid: envelope.data.ID, givenName: 'Ext', emailVerified: false, domains: [{ domain: 'API' }] });
    expect(JSON.stringify(full.data.Extended)).not.toMatch(/password/i);
    const trimmed = (await call(app, 'GET', `/member/${envelope.data.ID}`, { fields: 'Email,extended.givenName' })).json;
    expect(trimmed.data).toEqual({ Email: envelope.data.Email, Extended: { givenName: 'Ext' } });
  });

  it('puts the stored custom fields first in Extended, the profile’s over them, and keeps a stored "__proto__" as a field', async () => {
    const { envelope } = await registerEmail(app, { firstname: 'Own' });
    const stored = JSON.parse('{"tier":"gold","givenName":"Stored","__proto__":{"polluted":true}}') as Record<string, unknown>;
    await t.database.db
      .update(members)
      .set({ extended: stored })
      .where(sql`${members.id} = ${envelope.data.ID}`);
    const answer = await call(app, 'GET', `/member/${envelope.data.ID}`, { extended: 1 });
    const extended = answer.json.data.Extended as Record<string, unknown>;
    // jsonb keeps keys in its own order (shorter first); the profile's fields follow them.
    expect(Object.keys(extended).slice(0, 4)).toEqual(['tier', '__proto__', 'givenName', 'aeid']);
    expect(extended).toMatchObject({ tier: 'gold', givenName: 'Own' });
    expect(answer.body).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('lists the member’s domains, with the user agent given on the latest visit', async () => {
    const { envelope } = await registerEmail(app, { domain: 'fans.example.com' });
    const domains = (await call(app, 'GET', `/member/${envelope.data.ID}/domains`)).json;
    expect(domains).toEqual([{ Domain: 'fans.example.com', FirstVisit: expect.stringMatching(timestamp), LastVisit: expect.stringMatching(timestamp), UserAgent: null }]);
  });
});

describe('another account', () => {
  it('gets not found for every member operation, and nothing changes', async () => {
    const { email, envelope } = await registerEmail();
    const id = envelope.data.ID;
    const attempts: ['GET' | 'POST', string, Record<string, string>][] = [
      ['GET', `/member/${id}`, {}],
      ['GET', '/member', { email }],
      ['GET', `/member/${id}/domains`, {}],
      ['POST', `/member/${id}/register`, { service: 'spotify', authtoken: 'x', uid: 'stolen' }],
      ['POST', `/member/${id}/update`, { firstname: 'Mallory' }],
      ['POST', `/member/${id}/reset`, { email, password: 'hijacked!', member_service_id: envelope.services[0].ID }],
      ['POST', `/member/${id}/verify`, { service: 'email', verified_email: email }],
      ['POST', `/member/${id}/merge`, { from: String(id), accesstoken: envelope.data.AccessToken }],
      ['POST', `/member/${id}/delete`, {}],
      ['POST', `/member/${id}/refresh`, { service: 'spotify' }],
    ];
    for (const [method, url, query] of attempts) {
      const response = await call(stranger, method, url, query);
      expect(response.status, url).toBe(404);
      expect(response.json.error.code).toBe(5);
    }
    expect((await call(stranger, 'POST', '/member/login', { service: 'email', email, password: 'correct horse' })).json.error.code).toBe(13);
    const after = (await call(app, 'GET', `/member/${id}`)).json;
    expect(after.data).toEqual(envelope.data);
    expect(after.services).toHaveLength(1);
  });
});

describe('member JWT', () => {
  const viewerQuery = '{ viewer { id email services { network token userId } } }';

  async function asMember(jwt: string, query: string) {
    const response = await t.request({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, payload: { query } });
    bodies.push(response.body);
    return response;
  }

  it('reads its own member through viewer, without tokens, and nothing else', async () => {
    const { envelope } = await registerEmail();
    await call(app, 'POST', `/member/${envelope.data.ID}/register`, { service: 'spotify', authtoken: 'secret-token', uid: `v-${Date.now()}` });
    const viewer = (await asMember(envelope.jwt, viewerQuery)).json();
    expect(viewer.data.viewer).toMatchObject({
      id: String(envelope.data.ID),
      services: [
        { network: 'email', token: null },
        { network: 'spotify', token: null },
      ],
    });
    const other = await asMember(envelope.jwt, `{ member(lookup: { id: "${envelope.data.ID}" }) { id } }`);
    expect(other.json().errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION', aeCode: 7 });
    const rest = await t.request({ url: `/v1.1/member/${envelope.data.ID}`, headers: { authorization: `Bearer ${envelope.jwt}` } });
    expect(rest.json().error.code).toBe(7);
  });

  it('refuses a tampered or foreign token with code 15', async () => {
    const { envelope } = await registerEmail();
    const [header, payload, signature] = envelope.jwt.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = [header, Buffer.from(JSON.stringify({ ...claims, sub: '1' })).toString('base64url'), signature].join('.');
    const response = await asMember(forged, viewerQuery);
    expect(response.statusCode).toBe(401);
    expect(response.json().errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', aeCode: 15 });
  });
});

describe('GraphQL member operations', () => {
  it('register, login and lookup answer like REST', async () => {
    const email = uniqueEmail();
    const registered = await t.graphql(
      app.apiKey,
      `mutation ($email: String!) {
      registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" }, profile: { firstName: "Gql", gender: OTHER } }) {
        created jwt member { id firstName gender accessToken services { network token } }
      }
    }`,
      { email },
    );
    expect(registered.body.errors).toBeUndefined();
    const created = registered.body.data.registerMember;
    expect(created).toMatchObject({ created: true, member: { firstName: 'Gql', gender: 'OTHER', services: [{ network: 'email', token: null }] } });
    const login = await t.graphql(
      app.apiKey,
      `mutation ($email: String!) {
      login(input: { credentials: { network: "email", email: $email, password: "correct horse" } }) { created member { id lastLoginAt } }
    }`,
      { email },
    );
    expect(login.body.data.login).toMatchObject({ created: false, member: { id: created.member.id, lastLoginAt: expect.any(String) } });
    const wrong = await t.graphql(
      app.apiKey,
      `mutation ($email: String!) {
      login(input: { credentials: { network: "email", email: $email, password: "nope nope" } }) { created }
    }`,
      { email },
    );
    expect(wrong.body.errors[0].extensions).toMatchObject({ code: 'WRONG_PASSWORD', aeCode: 18, param: 'password' });
    const found = await t.graphql(app.apiKey, `query ($email: String!) { member(lookup: { email: $email }) { id domains { domain registered } } }`, { email });
    expect(found.body.data.member).toEqual({ id: created.member.id, domains: [{ domain: 'API', registered: true }] });
  });
});
