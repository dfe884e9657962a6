import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginEvents, members } from '../../src/db/schema/index.js';
import { createTestDatabase } from '../support/database.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import type { RestParams } from '../support/rest.js';
import { createActivity, insertBrand, insertMembers, record } from '../support/activity-data.js';

let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
let brand: number;
let other: number;
const act = { listen: 0, watch: 0, share: 0, follow: 0, elsewhere: 0 };
let a: number, b: number, c: number, d: number, e: number;

/** Three days, 2026-03-01 to 2026-03-03 (UTC), every figure below computed by hand from this set. */
const window = { start_date: '2026-03-01 00:00:00', end_date: '2026-03-04 00:00:00' };
const at = (day: string, time: string) => `2026-03-${day}T${time}:00Z`;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  brand = await insertBrand(t, app, 'The Band');
  other = await insertBrand(t, app, 'Other Band');
  act.listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brand, points: 2 });
  act.watch = await createActivity(t, app, { name: 'Watch', type: 'Watched', service: 'youtube', brandid: brand, points: 3 });
  act.share = await createActivity(t, app, { name: 'Share', type: 'Shared', service: 'twitter', brandid: brand, points: 5 });
  act.follow = await createActivity(t, app, { name: 'Follow', type: 'Followed', brandid: brand, points: 10, onetime: 1 });
  act.elsewhere = await createActivity(t, app, { name: 'Listen elsewhere', type: 'Listened', service: 'spotify', brandid: other, points: 1 });
  [a, b, c, d, e] = await insertMembers(t, app, [
    { country: 'GB', network: 'spotify', paid: true },
    { country: 'US', network: 'youtube' },
    { country: 'GB', network: 'spotify' },
    { country: 'FR', network: 'email' },
    { country: 'DE', network: 'spotify' },
  ]);
  await t.database.db.update(members).set({ gender: 'M', birthDate: '1990-06-01' }).where(eq(members.id, a));
  await t.database.db.update(members).set({ gender: 'F', birthDate: '2005-01-01' }).where(eq(members.id, b));
  await t.database.db.update(members).set({ gender: 'Other', birthDate: '1950-01-01' }).where(eq(members.id, d));
  await record(t, app, [
    { activityId: act.listen, memberId: a, completedAt: at('01', '10:00') },
    { activityId: act.listen, memberId: a, completedAt: at('01', '11:00') },
    { activityId: act.listen, memberId: a, completedAt: at('02', '09:00') },
    { activityId: act.share, memberId: a, completedAt: at('03', '12:00') },
    { activityId: act.share, memberId: a, completedAt: at('03', '13:00') },
    { activityId: act.elsewhere, memberId: a, completedAt: at('01', '15:00') },
    { activityId: act.watch, memberId: b, completedAt: at('01', '12:00') },
    { activityId: act.listen, memberId: b, completedAt: at('03', '08:00') },
    { activityId: act.follow, memberId: b, completedAt: at('02', '16:00') },
    { activityId: act.listen, memberId: c, completedAt: at('02', '10:00') },
    { activityId: act.listen, memberId: e, completedAt: '2026-02-01T10:00:00Z' },
  ]);
  expect((await t.rest(app, 'POST', `/brand/${brand}/optin`, { id: d })).status).toBe(200);
  const segment = await t.rest(app, 'POST', '/segment/create', { name: 'Fans', brandid: brand });
  expect(segment.status, segment.body).toBe(200);
  await t.rest(app, 'POST', '/optin', { id: a, segment: segment.json.ID });
  await t.rest(app, 'POST', '/optin', { id: d, segment: segment.json.ID });
  const event = (memberId: number, kind: 'register' | 'login', time: string, domain: string | null) => ({ accountId: app.accountId, memberId, kind, network: 'spotify', domain, createdAt: new Date(time) });
  await t.database.db
    .insert(loginEvents)
    .values([
      event(a, 'register', at('01', '09:00'), 'fans.example.com'),
      event(b, 'register', at('01', '09:30'), 'fans.example.com'),
      event(a, 'login', at('01', '18:00'), 'fans.example.com'),
      event(a, 'login', at('02', '18:00'), 'fans.example.com'),
      event(b, 'login', at('02', '19:00'), null),
    ]);
});
afterAll(() => t.close());

// The window by default; the key goes as lower-case `apikey`, as this suite has always sent it.
const get = (path: string, query: RestParams = {}, tenant = app) => t.rest(null, 'GET', path, { apikey: tenant.apiKey, ...window, ...query });

describe('GET /v1.1/brand/[id]/stats/activity', () => {
  it('totals per activity, most records first', async () => {
    const { status, json } = await get(`/brand/${brand}/stats/activity`);
    expect(status).toBe(200);
    expect(json).toEqual([
      {
        totalSize: 3,
        items: [
          { ActivityID: String(act.listen), BrandID: String(brand), SegmentName: null, Activity: 'Listen', ServiceType: 'spotify', Count: '5', DistinctMembers: '3' },
          { ActivityID: String(act.share), BrandID: String(brand), SegmentName: null, Activity: 'Share', ServiceType: 'twitter', Count: '2', DistinctMembers: '1' },
          { ActivityID: String(act.watch), BrandID: String(brand), SegmentName: null, Activity: 'Watch', ServiceType: 'youtube', Count: '1', DistinctMembers: '1' },
        ],
        TotalCount: '8',
        TotalMembers: '3',
        clamped: false,
        notice: null,
      },
    ]);
  });

  it('groups by type or network, and makes its totals from the groups returned', async () => {
    const byType = (await get(`/brand/${brand}/stats/activity`, { group_by: 'type' })).json[0];
    expect(byType.items.map((item: { Activity: string; Count: string }) => [item.Activity, item.Count])).toEqual([
      ['Listened', '5'],
      ['Shared', '2'],
      ['Watched', '1'],
    ]);
    const byService = (await get(`/brand/${brand}/stats/activity`, { group_by: 'service' })).json[0];
    expect(byService.items.map((item: { ServiceType: string; Count: string; DistinctMembers: string }) => [item.ServiceType, item.Count, item.DistinctMembers])).toEqual([
      ['spotify', '5', '3'],
      ['twitter', '2', '1'],
      ['youtube', '1', '1'],
    ]);
    const top = (await get(`/brand/${brand}/stats/activity`, { limit: 1 })).json[0];
    expect([top.totalSize, top.TotalCount, top.TotalMembers]).toEqual([1, '5', '3']);
    // `offset,n`: the second group, and the totals made from it.
    const second = (await get(`/brand/${brand}/stats/activity`, { group_by: 'service', limit: '1,1' })).json[0];
    expect(second.items.map((item: { ServiceType: string }) => item.ServiceType)).toEqual(['twitter']);
    expect([second.totalSize, second.TotalCount, second.TotalMembers]).toEqual([1, '2', '1']);
  });

  it('applies the filters', async () => {
    const total = async (query: Record<string, string | number>) => {
      const [body] = (await get(`/brand/${brand}/stats/activity`, query)).json;
      return [body.TotalCount, body.TotalMembers];
    };
    expect(await total({ includeOneTime: 1 })).toEqual(['9', '3']);
    expect(await total({ id: a })).toEqual(['5', '1']);
    expect(await total({ exclude_members: a })).toEqual(['3', '2']);
    expect(await total({ activityID: `${act.watch},${act.share}` })).toEqual(['3', '2']);
    expect(await total({ services: 'youtube' })).toEqual(['1', '1']);
    expect(await total({ paid_only: 1 })).toEqual(['5', '1']);
    expect(await total({ start_date: '2026-03-03 00:00:00' })).toEqual(['3', '2']);
    const segmentName = (await get(`/brand/${brand}/stats/activity`, { members_from_segment: await segmentId() })).json[0];
    expect(segmentName.items[0].SegmentName).toBe('Fans');
    expect([segmentName.TotalCount, segmentName.TotalMembers]).toEqual(['5', '1']);
    expect((await get('/brand/999999/stats/activity')).json.error).toMatchObject({ code: 5, param: 'brandID' });
    expect((await get(`/brand/${brand}/stats/activity`, {}, stranger)).json.error).toMatchObject({ code: 5 });
    expect((await get(`/brand/${brand}/stats/activity`, { group_by: 'colour' })).json.error).toMatchObject({ code: 4, param: 'group_by' });
  });
});

async function segmentId() {
  const segments = (await get(`/brand/${brand}/segments`)).json;
  return segments.items[0].ID as string;
}

describe('GET /v1.1/brand/[id]/stats/timeline', () => {
  it('counts per network and day, every day of the window present', async () => {
    const { json } = await get(`/brand/${brand}/stats/timeline`);
    const day = (date: string, dayOfYear: number, count: number, members: number) => ({ Date: date, DayofYear: String(dayOfYear), Count: String(count), DistinctMembers: String(members) });
    expect(json).toEqual([
      {
        clamped: false,
        notice: null,
        services: [
          { service: 'spotify', range: [day('2026-03-01', 60, 2, 1), day('2026-03-02', 61, 2, 2), day('2026-03-03', 62, 1, 1)], TotalCount: 5, TotalMembers: 3 },
          { service: 'twitter', range: [day('2026-03-01', 60, 0, 0), day('2026-03-02', 61, 0, 0), day('2026-03-03', 62, 2, 1)], TotalCount: 2, TotalMembers: 1 },
          { service: 'youtube', range: [day('2026-03-01', 60, 1, 1), day('2026-03-02', 61, 0, 0), day('2026-03-03', 62, 0, 0)], TotalCount: 1, TotalMembers: 1 },
        ],
      },
    ]);
  });

  it('is empty for an empty window', async () => {
    const { json } = await get(`/brand/${brand}/stats/timeline`, { start_date: '2025-01-01 00:00:00', end_date: '2025-01-03 00:00:00' });
    expect(json).toEqual([{ clamped: false, notice: null, services: [] }]);
  });
});

describe('GET /v1.1/brand/[id]/stats/location, members, age, gender, segments', () => {
  it('counts actions and members per country', async () => {
    expect((await get(`/brand/${brand}/stats/location`)).json).toEqual({
      clamped: false,
      notice: null,
      TotalActivities: 8,
      TotalMembers: 3,
      Countries: [
        { Country: 'GB', CountryName: 'United Kingdom', Actions: '6', Members: '2' },
        { Country: 'US', CountryName: 'United States of America', Actions: '2', Members: '1' },
      ],
    });
    expect((await get(`/brand/${brand}/stats/location`, { country: 'US' })).json).toMatchObject({ TotalActivities: 2, TotalMembers: 1 });
  });

  it("splits the brand's members into active and inactive", async () => {
    // Members: a, b, c (active), d (opted in), e (active before the window).
    const listen = { ActivityID: String(act.listen), Activity: 'Listen' };
    expect((await get(`/brand/${brand}/stats/members`)).json).toEqual({
      clamped: false,
      notice: null,
      ActiveMembers: 3,
      InactiveMembers: 2,
      TotalMembers: 5,
      Groups: [
        { ...listen, ActiveMembers: 3 },
        { ActivityID: String(act.share), Activity: 'Share', ActiveMembers: 1 },
        { ActivityID: String(act.watch), Activity: 'Watch', ActiveMembers: 1 },
      ],
    });
    expect((await get(`/brand/${other}/stats/members`)).json).toEqual({
      clamped: false,
      notice: null,
      ActiveMembers: 1,
      InactiveMembers: 0,
      TotalMembers: 1,
      Groups: [{ ActivityID: String(act.elsewhere), Activity: 'Listen elsewhere', ActiveMembers: 1 }],
    });
    expect((await get(`/brand/${brand}/stats/members`, { start_date: '2026-01-01 00:00:00', end_date: '2026-02-02 00:00:00' })).json).toEqual({
      clamped: false,
      notice: null,
      ActiveMembers: 1,
      InactiveMembers: 4,
      TotalMembers: 5,
      Groups: [{ ...listen, ActiveMembers: 1 }],
    });
  });

  it('groups active members by activity (default) or type, as many groups as limit says', async () => {
    expect((await get(`/brand/${brand}/stats/members`, { group_by: 'TYPE' })).json.Groups).toEqual([
      { Type: 'Listened', ActiveMembers: 3 },
      { Type: 'Shared', ActiveMembers: 1 },
      { Type: 'Watched', ActiveMembers: 1 },
    ]);
    const one = (await get(`/brand/${brand}/stats/members`, { group_by: 'activities', limit: 1 })).json;
    // limit bounds the groups, never the three totals.
    expect(one).toEqual({ clamped: false, notice: null, ActiveMembers: 3, InactiveMembers: 2, TotalMembers: 5, Groups: [{ ActivityID: String(act.listen), Activity: 'Listen', ActiveMembers: 3 }] });
    expect((await get(`/brand/${brand}/stats/members`, { group_by: 'type', limit: 2, includeOneTime: 1 })).json.Groups).toHaveLength(2);
  });

  it("refuses an unknown group_by or a malformed limit (code 4), and another account's brand (code 5)", async () => {
    for (const [query, param] of [
      [{ group_by: 'service' }, 'group_by'],
      [{ group_by: 'members' }, 'group_by'],
      [{ limit: 'ten' }, 'limit'],
      [{ limit: 0 }, 'limit'],
    ] as const) {
      const { status, json } = await get(`/brand/${brand}/stats/members`, query);
      expect(status, JSON.stringify(json)).toBe(400);
      expect(json.error).toMatchObject({ code: 4, type: 'INVALID_PARAMETER', param });
    }
    const foreign = await get(`/brand/${brand}/stats/members`, { group_by: 'type' }, stranger);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error).toMatchObject({ code: 5 });
    expect(JSON.stringify(foreign.json)).not.toContain('The Band');
  });

  it('breaks active members down by age and gender', async () => {
    expect((await get(`/brand/${brand}/stats/age`)).json).toEqual({
      totalSize: 3,
      items: [
        { Range: '18-24', Members: '1' },
        { Range: '35-44', Members: '1' },
        { Range: 'unknown', Members: '1' },
      ],
    });
    expect((await get(`/brand/${brand}/stats/gender`)).json).toEqual({
      totalSize: 3,
      items: [
        { Gender: 'F', Members: '1' },
        { Gender: 'M', Members: '1' },
        { Gender: 'unknown', Members: '1' },
      ],
    });
  });

  it('gives each segment of the brand its members and their records of all time', async () => {
    expect((await get(`/brand/${brand}/stats/segments`)).json).toEqual({ totalSize: 1, items: [{ SegmentID: await segmentId(), Name: 'Fans', Members: '2', Activities: '5' }] });
  });
});

describe('registration and member statistics', () => {
  it('counts sign-ups per channel of all time, with filters', async () => {
    expect((await get('/login/stats/alltime')).json).toEqual({
      channels: [
        { service: 'spotify', signups: '3' },
        { service: 'email', signups: '1' },
        { service: 'youtube', signups: '1' },
      ],
      total: 5,
    });
    expect((await get('/login/stats/alltime', { service: 'spotify', country: 'GB' })).json).toEqual({ channels: [{ service: 'spotify', signups: '2' }], total: 2 });
    expect((await get('/login/stats/alltime', { paid_only: 1, valid: 1 })).json).toEqual({ channels: [{ service: 'spotify', signups: '1' }], total: 1 });
    expect((await get('/login/stats/alltime', { service: 'myspace' })).json.error).toMatchObject({ code: 4, param: 'service' });
    expect((await get('/login/stats/alltime', {}, stranger)).json).toEqual({ channels: [], total: 0 });
  });

  it('counts registrations per domain and day, and the totals of the window', async () => {
    expect((await get('/login/stats/domains')).json).toEqual({ domains: [{ domain: 'fans.example.com', signups: '2', members: '2' }], total: 2 });
    expect((await get('/login/stats/timeline')).json).toEqual({
      timeline: [
        { date: '2026-03-01', signups: '2' },
        { date: '2026-03-02', signups: '0' },
        { date: '2026-03-03', signups: '0' },
      ],
      total: 2,
    });
    expect((await get('/login/stats/totals')).json).toEqual({ registrations: 2, logins: 3, members: 2 });
  });

  it('counts activity and visits per day, distinct members over the window', async () => {
    expect((await get('/members/stats/activity')).json).toEqual({
      days: [
        { Date: '2026-03-01', Count: '4', DistinctMembers: '2' },
        { Date: '2026-03-02', Count: '2', DistinctMembers: '2' },
        { Date: '2026-03-03', Count: '3', DistinctMembers: '2' },
      ],
      TotalCount: 9,
      TotalMembers: 3,
    });
    expect((await get('/members/stats/visits')).json).toEqual({
      days: [
        { Date: '2026-03-01', Visits: '1', DistinctMembers: '1' },
        { Date: '2026-03-02', Visits: '2', DistinctMembers: '2' },
        { Date: '2026-03-03', Visits: '0', DistinctMembers: '0' },
      ],
      TotalVisits: 3,
      TotalMembers: 2,
    });
    expect((await get('/members/stats/activity', { country: 'US' })).json.TotalCount).toBe(2);
  });

  it('ranks the websites members come from', async () => {
    expect((await get('/members/domains')).json).toEqual({
      totalSize: 2,
      items: [
        { Domain: 'fans.example.com', Members: '2', Visits: '4' },
        { Domain: 'API', Members: '1', Visits: '1' },
      ],
    });
  });
});

describe('GraphQL statistics', () => {
  it('answers the same figures as REST from one implementation', async () => {
    const result = await t.graphql(
      app.apiKey,
      `query($id: ID!, $window: WindowInput) {
      brandStats(brandId: $id) {
        members(window: $window) { activeMembers inactiveMembers totalMembers }
        location(window: $window) { totalActivities countries { country actions } }
        activity(window: $window, groupBy: TYPE, limit: 2) { totalCount items { activity count } }
      }
      registrationStats(window: $window) { totals { registrations logins members } }
    }`,
      { id: String(brand), window: { start: '2026-03-01T00:00:00Z', end: '2026-03-04T00:00:00Z' } },
    );
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data).toEqual({
      brandStats: {
        members: { activeMembers: 3, inactiveMembers: 2, totalMembers: 5 },
        location: {
          totalActivities: 8,
          countries: [
            { country: 'GB', actions: 6 },
            { country: 'US', actions: 2 },
          ],
        },
        activity: {
          totalCount: 7,
          items: [
            { activity: 'Listened', count: 5 },
            { activity: 'Shared', count: 2 },
          ],
        },
      },
      registrationStats: { totals: { registrations: 2, logins: 3, members: 2 } },
    });
  });
});

describe('GraphQL statistics errors', () => {
  it('name the GraphQL arguments and filter fields; REST names its own parameters', async () => {
    const report = `query($id: ID!, $filter: MemberFilter) { brandStats(brandId: $id) { activity(filter: $filter) { totalCount } } }`;
    const param = async (variables: Record<string, unknown>) => (await t.graphql(app.apiKey, report, variables)).body.errors?.[0]?.extensions;
    expect(await param({ id: '999999' })).toMatchObject({ code: 'NOT_FOUND', param: 'brandId' });
    expect(await param({ id: 'x' })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'brandId' });
    expect(await param({ id: String(brand), filter: { segmentId: 'x' } })).toMatchObject({ code: 'INVALID_PARAMETER', param: 'segmentId' });
    expect(await param({ id: String(brand), filter: { membersFromSegment: '999999' } })).toMatchObject({ code: 'NOT_FOUND', param: 'membersFromSegment' });
    expect((await get(`/brand/${brand}/stats/activity`, { segmentid: 'x' })).json.error).toMatchObject({ code: 4, param: 'segmentid' });
    expect((await get(`/brand/${brand}/stats/activity`, { members_from_segment: 999999 })).json.error).toMatchObject({ code: 5, param: 'members_from_segment' });
  });
});

describe('the read replica', () => {
  it('serves the statistics when DATABASE_READ_URL gives one (here an empty database, so the figures are zero)', async () => {
    const replica = await createTestDatabase();
    const gateway = await startTestGateway({}, { ...t.database, read: replica.db });
    try {
      const query = { apikey: app.apiKey, ...window };
      const stats = await gateway.rest(null, 'GET', `/brand/${brand}/stats/location`, query);
      expect(stats.json).toEqual({ clamped: false, notice: null, TotalActivities: 0, TotalMembers: 0, Countries: [] });
      // Listings read the primary: the data is there.
      const listing = await gateway.rest(null, 'GET', '/members/active', query);
      expect(listing.json[0].items.length).toBeGreaterThan(0);
    } finally {
      await gateway.gateway.close();
      await replica.close();
    }
  });
});
