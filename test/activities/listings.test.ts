import { desc, eq, inArray } from 'drizzle-orm';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityRecords, memberDomains, members, memberServices } from '../../src/db/schema/index.js';
import { compileFilter } from '../../src/filters/compile.js';
import { listingWindow, resolveWindow } from '../../src/filters/window.js';
import { feedRecords } from '../../src/modules/activities/feed.queries.js';
import { operationCost } from '../../src/graphql/limits.js';
import { getSchema } from '../../src/graphql/schema.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import type { RestParams } from '../support/rest.js';
import { createActivity, daysAgo, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';

let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
let music: number;
let sport: number;
const act = { listen: 0, share: 0, follow: 0, watch: 0 };
let m1: number, m2: number, m3: number, m4: number;

/**
 * The known data set (points: listen 2, share 5, watch 3, follow 10 one-time):
 * m1 (GB): listen 1h, 2d, 10d ago; share 3d ago          → week 9 points, 3 records
 * m2 (US): watch 1d, 2d ago; follow 1d ago (one-time)     → week 6 (16 with one-time)
 * m3 (GB): listen 5d, 20d ago; share 6d ago               → week 7, 2 records
 * m4 (GB): nothing.
 */
beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  music = await insertBrand(t, app, 'The Band');
  sport = await insertBrand(t, app, 'The Club', 'Sport');
  act.listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: music, points: 2 });
  act.share = await createActivity(t, app, { name: 'Share', type: 'Shared', service: 'twitter', brandid: music, points: 5 });
  act.follow = await createActivity(t, app, { name: 'Follow', type: 'Followed', brandid: sport, points: 10, onetime: 1 });
  act.watch = await createActivity(t, app, { name: 'Watch', type: 'Watched', service: 'youtube', brandid: sport, points: 3 });
  [m1, m2, m3, m4] = await insertMembers(t, app, [
    { country: 'GB', state: 'England', paid: true, lastLoginAt: new Date(Date.now() - 2 * 3600_000) },
    { country: 'US', network: 'youtube', lastLoginAt: new Date(Date.now() - 30 * 3600_000) },
    { country: 'GB', state: 'Scotland' },
    { country: 'GB' },
  ]);
  await record(t, app, [
    { activityId: act.listen, memberId: m1, completedAt: hoursAgo(1), content: { track: 'Song A' } },
    { activityId: act.listen, memberId: m1, completedAt: daysAgo(2) },
    { activityId: act.listen, memberId: m1, completedAt: daysAgo(10) },
    { activityId: act.share, memberId: m1, completedAt: daysAgo(3) },
    { activityId: act.watch, memberId: m2, completedAt: daysAgo(1) },
    { activityId: act.watch, memberId: m2, completedAt: daysAgo(2) },
    { activityId: act.follow, memberId: m2, completedAt: daysAgo(1) },
    { activityId: act.listen, memberId: m3, completedAt: daysAgo(5) },
    { activityId: act.listen, memberId: m3, completedAt: daysAgo(20) },
    { activityId: act.share, memberId: m3, completedAt: daysAgo(6) },
  ]);
});
afterAll(() => t.close());

// The key goes as lower-case `apikey`, as this suite has always sent it (the paging links leave it out: the caller adds it again).
const get = (tenant: Tenant, path: string, query: RestParams = {}) => t.rest(null, 'GET', path, { apikey: tenant.apiKey, ...query });

async function ranking(query: Record<string, string | number> = {}) {
  const response = await get(app, '/members/active', query);
  expect(response.status, response.body).toBe(200);
  const [body] = response.json;
  return body.items.map((item: { ID: string; Score: string; ActivityCount: string }) => [Number(item.ID), Number(item.Score), Number(item.ActivityCount)]);
}

describe('GET /v1.1/members/active', () => {
  it('ranks the members active in the last week by score, one-time activities left out', async () => {
    expect(await ranking()).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
      [m2, 6, 2],
    ]);
  });

  it('answers the seed envelope with the listing item fields', async () => {
    const response = await get(app, '/members/active', { brandID: music, limit: 1 });
    const body = response.json;
    expect(Array.isArray(body)).toBe(true);
    expect(Object.keys(body[0])).toEqual(['totalSize', 'items', 'paging']);
    const [item] = body[0].items;
    expect(Object.keys(item)).toEqual([
      'ID',
      'UUID',
      'FirstName',
      'Surname',
      'Username',
      'Email',
      'Gender',
      'Bio',
      'City',
      'State',
      'Country',
      'Address',
      'Addressline2',
      'PostCode',
      'HomePhone',
      'MobilePhone',
      'GeoCity',
      'GeoRegion',
      'GeoCountry',
      'GeoLat',
      'GeoLong',
      'CountryCode',
      'Services',
      'OptIns',
      'VerifiedEmail',
      'BrandName',
      'BrandType',
      'LastVisited',
      'Score',
      'ActivityCount',
      'BrandID',
      'MemberAvatarURL',
      'LastActivity',
      'Brand',
    ]);
    expect(item).toMatchObject({ ID: String(m1), Score: '9', ActivityCount: '3', BrandName: 'The Band', BrandType: 'Music', BrandID: String(music) });
    expect(item.Brand).toEqual({ ID: String(music), Name: 'The Band', Type: 'Music' });
    expect(item.LastActivity).toMatchObject({ Name: 'Listen', ActivityID: String(act.listen), Content: { track: 'Song A' }, Link: null });
    expect(item.LastActivity.CompleteDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(item.Services[0]).toMatchObject({ Service: 'Spotify', Valid: '1', PaidAccount: '1' });
    expect(item.Services[0]).toHaveProperty('Expires', null);
    expect(body[0].totalSize).toBe(1);
  });

  it('applies each filter alone', async () => {
    expect(await ranking({ includeOneTime: 1 })).toEqual([
      [m2, 16, 3],
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
    expect(await ranking({ brandID: music })).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
    expect(await ranking({ brandID: sport, includeonetime: 1 })).toEqual([[m2, 16, 3]]);
    expect(await ranking({ activityID: act.listen })).toEqual([
      [m1, 4, 2],
      [m3, 2, 1],
    ]);
    expect(await ranking({ activityID: `${act.share},${act.watch}` })).toEqual([
      [m2, 6, 2],
      [m1, 5, 1],
      [m3, 5, 1],
    ]);
    expect(await ranking({ services: 'youtube' })).toEqual([[m2, 6, 2]]);
    expect(await ranking({ country: 'gb' })).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
    expect(await ranking({ country: 'GB', region: 'scotland' })).toEqual([[m3, 7, 2]]);
    expect(await ranking({ members: `${m2},${m3}` })).toEqual([
      [m3, 7, 2],
      [m2, 6, 2],
    ]);
    expect(await ranking({ exclude_members: String(m1) })).toEqual([
      [m3, 7, 2],
      [m2, 6, 2],
    ]);
    expect(await ranking({ anyofactivities: String(act.watch) })).toEqual([[m2, 6, 2]]);
    expect(await ranking({ allofactivities: `${act.listen},${act.share}` })).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
    expect(await ranking({ allofactivities: `${sport}-${act.listen}` })).toEqual([]);
    expect(await ranking({ anyofactivities: `${music}-${act.listen}` })).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
    expect(await ranking({ paid_only: 1 })).toEqual([[m1, 9, 3]]);
    expect(await ranking({ required_fields: 'State' })).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
  });

  it('filters by email and by registration domain', async () => {
    const [row] = await t.database.db.select({ email: members.email }).from(members).where(eq(members.id, m2));
    expect(await ranking({ emails: `nobody@example.com, ${row.email!.toUpperCase()}` })).toEqual([[m2, 6, 2]]);
    const [service] = await t.database.db.select().from(memberServices).where(eq(memberServices.memberId, m3));
    await t.database.db.insert(memberDomains).values([{ accountId: app.accountId, serviceId: service.id, memberId: m3, domain: 'www.fans.example.com', registered: true }]);
    expect(await ranking({ domain: 'https://fans.example.com/join' })).toEqual([[m3, 7, 2]]);
    expect(await ranking({ domain: 'fans.example.com', activityID: act.share })).toEqual([[m3, 5, 1]]);
    expect(await ranking({ domain: 'elsewhere.example.com' })).toEqual([]);
  });

  it('combines filters', async () => {
    expect(await ranking({ country: 'GB', activityID: act.listen })).toEqual([
      [m1, 4, 2],
      [m3, 2, 1],
    ]);
    expect(await ranking({ brandID: music, exclude_members: m1 })).toEqual([[m3, 7, 2]]);
    expect(await ranking({ includeOneTime: 1, country: 'US' })).toEqual([[m2, 16, 3]]);
  });

  it('reads the window: default one week, longer periods, explicit dates, clamped at six months', async () => {
    expect(await ranking({ period: '1 Month' })).toEqual([
      [m1, 11, 4],
      [m3, 9, 3],
      [m2, 6, 2],
    ]);
    expect(await ranking({ period: '2 days' })).toEqual([
      [m2, 3, 1],
      [m1, 2, 1],
    ]);
    expect(await ranking({ period: '1 week', period_end: '2 days' })).toEqual(
      [
        [m3, 7, 2],
        [m1, 7, 2],
        [m2, 3, 1],
      ].sort((a, b) => b[1] - a[1] || a[0] - b[0]),
    );
    const start = new Date(Date.now() - 7 * 86400_000).toISOString().slice(0, 19).replace('T', ' ');
    const end = new Date(Date.now() - 4 * 86400_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(await ranking({ start_date: start, end_date: end })).toEqual([[m3, 7, 2]]);
    expect(await ranking({ period: '24 Month' })).toEqual(await ranking({ period: '6 months' }));
  });

  it('sorts ascending and orders by join or login time', async () => {
    expect(await ranking({ sort: 'asc' })).toEqual([
      [m2, 6, 2],
      [m3, 7, 2],
      [m1, 9, 3],
    ]);
    const byLogin = await ranking({ order_by: 'LastLogin' });
    expect(byLogin.map((row: number[]) => row[0])).toEqual([m1, m2]);
  });

  it('pages with score_lessthan and after, and back with score_greaterthan and before', async () => {
    const first = (await get(app, '/members/active', { limit: 1 })).json[0];
    expect(first.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m1]);
    const next = new URL(first.paging.next);
    expect(next.searchParams.get('score_lessthan')).toBe('9');
    expect(next.searchParams.get('after')).toBe(String(m1));
    expect(next.searchParams.has('apikey')).toBe(false);
    const follow = (link: string) => t.rest(app, 'GET', new URL(link).pathname + new URL(link).search);
    const second = (await follow(first.paging.next)).json[0];
    expect(second.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m3]);
    const third = (await follow(second.paging.next)).json[0];
    expect(third.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m2]);
    expect(third.paging.next).toBeNull();
    const back = new URL(third.paging.previous);
    expect(back.searchParams.get('score_greaterthan')).toBe('6');
    const previous = (await follow(third.paging.previous)).json[0];
    expect(previous.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m3]);
  });

  it('adds the total member count on request and pages with offsets', async () => {
    const [body] = (await get(app, '/members/active', { totalmembercount: 1, limit: '1,1' })).json;
    expect(body.totalmembercount).toBe(3);
    expect(body.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m3]);
  });

  it('refuses bad filters with the parameter named', async () => {
    const cases: [Record<string, string | number>, number, string][] = [
      [{ region: 'Scotland' }, 4, 'region'],
      [{ country: 'GB,US', region: 'Scotland' }, 4, 'region'],
      [{ optedin: 1 }, 4, 'optedin'],
      [{ brandID: 'x' }, 4, 'brandid'],
      [{ anyofactivities: 'a-b' }, 4, 'anyofactivities'],
      [{ period: '3 fortnights' }, 4, 'period'],
      [{ order_by: 'Name' }, 4, 'order_by'],
      [{ required_fields: 'Shoe' }, 4, 'required_fields'],
      [{ score_lessthan: 5 }, 4, 'score_lessthan'],
      [{ brandID: 999999 }, 5, 'brandID'],
    ];
    for (const [query, code, param] of cases) {
      const response = await get(app, '/members/active', query);
      expect(response.json.error, JSON.stringify(query)).toMatchObject({ code, param });
    }
  });

  it("does not see another account's brand or members", async () => {
    expect((await get(stranger, '/members/active', { brandID: music })).json.error).toMatchObject({ code: 5 });
    const [body] = (await get(stranger, '/members/active', { period: '6 months' })).json;
    expect(body.items).toEqual([]);
    expect(body.paging).toEqual({ next: null, previous: null });
  });
});

describe('GET /v1.1/members/all, /members/login, /members/extended', () => {
  it('lists every member by id with before and after', async () => {
    const [all] = [(await get(app, '/members/all', { limit: 2 })).json];
    expect(all.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m1, m2]);
    expect(Object.keys(all.items[0])).toEqual(expect.arrayContaining(['BirthDate', 'Age', 'Joined', 'AvatarURL']));
    expect(new URL(all.paging.next).searchParams.get('after')).toBe(String(m2));
    const after = (await get(app, '/members/all', { after: m2 })).json;
    expect(after.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m3, m4]);
    const before = (await get(app, '/members/all', { before: m3, after: m1 })).json;
    expect(before.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m1, m2]);
    const gb = (await get(app, '/members/all', { country: 'GB' })).json;
    expect(gb.items.map((item: { ID: string }) => Number(item.ID))).toEqual([m1, m3, m4]);
  });

  it('lists members by last login in the window, with their scores', async () => {
    const body = (await get(app, '/members/login')).json;
    expect(body.items.map((item: { ID: string; Score: string }) => [Number(item.ID), item.Score])).toEqual([
      [m1, '9'],
      [m2, '6'],
    ]);
    expect(body.paging).toEqual([]);
    expect((await get(app, '/members/login', { activityID: act.listen })).json.error).toMatchObject({ code: 4 });
  });

  it('trims items to the named fields', async () => {
    const body = (await get(app, '/members/all', { fields: 'email,Country', limit: 1 })).json;
    expect(Object.keys(body.items[0])).toEqual(['ID', 'Email', 'Country']);
  });
});

describe('segments and opt-ins in the filter', () => {
  let segment: number;
  beforeAll(async () => {
    const created = await t.rest(app, 'POST', '/segment/create', { name: 'Superfans', brandid: music });
    expect(created.status, created.body).toBe(200);
    segment = Number(created.json.ID);
    expect((await t.rest(app, 'POST', '/optin', { id: m1, segment })).status).toBe(200);
    expect((await t.rest(app, 'POST', `/brand/${music}/optin`, { id: m3 })).status).toBe(200);
  });

  it('lists opt-ins on listing items', async () => {
    const [body] = (await get(app, '/members/active', { members: `${m2},${m3}` })).json;
    const byId = Object.fromEntries(body.items.map((item: { ID: string; OptIns: unknown }) => [item.ID, item.OptIns]));
    expect(byId[String(m2)]).toBeNull();
    expect(byId[String(m3)]).toEqual([{ ID: expect.stringMatching(/^\d+$/), Type: 'Brand', SegmentID: String(music), Label: null, Name: 'The Band' }]);
  });

  it('reads segment membership, brand segments and opted-in members', async () => {
    expect(await ranking({ segmentID: segment })).toEqual([[m1, 9, 3]]);
    expect(await ranking({ members_from_segment: segment, includeOneTime: 1 })).toEqual([[m1, 9, 3]]);
    expect(await ranking({ brandID: music, optedin: 1 })).toEqual([[m3, 7, 2]]);
    expect(await ranking({ segmentID: segment, optedin: 1 })).toEqual([[m1, 9, 3]]);
    expect((await get(app, '/members/active', { brandID: sport, segmentID: segment })).json.error).toMatchObject({ code: 4, param: 'segmentID' });
    expect((await get(stranger, '/members/active', { segmentID: segment })).json.error).toMatchObject({ code: 5, param: 'segmentID' });
  });

  it('computes filter segments when saved, and again for one member on member show with refresh=1', async () => {
    const create = (filter: unknown) => t.rest(app, 'POST', '/segment/create', { name: 'British listeners', type: 'filter', filter: JSON.stringify(filter) });
    expect((await create({ countries: 'GB' })).json.error).toMatchObject({ code: 4, param: 'filter' });
    expect((await create({ colour: 'red' })).json.error).toMatchObject({ code: 4, param: 'filter' });
    expect((await create({ brandId: 999999 })).json.error).toMatchObject({ code: 5 });
    const created = await create({ countries: ['GB'], brandId: String(music) });
    expect(created.status, created.body).toBe(200);
    const british = Number(created.json.ID);
    expect(await ranking({ segmentID: british })).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
    await t.database.db.update(members).set({ country: 'US' }).where(eq(members.id, m3));
    expect(await ranking({ segmentID: british })).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
    expect((await get(app, `/member/${m3}`, { refresh: 1 })).status).toBe(200);
    expect(await ranking({ segmentID: british })).toEqual([[m1, 9, 3]]);
    await t.database.db.update(members).set({ country: 'GB' }).where(eq(members.id, m3));
    expect((await get(app, `/member/${m3}`, { refresh: 1 })).status).toBe(200);
    expect(await ranking({ segmentID: british })).toEqual([
      [m1, 9, 3],
      [m3, 7, 2],
    ]);
  });
});

describe('GraphQL members connection', () => {
  const page = `query($first: Int!, $after: String, $filter: MemberFilter) {
    members(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { id score { points activityCount } lastActivity { activityId activity { name } } services { network } } }
    }
  }`;

  it('pages by cursor with the same ranking as REST', async () => {
    const first = await t.graphql(app.apiKey, page, { first: 2 });
    expect(first.body.errors).toBeUndefined();
    const connection = first.body.data.members;
    expect(connection.totalCount).toBe(3);
    expect(connection.edges.map((edge: { node: { id: string; score: { points: number } } }) => [Number(edge.node.id), edge.node.score.points])).toEqual([
      [m1, 9],
      [m3, 7],
    ]);
    expect(connection.edges[0].node.lastActivity).toEqual({ activityId: String(act.listen), activity: { name: 'Listen' } });
    const second = await t.graphql(app.apiKey, page, { first: 2, after: connection.pageInfo.endCursor });
    expect(second.body.data.members.edges.map((edge: { node: { id: string } }) => Number(edge.node.id))).toEqual([m2]);
    expect(second.body.data.members.pageInfo.hasNextPage).toBe(false);
  });

  it('pages from a keyset as from its cursor, and refuses a SCORE keyset without points or beside a cursor', async () => {
    const keyed = `query($from: MemberKeyset, $after: String, $orderBy: MemberOrder! = SCORE, $sort: SortDirection! = DESC) {
      members(first: 2, from: $from, after: $after, orderBy: $orderBy, sort: $sort) { pageInfo { hasNextPage hasPreviousPage } edges { node { id } } }
    }`;
    const idsOf = (result: { body: { data?: { members: { edges: { node: { id: string } }[] } } } }) => result.body.data!.members.edges.map((edge) => Number(edge.node.id));
    expect(idsOf(await t.graphql(app.apiKey, keyed, { from: { points: 7, memberId: m3 } }))).toEqual([m2]);
    // From its second use the document runs compiled: the defaults of $orderBy and $sort still apply.
    const byId = idsOf(await t.graphql(app.apiKey, keyed, { orderBy: 'ID', sort: 'ASC', from: { memberId: m1 } }));
    expect(byId).toEqual([...byId].sort((a, b) => a - b));
    expect(byId.length === 2 && byId.every((id) => id > m1)).toBe(true);
    const unpointed = await t.graphql(app.apiKey, keyed, { from: { memberId: m3 } });
    expect(unpointed.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'from' });
    const both = await t.graphql(app.apiKey, keyed, { from: { points: 7, memberId: m3 }, after: 'x' });
    expect(both.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'from' });
  });

  it('takes the same filter as REST', async () => {
    const result = await t.graphql(app.apiKey, page, { first: 10, filter: { brandId: String(music), countries: ['GB'] } });
    expect(result.body.data.members.edges.map((edge: { node: { id: string } }) => Number(edge.node.id))).toEqual([m1, m3]);
  });
});

describe('GET /v1.1/activity/feed', () => {
  async function feed(query: Record<string, string | number> = {}) {
    const response = await get(app, '/activity/feed', query);
    expect(response.status, response.body).toBe(200);
    const [body] = response.json;
    expect(body.totalSize).toBe(body.items.length);
    return body.items.map((item: { MemberID: string; ActivityID: string }) => [Number(item.MemberID), Number(item.ActivityID)]);
  }

  it("lists each member's latest action of the week by default, newest first", async () => {
    expect(await feed()).toEqual([
      [m1, act.listen],
      [m2, act.watch],
      [m3, act.listen],
    ]);
  });

  it('answers the seed feed item', async () => {
    const [body] = (await get(app, '/activity/feed', { limit: 1 })).json;
    expect(Object.keys(body)).toEqual(['totalSize', 'items']);
    expect(body.items[0]).toEqual({
      ID: expect.stringMatching(/^\d+$/),
      Marker: null,
      BrandID: String(music),
      BrandName: 'The Band',
      Link: null,
      Media: null,
      Category: null,
      Content: { track: 'Song A' },
      CompleteDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      Name: 'Listen',
      ShortName: null,
      GeoData: null,
      MemberName: 'Fan0',
      Value: null,
      ActivityID: String(act.listen),
      ActivityType: 'Listened',
      ServiceType: 'spotify',
      MemberID: String(m1),
      ServiceUserName: `user${m1}`,
      RemoteUserURL: null,
      ServiceUserID: `uid-${m1}`,
      MemberEmail: expect.stringContaining('@example.com'),
      Username: null,
      MemberAvatarURL: null,
    });
  });

  it('lists every action with all_member_actions, and filters like the listings', async () => {
    expect(await feed({ all_member_actions: 1 })).toEqual([
      // m2's watch two days ago was recorded a moment after m1's listen of the same day.
      [m1, act.listen],
      [m2, act.watch],
      [m2, act.watch],
      [m1, act.listen],
      [m1, act.share],
      [m3, act.listen],
      [m3, act.share],
    ]);
    expect(await feed({ all_member_actions: 1, includeOneTime: 1, activityID: act.follow })).toEqual([[m2, act.follow]]);
    expect(await feed({ all_member_actions: 1, sort: 'asc', limit: 2 })).toEqual([
      [m3, act.share],
      [m3, act.listen],
    ]);
    expect(await feed({ brandID: music })).toEqual([
      [m1, act.listen],
      [m3, act.listen],
    ]);
    expect(await feed({ country: 'GB', exclude_members: m1 })).toEqual([[m3, act.listen]]);
    expect(await feed({ keyword: 'song a' })).toEqual([[m1, act.listen]]);
    expect(await feed({ keyword: '%' })).toEqual([]);
    expect(await feed({ period: '1 month', members: m3 })).toEqual([[m3, act.listen]]);
    expect(await feed({ order_by_recorded: 1 })).toHaveLength(3);
  });

  it('walks records newest first in batches and agrees with the full DISTINCT ON query', async () => {
    const window = resolveWindow({ period: { amount: 1, unit: 'MONTH' } as never }, listingWindow);
    const filter = await compileFilter(t.database.db, app.accountId, { includeOneTime: true }, window);
    const options = { allMemberActions: false, orderByRecorded: false, offset: 0, limit: 10 };
    const walked = await feedRecords(t.database.db, filter, window, { ...options, direction: 'DESC', walkBatch: 1 });
    const full = await feedRecords(t.database.db, filter, window, { ...options, direction: 'ASC' });
    expect(walked.map((row) => [row.memberId, row.id])).toEqual(full.reverse().map((row) => [row.memberId, row.id]));
    expect(walked.map((row) => row.memberId)).toEqual([m1, m2, m3]);
    const paged = await feedRecords(t.database.db, filter, window, { ...options, direction: 'DESC', walkBatch: 2, offset: 1, limit: 1 });
    expect(paged.map((row) => row.memberId)).toEqual([m2]);
  });

  it("refuses bad filters and another account's ids", async () => {
    expect((await get(app, '/activity/feed', { activityID: '1,x' })).json.error).toMatchObject({ code: 4, param: 'activityid' });
    expect((await get(stranger, '/activity/feed', { brandID: music })).json.error).toMatchObject({ code: 5 });
    expect((await get(stranger, '/activity/feed', { period: '6 months' })).json[0].items).toEqual([]);
  });
});

describe('GraphQL activityFeed totalCount', () => {
  const query = `query($first: Int!, $offset: Int, $filter: MemberFilter, $window: WindowInput, $keyword: String, $all: Boolean!, $recorded: Boolean!) {
    activityFeed(first: $first, offset: $offset, filter: $filter, window: $window, keyword: $keyword, allMemberActions: $all, orderByRecorded: $recorded) {
      totalCount
      edges { node { id memberId } }
    }
  }`;

  async function feed(tenant: Tenant, variables: Record<string, unknown>) {
    const result = await t.graphql(tenant.apiKey, query, { all: false, recorded: false, first: 1000, ...variables });
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    const connection = result.body.data.activityFeed as { totalCount: number; edges: { node: { id: string; memberId: string } }[] };
    return { total: connection.totalCount, ids: connection.edges.map((edge) => Number(edge.node.id)), members: connection.edges.map((edge) => Number(edge.node.memberId)) };
  }

  const month = { period: { amount: 1, unit: 'MONTH' } };
  /** [variables, expected count]: each also checked against the length of the whole list. */
  const cases = (): [string, Record<string, unknown>, number][] => [
    ["each member's latest of the week", {}, 3],
    ['every action of the week', { all: true }, 7],
    ['one-time activities included', { all: true, filter: { includeOneTime: true } }, 8],
    ['one brand, latest per member', { filter: { brandId: String(music) } }, 2],
    ['one brand, every action', { all: true, filter: { brandId: String(music) } }, 5],
    ['country and excluded member', { all: true, filter: { countries: ['GB'], excludeMemberIds: [String(m1)] } }, 2],
    ['keyword', { all: true, keyword: 'song a' }, 1],
    ['a month, every action', { all: true, window: month }, 9],
    ['a month, one member', { all: true, window: month, filter: { memberIds: [String(m3)] } }, 3],
    // The order changes, not the window: the same records as every action of the week.
    ['by the time recorded', { all: true, recorded: true }, 7],
  ];

  it('counts exactly what the pages list, under every filter, however the page is cut', async () => {
    for (const [name, variables, expected] of cases()) {
      const whole = await feed(app, variables);
      expect(whole.total, name).toBe(expected);
      expect(whole.ids, name).toHaveLength(expected);
      const page = await feed(app, { ...variables, first: 1, offset: 1 });
      expect(page.total, name).toBe(expected);
      expect(page.ids, name).toEqual(whole.ids.slice(1, 2));
    }
  });

  it("never counts another account's records", async () => {
    const other = await t.tenant('advanced');
    const otherListen = await createActivity(t, other, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2 });
    const [o1, o2] = await insertMembers(t, other, [{ country: 'GB' }, { country: 'GB' }]);
    await record(t, other, [
      { activityId: otherListen, memberId: o1, completedAt: hoursAgo(2), content: { track: 'Song A' } },
      { activityId: otherListen, memberId: o1, completedAt: daysAgo(1) },
      { activityId: otherListen, memberId: o2, completedAt: daysAgo(3) },
    ]);
    for (const [name, variables, expected] of cases()) expect((await feed(app, variables)).total, name).toBe(expected);
    expect(await feed(other, {})).toMatchObject({ total: 2, members: [o1, o2] });
    expect(await feed(other, { all: true })).toMatchObject({ total: 3 });
    expect(await feed(other, { all: true, keyword: 'song a' })).toMatchObject({ total: 1 });
  });

  it('costs one statement, and only when asked for', async () => {
    const page = (withCount: boolean) => `{ activityFeed(first: 2, allMemberActions: true) { ${withCount ? 'totalCount' : ''} edges { node { id } } } }`;
    const roundTrips = async (body: string) => {
      const response = await t.graphql(app.apiKey, body);
      expect(response.body.errors).toBeUndefined();
      return Number(response.headers['x-sql-round-trips']);
    };
    await roundTrips(page(false)); // the API key is cached from here on
    expect(await roundTrips(page(true))).toBe((await roundTrips(page(false))) + 1);
  });
});

describe('GET /v1.1/member/[id] with showactions, showbrands, showposition', () => {
  it('adds the latest actions, top brands and the rank under the filters', async () => {
    const response = await get(app, `/member/${m3}`, { showactions: 1, showbrands: 1, showposition: 1, limit: 2 });
    expect(response.status, response.body).toBe(200);
    const body = response.json;
    expect(body.data.AEPosition).toBe('2');
    expect(body.actions.map((item: { ActivityID: string }) => Number(item.ActivityID))).toEqual([act.listen, act.share]);
    expect(body.brands).toEqual([{ ID: String(music), Name: 'The Band', Type: 'Music', Score: '7', ActivityCount: '2' }]);
    const filtered = (await get(app, `/member/${m2}`, { showposition: 1, showbrands: 1, includeOneTime: 1 })).json;
    expect(filtered.data.AEPosition).toBe('1');
    expect(filtered.brands).toEqual([{ ID: String(sport), Name: 'The Club', Type: 'Sport', Score: '16', ActivityCount: '3' }]);
    expect((await get(app, `/member/${m1}`, { showbrands: 1, threshold: 10 })).json.brands).toEqual([]);
    expect((await get(app, `/member/${m4}`, { showposition: 1 })).json.data.AEPosition).toBeNull();
  });

  it('clamps its window at three months and checks its parameters', async () => {
    const body = (await get(app, `/member/${m3}`, { showbrands: 1, period: '12 months' })).json;
    expect(body.brands[0].Score).toBe('9');
    // Without showbrands/showactions they are ignored (as the old interface did), but not malformed.
    expect((await get(app, `/member/${m3}`, { threshold: 2 })).json.error).toBeUndefined();
    expect((await get(app, `/member/${m3}`, { threshold: 'two' })).json.error).toMatchObject({ code: 4, param: 'threshold' });
    expect((await get(app, `/member/${m3}`, { limit: 'x,2' })).json.error).toMatchObject({ code: 4, param: 'limit' });
    expect((await get(stranger, `/member/${m3}`, { showactions: 1 })).json.error).toMatchObject({ code: 5 });
  });
});

describe('GraphQL Member.activities connection', () => {
  const month = { period: { amount: 1, unit: 'MONTH' } };
  const memberPage = `query($id: ID!, $first: Int, $after: String, $window: WindowInput, $filter: MemberFilter) {
    member(lookup: { id: $id }) {
      activities(first: $first, after: $after, window: $window, filter: $filter) {
        totalCount
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node { id memberId activityId } }
      }
    }
  }`;

  interface RecordPage {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
    edges: { cursor: string; node: { id: string; memberId: string; activityId: string } }[];
  }

  async function activitiesOf(tenant: Tenant, id: number, variables: Record<string, unknown>): Promise<RecordPage> {
    const result = await t.graphql(tenant.apiKey, memberPage, { id: String(id), ...variables });
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    return result.body.data.member.activities;
  }

  /** The member's records as the feed lists them: every action, newest first. */
  async function feedOf(id: number, window: unknown) {
    const result = await t.graphql(
      app.apiKey,
      `query($filter: MemberFilter, $window: WindowInput) {
      activityFeed(first: 1000, allMemberActions: true, filter: $filter, window: $window) { edges { node { id } } } }`,
      { filter: { memberIds: [String(id)] }, window },
    );
    return result.body.data.activityFeed.edges.map((edge: { node: { id: string } }) => Number(edge.node.id));
  }

  it('pages by cursor through the same records as the feed, with the whole count on each page', async () => {
    const expected = await feedOf(m1, month);
    expect(expected).toHaveLength(4);
    for (const first of [1, 3, 4]) {
      const ids: number[] = [];
      let after: string | null = null;
      for (;;) {
        const page = await activitiesOf(app, m1, { first, after, window: month });
        expect(page.totalCount).toBe(4);
        expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
        expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
        expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
        expect(page.edges.every((edge) => Number(edge.node.memberId) === m1)).toBe(true);
        ids.push(...page.edges.map((edge) => Number(edge.node.id)));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(ids, `first ${first}`).toEqual(expected);
    }
    // The default page is the latest three of the week (member show's window), as before.
    const week = await activitiesOf(app, m1, {});
    expect(week.edges.map((edge) => Number(edge.node.id))).toEqual((await feedOf(m1, null)).slice(0, 3));
    expect(week).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: false, hasPreviousPage: false } });
    // Filters narrow the records and their count alike.
    const shares = await activitiesOf(app, m1, { window: month, filter: { activityIds: [String(act.share)] } });
    expect(shares.edges.map((edge) => Number(edge.node.activityId))).toEqual([act.share]);
    expect(shares.totalCount).toBe(1);
    expect(await activitiesOf(app, m4, { window: month })).toEqual({
      totalCount: 0,
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      edges: [],
    });
  });

  /** Of `ids` (newest first), those after the record `place` in that order: completed earlier, or at the same time with a smaller id. */
  async function olderThan(place: number, ids: number[]) {
    const rows = await t.database.db
      .select({ id: activityRecords.id })
      .from(activityRecords)
      .where(inArray(activityRecords.id, [place, ...ids]))
      .orderBy(desc(activityRecords.completedAt), desc(activityRecords.id));
    const order = rows.map((row) => row.id);
    const at = order.indexOf(place);
    return order.slice(at + 1).filter((id) => ids.includes(id) && id !== place);
  }

  it("gives each member of a listing its own page and count, in one query for the page's members", async () => {
    const query = `query($after: String) {
      members(first: 10, orderBy: ID, sort: ASC, filter: { memberIds: ["${m1}", "${m2}", "${m3}", "${m4}"] }) {
        edges { node { id activities(first: 2, after: $after, window: { period: { amount: 1, unit: MONTH } }) {
          totalCount pageInfo { hasNextPage } edges { node { id memberId } } } } }
      }
    }`;
    const read = async (after?: string) => {
      const result = await t.graphql(app.apiKey, query, { after });
      expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
      return result.body.data.members.edges.map(
        ({ node }: { node: { id: string; activities: { totalCount: number; pageInfo: { hasNextPage: boolean }; edges: { node: { id: string; memberId: string } }[] } } }) => {
          expect(node.activities.edges.every((edge) => edge.node.memberId === node.id)).toBe(true);
          return [Number(node.id), node.activities.totalCount, node.activities.edges.map((edge) => Number(edge.node.id)), node.activities.pageInfo.hasNextPage];
        },
      );
    };
    const feeds = await Promise.all([m1, m2, m3, m4].map((id) => feedOf(id, month)));
    expect(await read()).toEqual([
      [m1, 4, feeds[0].slice(0, 2), true],
      [m2, 2, feeds[1], false],
      [m3, 3, feeds[2].slice(0, 2), true],
      [m4, 0, [], false],
    ]);
    // A cursor is a place in time order: the same cursor gives each member its records after that place, in one query.
    const first = await activitiesOf(app, m1, { first: 2, window: month });
    const place = feeds[0][1];
    const rest = await read(first.pageInfo.endCursor!);
    expect(rest[0]).toEqual([m1, 4, feeds[0].slice(2, 4), false]);
    expect(rest[3]).toEqual([m4, 0, [], false]);
    for (const [index, [, total, ids]] of rest.entries()) {
      const older = (await olderThan(place, feeds[index])).slice(0, 2);
      expect(total).toBe(feeds[index].length);
      expect(ids).toEqual(older);
    }
  });

  it("never reaches another account's member or records", async () => {
    const result = await t.graphql(stranger.apiKey, memberPage, { id: String(m1), window: month });
    expect(result.body.data).toEqual({ member: null });
    expect(result.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', aeCode: 5 });
    // The stranger's own member with a record of its own: only that record is listed and counted.
    const theirs = await createActivity(t, stranger, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2 });
    const [s1] = await insertMembers(t, stranger, [{ country: 'GB' }]);
    const { recordIds } = await record(t, stranger, [{ activityId: theirs, memberId: s1, completedAt: hoursAgo(3) }]);
    const own = await activitiesOf(stranger, s1, { window: month, first: 100 });
    expect(own.totalCount).toBe(1);
    expect(own.edges.map((edge) => edge.node.id)).toEqual(recordIds);
    // The stranger's listing of its members shows its own records only.
    const listed = await t.graphql(
      stranger.apiKey,
      `{ members(first: 10, orderBy: ID) { edges { node { id activities(first: 10, window: { period: { amount: 1, unit: MONTH } }) { totalCount edges { node { id } } } } } } }`,
    );
    expect(listed.body.errors, JSON.stringify(listed.body.errors)).toBeUndefined();
    expect(listed.body.data.members.edges).toEqual([{ node: { id: String(s1), activities: { totalCount: 1, edges: [{ node: { id: recordIds[0] } }] } } }]);
  });

  it('refuses a bad page size or cursor with the parameter at fault', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ first: -1 }, 'first'],
      [{ first: 0 }, 'first'],
      [{ after: 'nonsense' }, 'after'],
      [{ after: Buffer.from('{"o":-5}').toString('base64url') }, 'after'],
      [{ after: Buffer.from('{"o":1e9}').toString('base64url') }, 'after'],
    ];
    for (const [variables, param] of cases) {
      const result = await t.graphql(app.apiKey, memberPage, { id: String(m1), ...variables });
      expect(result.body.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param });
      expect(result.body.errors[0].message).toMatch(/expected/);
    }
    // More than a page's maximum is refused, as on every list, naming the argument.
    const tooMany = await t.graphql(app.apiKey, memberPage, { id: String(m1), first: 1001, window: month });
    expect(tooMany.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    expect(tooMany.body.errors[0].message).toMatch(/at most 1000/);
  });

  it("costs the same as the list of records it replaced: the page size times each record's fields", async () => {
    const schema = await getSchema();
    const cost = (query: string) => operationCost(schema, parse(query), {});
    // member 1 + activities (1 + 100 × (id 1 + marker 1)); the edges and node levels cost nothing.
    expect(cost(`{ member(lookup: { id: "1" }) { activities(first: 100) { edges { node { id marker } } } } }`)).toBe(202);
    expect(cost(`{ member(lookup: { id: "1" }) { activities { edges { node { id } } } } }`)).toBe(1 + 1 + 3);
  });
});

describe('GraphQL Brand.members', () => {
  const fields = 'totalCount brand { id name } pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { id score { points activityCount } } }';
  const month = { period: { amount: 1, unit: 'MONTH' } };
  type Listing = { totalCount: number; brand: { id: string; name: string }; pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { node: { id: string } }[] };

  /** Brand.members and members(filter: { brandId }) with the same other arguments (`args`, beside filter, window and after). */
  async function both(args: string, variables: { filter?: Record<string, unknown>; window?: unknown; after?: string | null } = {}, brandId = music) {
    const all = `${args ? `${args}, ` : ''}filter: $filter, window: $window, after: $after`;
    const declared = '$filter: MemberFilter, $window: WindowInput, $after: String';
    const nested = await t.graphql(app.apiKey, `query($brandId: ID!, ${declared}) { brand(id: $brandId) { members(${all}) { ${fields} } } }`, { brandId: String(brandId), ...variables });
    expect(nested.body.errors, JSON.stringify(nested.body.errors)).toBeUndefined();
    const top = await t.graphql(app.apiKey, `query(${declared}) { members(${all}) { ${fields} } }`, { ...variables, filter: { ...variables.filter, brandId: String(brandId) } });
    expect(top.body.errors, JSON.stringify(top.body.errors)).toBeUndefined();
    return { nested: nested.body.data.brand.members as Listing, top: top.body.data.members as Listing };
  }

  const ids = (connection: { edges: { node: { id: string } }[] }) => connection.edges.map((edge) => Number(edge.node.id));

  it('lists the same members in the same order as members(filter: { brandId })', async () => {
    const ranked = await both('', { window: month });
    expect(ranked.nested).toEqual(ranked.top);
    expect(ids(ranked.nested)).toEqual([m1, m3]);
    expect(ranked.nested.totalCount).toBe(2);
    expect(ranked.nested.brand).toEqual({ id: String(music), name: 'The Band' });
    const variables = { window: { period: { amount: 6, unit: 'MONTH' } }, filter: { countries: ['GB'] } };
    for (const args of ['orderBy: ID, first: 2', 'orderBy: ID, sort: ASC', 'orderBy: CREATED', 'sort: ASC, first: 1', 'offset: 1']) {
      const pair = await both(args, variables);
      expect(pair.nested, args).toEqual(pair.top);
      expect(pair.nested.brand.id, args).toBe(String(music));
    }
    const sporty = await both('', { window: month }, sport);
    expect(sporty.nested).toEqual(sporty.top);
    expect(ids(sporty.nested)).toEqual([m2]);
  });

  it('pages by cursor, and the brand is this brand whatever the filter names', async () => {
    const seen: number[] = [];
    let after: string | null = null;
    for (;;) {
      const pair = await both('first: 1', { after, window: month });
      expect(pair.nested).toEqual(pair.top);
      seen.push(...ids(pair.nested));
      if (!pair.nested.pageInfo.hasNextPage) break;
      after = pair.nested.pageInfo.endCursor;
    }
    expect(seen).toEqual([m1, m3]);
    const overridden = await t.graphql(app.apiKey, `query($id: ID!, $other: ID!) { brand(id: $id) { members(filter: { brandId: $other }) { brand { id } edges { node { id } } } } }`, {
      id: String(music),
      other: String(sport),
    });
    expect(overridden.body.data.brand.members.brand.id).toBe(String(music));
    expect(ids(overridden.body.data.brand.members)).toEqual([m1, m3]);
  });

  it('answers for each brand of a brands page', async () => {
    const result = await t.graphql(app.apiKey, `{ brands(first: 10) { edges { node { id members(window: { period: { amount: 1, unit: MONTH } }) { totalCount edges { node { id } } } } } } }`);
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    const byBrand = Object.fromEntries(result.body.data.brands.edges.map(({ node }: { node: { id: string; members: Listing } }) => [node.id, [node.members.totalCount, ids(node.members)]]));
    expect(byBrand[String(music)]).toEqual([2, [m1, m3]]);
    expect(byBrand[String(sport)]).toEqual([1, [m2]]);
  });

  it("is not found for another account's brand, and checks its arguments as members does", async () => {
    const result = await t.graphql(stranger.apiKey, `query($id: ID!) { brand(id: $id) { members { totalCount edges { node { id } } } } }`, { id: String(music) });
    expect(result.body.data).toEqual({ brand: null });
    expect(result.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', aeCode: 5 });
    const bad = await t.graphql(app.apiKey, `query($id: ID!) { brand(id: $id) { members(first: -1) { totalCount } } }`, { id: String(music) });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    const extended = await t.graphql(app.apiKey, `query($id: ID!) { brand(id: $id) { members(orderBy: EXTENDED) { totalCount } } }`, { id: String(music) });
    expect(extended.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'orderField' });
  });
});
