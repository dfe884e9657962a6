import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members, memberServices, optins } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok, type RestAnswer } from '../support/rest.js';

/** Gaps an integrator of the old interface would hit (issue 15): each answered through real requests. */

let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
let list: { ID: string; Name: string; Label: string };
let strangerList: { ID: string };

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  list = await ok(t.rest(app, 'POST', '/segment/create', { name: 'Newsletter', label: 'Weekly news' }));
  strangerList = await ok(t.rest(stranger, 'POST', '/segment/create', { name: 'Theirs' }));
});
afterAll(() => t.close());

function expectError(response: RestAnswer, status: number, code: number, param: string | null) {
  expect(response.status, response.body).toBe(status);
  expect(response.json.error).toMatchObject({ code, param });
  expect(response.json.error.message).toEqual(expect.any(String));
}

let counter = 0;
async function register(tenant = app, extra: Record<string, string | number> = {}) {
  const email = `compat${++counter}-${Date.now()}@example.com`;
  const [envelope] = await ok(t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', ...extra }));
  return { email, id: envelope.data.ID as number, envelope };
}

const optInRows = (memberId: number) => t.database.db.select().from(optins).where(eq(optins.memberId, memberId)).orderBy(optins.id);
const memberCount = async (accountId: number) =>
  (
    await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(members)
      .where(eq(members.accountId, accountId))
  )[0].n;

describe('1. /optin and /optout: segmentid, and the member by partnerCode + partnerID', () => {
  it('opts in and out of the segment named by segmentid, not the global list', async () => {
    const member = await register();
    const record = { ID: expect.stringMatching(/^\d+$/), Type: 'Segment', SegmentID: list.ID, Label: 'Weekly news', Name: 'Newsletter' };
    const optedIn = await ok(t.rest(app, 'POST', '/optin', { id: member.id, segmentid: list.ID }));
    expect(optedIn).toEqual(record);
    expect((await ok(t.rest(app, 'GET', `/member/${member.id}`))).optins).toEqual([optedIn]);
    expect(await ok(t.rest(app, 'POST', '/optout', { id: member.id, segmentid: list.ID }))).toEqual(optedIn);
    const rows = await optInRows(member.id);
    expect(rows.map((row) => [row.kind, row.segmentId, row.optedOutAt instanceof Date])).toEqual([['segment', Number(list.ID), true]]);
  });

  it('finds the member by partnerCode and partnerID, as member show does', async () => {
    const member = await register(app, { partner: 'acme', sourceuid: 'ext-42' });
    const optedIn = await ok(t.rest(app, 'POST', '/optin', { partnerCode: 'acme', partnerID: 'ext-42', segmentid: list.ID }));
    expect(optedIn).toMatchObject({ Type: 'Segment', SegmentID: list.ID });
    const global = await ok(t.rest(app, 'POST', '/optin', { partnercode: 'acme', partnerid: 'ext-42' }));
    expect(global).toEqual({ ID: expect.any(String), Type: 'Global', SegmentID: null, Label: null, Name: null });
    expect(await ok(t.rest(app, 'POST', '/optout', { partnerCode: 'acme', partnerID: 'ext-42', segmentid: list.ID }))).toEqual(optedIn);
    expect((await optInRows(member.id)).map((row) => row.kind)).toEqual(['segment', 'global']);
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    const member = await register(app, { partner: 'bad', sourceuid: 'x1' });
    const cases = [
      [{ id: member.id, segmentid: 'abc' }, 400, 4, 'segmentid'],
      [{ id: member.id, segmentid: list.ID, segment: '999' }, 400, 4, 'segmentid'],
      [{ partnerCode: 'bad' }, 400, 3, 'partnerID'],
      [{ partnerID: 'x1' }, 400, 3, 'partnerCode'],
      [{ segmentid: list.ID }, 400, 3, 'id'],
    ] as const;
    for (const path of ['/optin', '/optout']) {
      for (const [query, status, code, param] of cases) expectError(await t.rest(app, 'POST', path, query), status, code, param);
    }
    expect(await optInRows(member.id)).toEqual([]);
  });

  it("answers not found for another account's segment or member, and writes nothing", async () => {
    const member = await register(app, { partner: 'own', sourceuid: 'p1' });
    const theirs = await register(stranger, { partner: 'theirs', sourceuid: 'p2' });
    for (const path of ['/optin', '/optout']) {
      const foreignSegment = await t.rest(app, 'POST', path, { id: member.id, segmentid: strangerList.ID });
      expectError(foreignSegment, 404, 5, 'segmentid');
      expect(foreignSegment.body).not.toContain('Theirs');
      expectError(await t.rest(app, 'POST', path, { partnerCode: 'theirs', partnerID: 'p2', segmentid: list.ID }), 404, 5, 'id');
      expectError(await t.rest(app, 'POST', path, { id: theirs.id }), 404, 5, 'id');
    }
    expect(await optInRows(member.id)).toEqual([]);
    expect(await optInRows(theirs.id)).toEqual([]);
  });
});

describe('2. /member/[id]/register: segmentid and code, as member/register', () => {
  const services = (memberId: number) => t.database.db.select().from(memberServices).where(eq(memberServices.memberId, memberId));
  const importCode = async (memberId: number) => (await t.database.db.select().from(members).where(eq(members.id, memberId)))[0].importCode;

  it('opts the member into the segment and keeps the import code; the envelope lists the opt-in', async () => {
    const member = await register(app, { code: 'first' });
    const envelope = await ok(
      await t.rest(app, 'POST', `/member/${member.id}/register`, { service: 'email', email: `second-${member.email}`, password: 'another horse', segmentid: list.ID, code: 'import-7' }),
    );
    expect(Object.keys(envelope)).toEqual(['data', 'optins', 'services', 'jwt']);
    expect(envelope.optins).toEqual([{ ID: expect.stringMatching(/^\d+$/), Type: 'Segment', SegmentID: list.ID, Label: 'Weekly news', Name: 'Newsletter' }]);
    expect(envelope.services).toHaveLength(2);
    expect(await importCode(member.id)).toBe('import-7');
    // The register form with `id` does the same.
    const other = await register();
    await ok(t.rest(app, 'POST', '/member/register', { id: other.id, service: 'email', email: `again-${other.email}`, password: 'another horse', segmentid: list.ID, code: 'import-8' }));
    expect(await importCode(other.id)).toBe('import-8');
    expect((await optInRows(other.id)).map((row) => row.segmentId)).toEqual([Number(list.ID)]);
  });

  it('refuses a malformed or unknown segment before anything is written', async () => {
    const member = await register();
    for (const [segmentid, status, code] of [
      ['x', 400, 4],
      [0, 400, 4],
      [999999, 404, 5],
    ] as const) {
      const response = await t.rest(app, 'POST', `/member/${member.id}/register`, { service: 'email', email: `bad-${segmentid}-${member.email}`, password: 'another horse', segmentid, code: 'nope' });
      expectError(response, status, code, 'segmentid');
    }
    expect(await services(member.id)).toHaveLength(1);
    expect(await optInRows(member.id)).toEqual([]);
    expect(await importCode(member.id)).toBeNull();
  });

  it("answers not found for another account's segment or member, and writes nothing", async () => {
    const member = await register();
    const theirs = await register(stranger);
    const foreignSegment = await t.rest(app, 'POST', `/member/${member.id}/register`, { service: 'email', email: `x-${member.email}`, password: 'another horse', segmentid: strangerList.ID });
    expectError(foreignSegment, 404, 5, 'segmentid');
    expect(foreignSegment.body).not.toContain('Theirs');
    const foreignMember = await t.rest(app, 'POST', `/member/${theirs.id}/register`, { service: 'email', email: `y-${theirs.email}`, password: 'another horse', segmentid: list.ID, code: 'steal' });
    expectError(foreignMember, 404, 5, 'id');
    expect(foreignMember.body).not.toContain(theirs.email);
    expect(await services(member.id)).toHaveLength(1);
    expect(await services(theirs.id)).toHaveLength(1);
    expect([...(await optInRows(member.id)), ...(await optInRows(theirs.id))]).toEqual([]);
    expect(await importCode(theirs.id)).toBeNull();
  });
});

describe("3. /v1.1/auth accepts a member's own AccessToken and answers member show's record and opt-ins", () => {
  it('answers the same envelope as member show, with jwt, for an AccessToken (which stays usable)', async () => {
    const member = await register(app, { firstname: 'Ada' });
    const token = member.envelope.data.AccessToken as string;
    expect(token).toMatch(/^[0-9a-f]{32}_\d+$/);
    const shown = await ok(t.rest(app, 'GET', `/member/${member.id}`));
    const jwt = expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    for (const method of ['POST', 'GET'] as const) {
      // The lean view by default; details=1 adds the linked services, without their tokens.
      const body = await ok(t.rest(app, method, '/auth', { accesstoken: token }));
      expect(Object.keys(body)).toEqual(['data', 'optins', 'jwt']);
      expect(body).toEqual({ data: shown.data, optins: shown.optins, jwt });
      const detailed = await ok(t.rest(app, method, '/auth', { accesstoken: token, details: 1 }));
      expect(Object.keys(detailed)).toEqual(['data', 'optins', 'services', 'jwt']);
      const services = shown.services.map(({ Token, TokenSecret, ...service }: Record<string, unknown>) => service);
      expect(detailed).toEqual({ data: shown.data, optins: shown.optins, services, jwt });
    }
    const trimmed = await ok(t.rest(app, 'POST', '/auth', { accessToken: token, fields: 'ID,FirstName', extended: 1 }));
    expect(trimmed.data).toEqual({ ID: member.id, FirstName: 'Ada', Extended: expect.objectContaining({ givenName: 'Ada' }) });
  });

  it('answers the same envelope for a sign-in token from the hosted flow', async () => {
    const member = await register();
    const { issueSignInToken } = await import('../../src/modules/widget/widget.service.js');
    const token = await issueSignInToken(t.database.db, { accountId: app.accountId, applicationId: app.applicationId }, { id: member.id, sessionGeneration: 0 });
    const body = await ok(t.rest(app, 'POST', '/auth', { accessToken: token }));
    expect(Object.keys(body)).toEqual(['data', 'optins', 'jwt']);
    expect(body.data).toMatchObject({ ID: member.id, Email: member.email });
    expect(body.jwt).toEqual(expect.any(String));
  });

  it('refuses a missing or malformed token with a clear error', async () => {
    expectError(await t.rest(app, 'POST', '/auth', {}), 400, 3, 'accessToken');
    expectError(await t.rest(app, 'POST', '/auth', { accessToken: 'x', details: 'maybe' }), 400, 4, 'details');
    expectError(await t.rest(app, 'POST', '/auth', { accessToken: `${'0'.repeat(32)}_1700000000` }), 401, 15, 'accessToken');
  });

  it("answers code 15 for another account's member token, a deleted member's and an expired sign-in token, leaking nothing", async () => {
    const theirs = await register(stranger, { firstname: 'Secret' });
    const foreign = await t.rest(app, 'POST', '/auth', { accessToken: theirs.envelope.data.AccessToken });
    expectError(foreign, 401, 15, 'accessToken');
    expect(foreign.body).not.toContain('Secret');
    expect(foreign.body).not.toContain(theirs.email);
    // Its own account still accepts it.
    expect((await ok(t.rest(stranger, 'POST', '/auth', { accessToken: theirs.envelope.data.AccessToken }))).data.ID).toBe(theirs.id);

    const gone = await register();
    await ok(t.rest(app, 'POST', `/member/${gone.id}/delete`));
    expectError(await t.rest(app, 'POST', '/auth', { accessToken: gone.envelope.data.AccessToken }), 401, 15, 'accessToken');

    const member = await register();
    const { issueSignInToken } = await import('../../src/modules/widget/widget.service.js');
    const expired = await issueSignInToken(t.database.db, { accountId: app.accountId, applicationId: app.applicationId }, { id: member.id, sessionGeneration: 0 }, new Date(Date.now() - 3_600_000));
    expectError(await t.rest(app, 'POST', '/auth', { accessToken: expired }), 401, 15, 'accessToken');
  });
});

describe('5. member show by service + username finds members registered with that username through the API', () => {
  it('finds a network and an email registration, and an attached service, by the username sent', async () => {
    const uid = `sp-${Date.now()}`;
    const [spotify] = await ok(t.rest(app, 'POST', '/member/register', { service: 'spotify', uid, authtoken: 'token-1', username: 'Ada_Music' }));
    expect(spotify.services[0]).toMatchObject({ Service: 'spotify', UserID: uid, Username: 'Ada_Music' });
    const found = await ok(t.rest(app, 'GET', '/member/0', { service: 'spotify', username: 'ada_music' }));
    expect(found.data.ID).toBe(spotify.data.ID);
    expect(Object.keys(found)).toEqual(['data', 'optins', 'services', 'jwt']);

    const byEmail = await register(app, { username: 'grace.h' });
    expect((await ok(t.rest(app, 'GET', '/member', { service: 'email', username: 'grace.h' }))).data.ID).toBe(byEmail.id);

    const attachedTo = await register();
    await ok(t.rest(app, 'POST', `/member/${attachedTo.id}/register`, { service: 'deezer', uid: `dz-${Date.now()}`, authtoken: 't', username: 'deez_fan' }));
    expect((await ok(t.rest(app, 'GET', '/member/0', { service: 'deezer', username: 'deez_fan' }))).data.ID).toBe(attachedTo.id);
  });

  it('refuses half a pair with a clear error', async () => {
    expectError(await t.rest(app, 'GET', '/member/0', { service: 'spotify' }), 400, 3, 'username');
    expectError(await t.rest(app, 'GET', '/member/0', { username: 'ada_music' }), 400, 3, 'service');
  });

  it("does not find another account's member by its username", async () => {
    const [theirs] = await ok(t.rest(stranger, 'POST', '/member/register', { service: 'spotify', uid: `sp-x-${Date.now()}`, authtoken: 't', username: 'only_theirs' }));
    const response = await t.rest(app, 'GET', '/member/0', { service: 'spotify', username: 'only_theirs' });
    expectError(response, 404, 5, 'id');
    expect(response.body).not.toContain(String(theirs.data.AccessToken));
    expect((await ok(t.rest(stranger, 'GET', '/member/0', { service: 'spotify', username: 'only_theirs' }))).data.ID).toBe(theirs.data.ID);
  });
});

describe('6. totalSize is a JSON number everywhere, as in the listing sample', () => {
  it('answers a number from every route that has one', async () => {
    const brand = await ok(t.rest(app, 'POST', '/brand/create', { name: 'Sized Brand' }));
    await register();
    const window = { period: '1 Week' };
    const routes: [string, Record<string, string | number>][] = [
      ['/members/all', {}],
      ['/members/active', window],
      ['/members/login', window],
      ['/activity/feed', window],
      ['/brands', {}],
      ['/brands/crossover', window],
      [`/brands/${brand.ID}/crossover`, window],
      ['/segments', {}],
      [`/brand/${brand.ID}/segments`, {}],
      ['/activities', {}],
      ['/activities/count/daily', window],
      [`/brand/${brand.ID}/stats/activity`, window],
      [`/brand/${brand.ID}/stats/age`, window],
      [`/brand/${brand.ID}/stats/gender`, window],
      [`/brand/${brand.ID}/stats/segments`, {}],
      ['/members/domains', window],
    ];
    for (const [path, query] of routes) {
      const body = await ok(t.rest(app, 'GET', path, query));
      const envelope = Array.isArray(body) ? body[0] : body;
      expect(typeof envelope.totalSize, `${path}: ${JSON.stringify(envelope)}`).toBe('number');
      expect(Number.isInteger(envelope.totalSize)).toBe(true);
    }
    const segments = await ok(t.rest(app, 'GET', '/segments'));
    expect(segments.totalSize).toBe(segments.items.length);
  });

  it('keeps refusing bad paging with code 4 and foreign brands with code 5', async () => {
    expectError(await t.rest(app, 'GET', '/brands', { limit: 'many' }), 400, 4, 'limit');
    const theirs = await ok(t.rest(stranger, 'POST', '/brand/create', { name: 'Hidden Brand' }));
    const foreign = await t.rest(app, 'GET', `/brands/${theirs.ID}/crossover`);
    expectError(foreign, 404, 5, expect.any(String) as never);
    expect(foreign.body).not.toContain('Hidden Brand');
  });
});

describe('7. lenient where the old interface was lenient', () => {
  it('ignores limit and threshold on member show without showactions or showbrands, but not their form', async () => {
    const member = await register();
    const plain = await ok(t.rest(app, 'GET', `/member/${member.id}`));
    expect(await ok(t.rest(app, 'GET', `/member/${member.id}`, { limit: 5, threshold: 2 }))).toEqual({ ...plain, jwt: expect.any(String) });
    const withActions = await ok(t.rest(app, 'GET', `/member/${member.id}`, { limit: 5, threshold: 2, showactions: 'yes' }));
    expect(withActions.actions).toEqual([]);
    expectError(await t.rest(app, 'GET', `/member/${member.id}`, { limit: 'lots' }), 400, 4, 'limit');
    expectError(await t.rest(app, 'GET', `/member/${member.id}`, { threshold: 0 }), 400, 4, 'threshold');
    // Past GraphQL's Int, as many activities as any member can have.
    const beyond = await ok(t.rest(app, 'GET', `/member/${member.id}`, { threshold: '2147483648', showbrands: 1 }));
    expect(beyond.brands).toEqual([]);
    expect(await ok(t.rest(app, 'GET', `/member/${member.id}`, { threshold: '99999999999999' }))).toEqual({ ...plain, jwt: expect.any(String) });
  });

  it('reads yes/no and on/off as booleans, and refuses other words naming the parameter', async () => {
    const member = await register();
    const shown = await ok(t.rest(app, 'GET', `/member/${member.id}`, { extended: 'on', showbrands: 'Yes', showactions: 'no', showposition: 'off' }));
    expect(shown.data.Extended).toEqual(expect.objectContaining({ email: member.email }));
    expect(shown.brands).toEqual([]);
    expect(shown.actions).toBeUndefined();
    expect(shown.data.AEPosition).toBeUndefined();
    expectError(await t.rest(app, 'GET', `/member/${member.id}`, { extended: 'si' }), 400, 4, 'extended');
  });

  it('reads birthdate as dd-mm-yyyy, dd/mm/yyyy or yyyy-mm-dd on register and update', async () => {
    const birthDate = async (id: number) => (await t.database.db.select().from(members).where(eq(members.id, id)))[0].birthDate;
    const dashes = await register(app, { birthdate: '24-12-1990' });
    const slashes = await register(app, { birthdate: '24/12/1990' });
    const iso = await register(app, { birthdate: '1990-12-24' });
    for (const { id } of [dashes, slashes, iso]) expect(await birthDate(id)).toBe('1990-12-24');
    for (const [value, expected] of [
      ['01-02-1985', '1985-02-01'],
      ['3/4/1970', '1970-04-03'],
      ['2000-05-06', '2000-05-06'],
    ]) {
      await ok(t.rest(app, 'POST', `/member/${dashes.id}/update`, { birthdate: value }));
      expect(await birthDate(dashes.id)).toBe(expected);
    }
  });

  it('refuses a malformed birthdate with code 4 naming it, and writes nothing', async () => {
    const before = await memberCount(app.accountId);
    for (const birthdate of ['31-02-1990', '12-24-1990', '1990/12/24', 'soon']) {
      expectError(await t.rest(app, 'POST', '/member/register', { service: 'email', email: `bd-${counter++}-${Date.now()}@example.com`, password: 'correct horse', birthdate }), 400, 4, 'birthdate');
    }
    expect(await memberCount(app.accountId)).toBe(before);
    const member = await register(app, { birthdate: '1990-12-24' });
    expectError(await t.rest(app, 'POST', `/member/${member.id}/update`, { birthdate: '1990-13-01', firstname: 'Changed' }), 400, 4, 'birthdate');
    const [row] = await t.database.db.select().from(members).where(eq(members.id, member.id));
    expect([row.birthDate, row.firstName]).toEqual(['1990-12-24', null]);
  });

  it("answers not found for another account's member, with any date form, and writes nothing", async () => {
    const theirs = await register(stranger, { birthdate: '01-01-1980' });
    const response = await t.rest(app, 'POST', `/member/${theirs.id}/update`, { birthdate: '02/02/1990' });
    expectError(response, 404, 5, 'id');
    expect(response.body).not.toContain(theirs.email);
    expect((await t.database.db.select().from(members).where(eq(members.id, theirs.id)))[0].birthDate).toBe('1980-01-01');
  });
});

describe('8. a method a path does not take answers 405 with Allow', () => {
  const body = (method: string, path: string, use: string) => ({
    error: { code: 5, type: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on /v1.1${path}; use ${use}.`, param: null },
  });

  it('answers GET /v1.1/member/register with 405, the error body and Allow: POST, not member show', async () => {
    const response = await t.rest(app, 'GET', '/member/register');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.json).toEqual(body('GET', '/member/register', 'POST'));
    for (const path of ['/member/login', '/brand/create', '/optin', '/member/7/register', '/segment/create']) {
      const other = await t.rest(app, 'GET', path);
      expect(other.status, path).toBe(405);
      expect(other.headers.allow).toBe('POST');
      expect(other.json).toEqual(body('GET', path, 'POST'));
    }
  });

  it('answers other methods alike, naming GET and HEAD for read paths and both for /auth', async () => {
    const member = await register();
    const post = await t.rest(app, 'POST', `/member/${member.id}`);
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
    expect(post.json).toEqual(body('POST', `/member/${member.id}`, 'GET'));
    const put = await t.rest(app, 'PUT', '/auth');
    expect([put.status, put.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    const del = await t.rest(app, 'DELETE', '/member/register');
    expect([del.status, del.json.error.type]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    // The operations themselves still answer, and an unknown path is still 404.
    expect((await t.rest(app, 'GET', `/member/${member.id}`)).status).toBe(200);
    expect((await t.rest(app, 'GET', '/member/nothing/here')).status).toBe(404);
  });

  it('writes nothing, whatever the parameters, for any key', async () => {
    const before = await memberCount(app.accountId);
    const query = { service: 'email', email: `get-${Date.now()}@example.com`, password: 'correct horse' };
    expect((await t.rest(app, 'GET', '/member/register', query)).status).toBe(405);
    expect((await t.rest(stranger, 'GET', '/member/register', query)).status).toBe(405);
    expect((await t.rest(null, 'GET', '/member/register')).status).toBe(405);
    expect((await t.rest({ apiKey: 'unknown-key' }, 'GET', '/member/register')).json.error.code).toBe(2);
    expect(await memberCount(app.accountId)).toBe(before);
    const theirs = await register(stranger);
    const foreign = await t.rest(app, 'POST', `/member/${theirs.id}`);
    expect(foreign.status).toBe(405);
    expect(foreign.body).not.toContain(theirs.email);
  });
});

describe('10. GraphQL Member.age', () => {
  const iso = (date: Date) => date.toISOString().slice(0, 10);
  const yearsAgo = (years: number, days = 0) => {
    const now = new Date();
    return iso(new Date(Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() + days)));
  };
  const query = 'query($id: ID!) { member(lookup: { id: $id }) { birthDate age } }';

  it('answers whole years since the birth date in UTC, and null without one', async () => {
    const birthdayToday = await register(app, { birthdate: yearsAgo(30) });
    const birthdayTomorrow = await register(app, { birthdate: yearsAgo(30, 1) });
    const none = await register();
    expect((await t.graphql(app.apiKey, query, { id: String(birthdayToday.id) })).body.data.member).toEqual({ birthDate: yearsAgo(30), age: 30 });
    expect((await t.graphql(app.apiKey, query, { id: String(birthdayTomorrow.id) })).body.data.member.age).toBe(29);
    expect((await t.graphql(app.apiKey, query, { id: String(none.id) })).body.data.member).toEqual({ birthDate: null, age: null });
    // members/all shows the same age.
    const listed = await ok(t.rest(app, 'GET', '/members/all', { members: birthdayTomorrow.id }));
    expect(listed.items[0].Age).toBe('29');
  });

  it('refuses a malformed id and answers not found for another account, without its age', async () => {
    const bad = await t.graphql(app.apiKey, query, { id: 'abc' });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4 });
    const theirs = await register(stranger, { birthdate: '1970-01-01' });
    const foreign = await t.graphql(app.apiKey, query, { id: String(theirs.id) });
    expect(foreign.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', aeCode: 5 });
    expect(foreign.body.data?.member ?? null).toBeNull();
  });
});
