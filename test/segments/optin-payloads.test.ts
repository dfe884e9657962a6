import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, applications, auditEvents, optins } from '../../src/db/schema/index.js';
import { listen } from '../pages/browser.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * memberOptIn and memberOptOut (an API key, errors as data), the lists an application opens to its
 * fans (setSelfServiceLists), and viewerOptIn and viewerOptOut (a member JWT): over the gateway's
 * /graphql on a real port, as a front end calls it.
 */

let t: TestGateway;
let base: string;
let app: Tenant;
let stranger: Tenant;
let brandId: string;
let otherBrandId: string;
let listId: string;
let filterId: string;
let strangerBrandId: string;
let strangerSegmentId: string;

async function post(headers: Record<string, string>, query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  return { status: response.status, json: (await response.json()) as { data?: any; errors?: any } };
}
const asKey = (tenant: Tenant, query: string, variables?: Record<string, unknown>) => post({ 'x-api-key': tenant.apiKey }, query, variables);
const asMember = (jwt: string, query: string, variables?: Record<string, unknown>) => post({ authorization: `Bearer ${jwt}` }, query, variables);

beforeAll(async () => {
  t = await startTestGateway();
  base = await listen(t);
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  brandId = String((await t.rest(app, 'POST', '/brand/create', { name: 'Payload Brand' })).json.ID);
  otherBrandId = String((await t.rest(app, 'POST', '/brand/create', { name: 'Closed Brand' })).json.ID);
  listId = String((await t.rest(app, 'POST', '/segment/create', { name: 'Newsletter', label: 'Weekly news' })).json.ID);
  filterId = String((await t.rest(app, 'POST', '/segment/create', { name: 'Computed', type: 'filter', filter: '{"countries":["GB"]}' })).json.ID);
  strangerBrandId = String((await t.rest(stranger, 'POST', '/brand/create', { name: 'Theirs' })).json.ID);
  strangerSegmentId = String((await t.rest(stranger, 'POST', '/segment/create', { name: 'Their list' })).json.ID);
});
afterAll(() => t.close());

let counter = 0;
async function register(tenant = app) {
  const email = `payload${++counter}-${Date.now()}@example.com`;
  const response = await t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse' });
  expect(response.status, response.body).toBe(200);
  return { email, id: String(response.json[0].data.ID), jwt: response.json[0].jwt as string };
}

const optInRows = (memberId: string) =>
  t.database.db
    .select()
    .from(optins)
    .where(eq(optins.memberId, Number(memberId)))
    .orderBy(optins.id);

const payload = '{ optIn { id kind brandId segmentId name label optedInAt optedOutAt } userErrors { field code message } }';
const memberOptIn = `mutation($member: MemberRef!, $list: OptInListRef!) { memberOptIn(member: $member, list: $list) ${payload} }`;
const memberOptOut = `mutation($member: MemberRef!, $list: OptInListRef!) { memberOptOut(member: $member, list: $list) ${payload} }`;
const viewerOptIn = `mutation($list: OptInListRef!) { viewerOptIn(list: $list) ${payload} }`;
const viewerOptOut = `mutation($list: OptInListRef!) { viewerOptOut(list: $list) ${payload} }`;
const setLists = `mutation($input: SelfServiceListsInput!) { setSelfServiceLists(input: $input) {
  application { id selfServiceLists { global brands { id name } segments { id name } } } userErrors { field code message } } }`;

describe('memberOptIn and memberOptOut', () => {
  it('opt a member in and out of a brand, a segment and the global list, by any MemberRef, with exact answers', async () => {
    const member = await register();
    const brand = await asKey(app, memberOptIn, { member: { id: member.id }, list: { brandId } });
    expect(brand.status).toBe(200);
    expect(brand.json.errors).toBeUndefined();
    expect(brand.json.data.memberOptIn).toEqual({
      optIn: { id: expect.stringMatching(/^\d+$/), kind: 'BRAND', brandId, segmentId: null, name: 'Payload Brand', label: null, optedInAt: expect.any(String), optedOutAt: null },
      userErrors: [],
    });
    const segment = await asKey(app, memberOptIn, { member: { email: member.email.toUpperCase() }, list: { segmentId: listId } });
    expect(segment.json.data.memberOptIn).toEqual({
      optIn: { id: expect.stringMatching(/^\d+$/), kind: 'SEGMENT', brandId: null, segmentId: listId, name: 'Newsletter', label: 'Weekly news', optedInAt: expect.any(String), optedOutAt: null },
      userErrors: [],
    });
    const global = await asKey(app, memberOptIn, { member: { id: member.id }, list: { global: true } });
    expect(global.json.data.memberOptIn.optIn).toMatchObject({ kind: 'GLOBAL', brandId: null, segmentId: null, name: null });
    // A repeat while opted in answers the current opt-in, as optIn does.
    const again = await asKey(app, memberOptIn, { member: { id: member.id }, list: { brandId } });
    expect(again.json.data.memberOptIn).toEqual(brand.json.data.memberOptIn);
    expect(await optInRows(member.id)).toHaveLength(3);

    const out = await asKey(app, memberOptOut, { member: { id: member.id }, list: { brandId } });
    expect(out.json.data.memberOptOut).toEqual({ optIn: { ...brand.json.data.memberOptIn.optIn, optedOutAt: expect.any(String) }, userErrors: [] });
    const shown = await asKey(app, 'query($id: ID!) { member(lookup: { id: $id }) { optins { kind } } }', { id: member.id });
    expect(shown.json.data.member.optins).toEqual([{ kind: 'SEGMENT' }, { kind: 'GLOBAL' }]);
  });

  it('answers the old optIn and optOut as before, both deprecated naming their successors', async () => {
    const member = await register();
    const old = await asKey(app, 'mutation($input: OptInInput!) { optIn(input: $input) { kind brandId } }', { input: { memberId: member.id, brandId } });
    expect(old.json).toEqual({ data: { optIn: { kind: 'BRAND', brandId } } });
    const fields = await asKey(app, '{ __type(name: "Mutation") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }');
    const byName = Object.fromEntries(fields.json.data.__type.fields.map((field: { name: string }) => [field.name, field]));
    expect(byName.optIn).toMatchObject({ isDeprecated: true, deprecationReason: 'Use memberOptIn.' });
    expect(byName.optOut).toMatchObject({ isDeprecated: true, deprecationReason: 'Use memberOptOut.' });
    expect(byName.memberOptIn.isDeprecated).toBe(false);
  });

  it('reports every problem at once, each at its path, and writes nothing', async () => {
    const member = await register();
    const cases: [Record<string, unknown>, Record<string, unknown>, { field: string[]; code: string }[]][] = [
      [{ id: '999999999' }, { brandId }, [{ field: ['member', 'id'], code: 'NOT_FOUND' }]],
      [{ email: 'nobody@example.com' }, { brandId }, [{ field: ['member', 'email'], code: 'NOT_FOUND' }]],
      [{ id: 'abc' }, { brandId }, [{ field: ['member', 'id'], code: 'INVALID' }]],
      [{ id: member.id }, { brandId: '999999999' }, [{ field: ['list', 'brandId'], code: 'NOT_FOUND' }]],
      [{ id: member.id }, { segmentId: '999999999' }, [{ field: ['list', 'segmentId'], code: 'NOT_FOUND' }]],
      [{ id: member.id }, { segmentId: filterId }, [{ field: ['list', 'segmentId'], code: 'INVALID' }]],
      [{ id: member.id }, { brandId: 'x' }, [{ field: ['list', 'brandId'], code: 'INVALID' }]],
      [{ id: member.id }, { global: false }, [{ field: ['list', 'global'], code: 'INVALID' }]],
      [
        { id: '999999999' },
        { segmentId: '999999999' },
        [
          { field: ['member', 'id'], code: 'NOT_FOUND' },
          { field: ['list', 'segmentId'], code: 'NOT_FOUND' },
        ],
      ],
    ];
    for (const [memberRef, list, expected] of cases) {
      for (const mutation of [memberOptIn, memberOptOut]) {
        const answer = await asKey(app, mutation, { member: memberRef, list });
        expect(answer.status, JSON.stringify(list)).toBe(200);
        const result = answer.json.data.memberOptIn ?? answer.json.data.memberOptOut;
        expect(result.optIn).toBeNull();
        expect(
          result.userErrors.map(({ field, code }: { field: string[]; code: string }) => ({ field, code })),
          JSON.stringify([memberRef, list]),
        ).toEqual(expected);
        for (const error of result.userErrors) expect(error.message).toEqual(expect.any(String));
      }
    }
    expect(await optInRows(member.id)).toEqual([]);
    // An opt-out of a list never joined is NOT_FOUND at the list.
    const never = await asKey(app, memberOptOut, { member: { id: member.id }, list: { segmentId: listId } });
    expect(never.json.data.memberOptOut).toEqual({ optIn: null, userErrors: [{ field: ['list', 'segmentId'], code: 'NOT_FOUND', message: 'An opt-in of this member to this list not found.' }] });
    expect(await optInRows(member.id)).toEqual([]);
  });

  it('refuses two lists or two members before anything runs (@oneOf)', async () => {
    const member = await register();
    const two = await asKey(app, memberOptIn, { member: { id: member.id }, list: { brandId, segmentId: listId } });
    expect(two.status).toBe(400);
    expect(two.json.errors[0].message).toMatch(/Exactly one key must be specified for OneOf type "OptInListRef"/);
    const both = await asKey(app, memberOptIn, { member: { id: member.id, email: member.email }, list: { brandId } });
    expect(both.status).toBe(400);
    expect(await optInRows(member.id)).toEqual([]);
  });

  it("answers another tenant's members, brands and segments as not found, word for word, and writes nothing", async () => {
    const mine = await register();
    const theirs = await register(stranger);
    const foreign = await asKey(app, memberOptIn, { member: { id: theirs.id }, list: { brandId: strangerBrandId } });
    const nothing = await asKey(app, memberOptIn, { member: { id: '999999998' }, list: { brandId: '999999998' } });
    expect(foreign.json.data.memberOptIn).toEqual({
      optIn: null,
      userErrors: [
        { field: ['member', 'id'], code: 'NOT_FOUND', message: 'Member not found.' },
        { field: ['list', 'brandId'], code: 'NOT_FOUND', message: 'Brand not found.' },
      ],
    });
    expect(nothing.json.data.memberOptIn).toEqual(foreign.json.data.memberOptIn);
    const byEmail = await asKey(app, memberOptIn, { member: { email: theirs.email }, list: { segmentId: strangerSegmentId } });
    expect(byEmail.json.data.memberOptIn.userErrors.map((error: { field: string[] }) => error.field)).toEqual([
      ['member', 'email'],
      ['list', 'segmentId'],
    ]);
    const mixed = await asKey(app, memberOptIn, { member: { id: mine.id }, list: { segmentId: strangerSegmentId } });
    expect(mixed.json.data.memberOptIn.userErrors).toEqual([{ field: ['list', 'segmentId'], code: 'NOT_FOUND', message: 'Segment not found.' }]);
    expect(await optInRows(mine.id)).toEqual([]);
    expect(await optInRows(theirs.id)).toEqual([]);
  });

  it('refuses a member JWT (WRONG_APPLICATION)', async () => {
    const member = await register();
    const answer = await asMember(member.jwt, memberOptIn, { member: { id: member.id }, list: { brandId } });
    expect(answer.json.errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION' });
    expect(await optInRows(member.id)).toEqual([]);
  });
});

describe('setSelfServiceLists', () => {
  it('opens nothing until set; sets, shows and replaces the lists; records the change', async () => {
    const tenant = await t.tenant('advanced');
    const brand = String((await t.rest(tenant, 'POST', '/brand/create', { name: 'Own' })).json.ID);
    const shown = await asKey(tenant, '{ application { selfServiceLists { global brands { id } segments { id } } } }');
    expect(shown.json.data.application.selfServiceLists).toEqual({ global: false, brands: [], segments: [] });
    const set = await asKey(tenant, setLists, { input: { global: true, brandIds: [brand, brand] } });
    expect(set.json.data.setSelfServiceLists).toEqual({
      application: { id: String(tenant.applicationId), selfServiceLists: { global: true, brands: [{ id: brand, name: 'Own' }], segments: [] } },
      userErrors: [],
    });
    const [row] = await t.database.db.select().from(applications).where(eq(applications.id, tenant.applicationId));
    expect(row.settings.selfServiceLists).toEqual({ global: true, brandIds: [Number(brand)], segmentIds: [] });
    const audit = await t.database.db.select().from(auditEvents).where(eq(auditEvents.accountId, tenant.accountId));
    expect(audit.map((event) => [event.action, event.details])).toContainEqual(['application.settings', { setting: 'selfServiceLists' }]);
    const cleared = await asKey(tenant, setLists, { input: {} });
    expect(cleared.json.data.setSelfServiceLists.application.selfServiceLists).toEqual({ global: false, brands: [], segments: [] });
  });

  it("refuses unknown, another tenant's, malformed and FILTER ids, every one at its index, and changes nothing", async () => {
    await asKey(app, setLists, { input: { brandIds: [brandId], segmentIds: [listId] } });
    const answer = await asKey(app, setLists, { input: { global: true, brandIds: [brandId, strangerBrandId, 'x'], segmentIds: [filterId, strangerSegmentId, listId] } });
    expect(answer.json.data.setSelfServiceLists.application).toBeNull();
    expect(answer.json.data.setSelfServiceLists.userErrors.map(({ field, code }: { field: string[]; code: string }) => ({ field, code }))).toEqual([
      { field: ['input', 'brandIds', '1'], code: 'NOT_FOUND' },
      { field: ['input', 'brandIds', '2'], code: 'INVALID' },
      { field: ['input', 'segmentIds', '0'], code: 'INVALID' },
      { field: ['input', 'segmentIds', '1'], code: 'NOT_FOUND' },
    ]);
    const [row] = await t.database.db.select().from(applications).where(eq(applications.id, app.applicationId));
    expect(row.settings.selfServiceLists).toEqual({ global: false, brandIds: [Number(brandId)], segmentIds: [Number(listId)] });
    const long = await asKey(app, setLists, { input: { brandIds: Array.from({ length: 101 }, (_, index) => String(index + 1)) } });
    expect(long.json.data.setSelfServiceLists.userErrors).toEqual([{ field: ['input', 'brandIds'], code: 'INVALID', message: "The parameter 'brandIds' is invalid: expected at most 100 ids, got 101." }]);
  });

  it('is refused to a member JWT, and selfServiceLists is not readable with one', async () => {
    const member = await register();
    const answer = await asMember(member.jwt, setLists, { input: { global: true } });
    expect(answer.json.errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION' });
    const read = await asMember(member.jwt, '{ application { selfServiceLists { global } } }');
    expect(read.json.errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION' });
  });
});

describe('viewerOptIn and viewerOptOut', () => {
  beforeAll(async () => {
    const set = await asKey(app, setLists, { input: { global: false, brandIds: [brandId], segmentIds: [listId] } });
    expect(set.json.data.setSelfServiceLists.userErrors).toEqual([]);
  });

  it('opt the signed-in member into and out of the lists open to fans, with exact answers', async () => {
    const member = await register();
    const brand = await asMember(member.jwt, viewerOptIn, { list: { brandId } });
    expect(brand.status).toBe(200);
    expect(brand.json.data.viewerOptIn).toEqual({
      optIn: { id: expect.stringMatching(/^\d+$/), kind: 'BRAND', brandId, segmentId: null, name: 'Payload Brand', label: null, optedInAt: expect.any(String), optedOutAt: null },
      userErrors: [],
    });
    const segment = await asMember(member.jwt, viewerOptIn, { list: { segmentId: listId } });
    expect(segment.json.data.viewerOptIn.optIn).toMatchObject({ kind: 'SEGMENT', segmentId: listId, label: 'Weekly news' });
    const viewer = await asMember(member.jwt, '{ viewer { id optins { kind brandId segmentId } } }');
    expect(viewer.json.data.viewer).toEqual({
      id: member.id,
      optins: [
        { kind: 'BRAND', brandId, segmentId: null },
        { kind: 'SEGMENT', brandId: null, segmentId: listId },
      ],
    });
    const out = await asMember(member.jwt, viewerOptOut, { list: { segmentId: listId } });
    expect(out.json.data.viewerOptOut).toEqual({ optIn: { ...segment.json.data.viewerOptIn.optIn, optedOutAt: expect.any(String) }, userErrors: [] });
    const rows = await optInRows(member.id);
    expect(rows.map((row) => [row.kind, row.optedOutAt === null])).toEqual([
      ['brand', true],
      ['segment', false],
    ]);
  });

  it('refuses a list not open to fans, gone, or of another account alike, and writes nothing', async () => {
    const member = await register();
    const refused = { optIn: null, userErrors: [{ field: ['list', 'brandId'], code: 'NOT_FOUND', message: 'No list open to fans here has this id.' }] };
    for (const id of [otherBrandId, strangerBrandId, '999999999']) {
      expect((await asMember(member.jwt, viewerOptIn, { list: { brandId: id } })).json.data.viewerOptIn).toEqual(refused);
      expect((await asMember(member.jwt, viewerOptOut, { list: { brandId: id } })).json.data.viewerOptOut).toEqual(refused);
    }
    for (const id of [filterId, strangerSegmentId]) {
      expect((await asMember(member.jwt, viewerOptIn, { list: { segmentId: id } })).json.data.viewerOptIn.userErrors).toEqual([
        { field: ['list', 'segmentId'], code: 'NOT_FOUND', message: 'No list open to fans here has this id.' },
      ]);
    }
    // The global list is closed here (global: false).
    expect((await asMember(member.jwt, viewerOptIn, { list: { global: true } })).json.data.viewerOptIn.userErrors).toEqual([
      { field: ['list', 'global'], code: 'NOT_FOUND', message: 'No list open to fans here has this id.' },
    ]);
    expect((await asMember(member.jwt, viewerOptIn, { list: { global: false } })).json.data.viewerOptIn.userErrors).toMatchObject([{ field: ['list', 'global'], code: 'INVALID' }]);
    // A list the label opened to fans, never joined: nothing to opt out of.
    expect((await asMember(member.jwt, viewerOptOut, { list: { brandId } })).json.data.viewerOptOut.userErrors).toEqual([
      { field: ['list', 'brandId'], code: 'NOT_FOUND', message: 'An opt-in of yours to this list not found.' },
    ]);
    expect(await optInRows(member.id)).toEqual([]);
  });

  it("a brand deleted after it was opened closes its list; the label's own key still reaches it", async () => {
    const member = await register();
    const doomed = String((await t.rest(app, 'POST', '/brand/create', { name: 'Doomed' })).json.ID);
    await asKey(app, setLists, { input: { brandIds: [brandId, doomed], segmentIds: [listId] } });
    expect((await asMember(member.jwt, viewerOptIn, { list: { brandId: doomed } })).json.data.viewerOptIn.userErrors).toEqual([]);
    expect((await t.rest(app, 'POST', `/brand/${doomed}/delete`)).status).toBe(200);
    expect((await asMember(member.jwt, viewerOptOut, { list: { brandId: doomed } })).json.data.viewerOptOut.userErrors).toMatchObject([{ field: ['list', 'brandId'], code: 'NOT_FOUND' }]);
    const shown = await asKey(app, '{ application { selfServiceLists { brands { id } } } }');
    expect(shown.json.data.application.selfServiceLists.brands).toEqual([{ id: brandId }]);
  });

  it("opens lists per application: a JWT of the account's other application, or of another account, opts into none", async () => {
    const [account] = await t.database.db.select().from(accounts).where(eq(accounts.id, app.accountId));
    const sibling = await t.tenant('advanced', account.name);
    expect(sibling.accountId).toBe(app.accountId);
    const member = await register(sibling);
    expect((await asMember(member.jwt, viewerOptIn, { list: { brandId } })).json.data.viewerOptIn.userErrors).toMatchObject([{ field: ['list', 'brandId'], code: 'NOT_FOUND' }]);
    // The stranger's application opened nothing: neither its own brand nor this account's open one.
    const theirs = await register(stranger);
    expect((await asMember(theirs.jwt, viewerOptIn, { list: { brandId: strangerBrandId } })).json.data.viewerOptIn.userErrors).toMatchObject([{ code: 'NOT_FOUND' }]);
    expect((await asMember(theirs.jwt, viewerOptIn, { list: { brandId } })).json.data.viewerOptIn.userErrors).toMatchObject([{ code: 'NOT_FOUND' }]);
    expect(await optInRows(member.id)).toEqual([]);
    expect(await optInRows(theirs.id)).toEqual([]);
  });

  it('refuses an API key (WRONG_APPLICATION), a JWT whose sessions ended (INVALID_TOKEN), and writes nothing', async () => {
    const member = await register();
    const key = await asKey(app, viewerOptIn, { list: { brandId } });
    expect(key.json.errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION' });
    const revoked = await asKey(app, 'mutation($id: ID!) { revokeMemberSessions(id: $id) { member { id } } }', { id: member.id });
    expect(revoked.json.errors).toBeUndefined();
    const ended = await asMember(member.jwt, viewerOptIn, { list: { brandId } });
    expect(ended.status).toBe(401);
    expect(ended.json.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN' });
    expect(await optInRows(member.id)).toEqual([]);
  });
});
