import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../src/db/rows.js';
import { loginEvents, members } from '../../src/db/schema/index.js';
import { createActivity, daysAgo, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok, type RestParams } from '../support/rest.js';

/**
 * Parameters of the interface that an integrator sends and expects to change the answer: each is
 * checked through real requests, against a known data set (and, for brand membership, against a
 * brute-force query).
 *
 * The data set (points: listen 2, share 5, watch 3):
 * m1 (spotify identity): listen 1h, 2d, 3d ago; share 4d ago; watch through youtube 5d ago (recorded
 *    with `activity/record`, no youtube identity); listen 250 days ago, recorded last
 * m2 (youtube identity): watch 1d, 2d ago
 * m3 (spotify identity): share through twitter 2d ago (no twitter identity)
 * m4 (spotify identity): listen 300 days ago (a member of the music brand, inactive)
 * m5 (spotify identity): no records; opted into the sport brand
 * m6 (spotify identity): no records, no opt-in
 */
let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
let music: number;
let sport: number;
let strangerBrand: number;
const act = { listen: 0, share: 0, watch: 0 };
let m1: number, m2: number, m3: number, m4: number, m5: number, m6: number;
/** Record ids of the feed test, in the order they were recorded. */
const feedRecords: { early: string[]; late: string[]; old: string[] } = { early: [], late: [], old: [] };

const get = (tenant: Tenant, path: string, query: RestParams = {}) => t.rest(tenant, 'GET', path, query);
const ids = (items: { ID: string }[]) => items.map((item) => Number(item.ID));

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  music = await insertBrand(t, app, 'The Band');
  sport = await insertBrand(t, app, 'The Club', 'Sport');
  strangerBrand = await insertBrand(t, stranger, 'Their Band');
  act.listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: music, points: 2 });
  act.share = await createActivity(t, app, { name: 'Share', type: 'Shared', service: 'twitter', brandid: music, points: 5 });
  act.watch = await createActivity(t, app, { name: 'Watch', type: 'Watched', service: 'youtube', brandid: sport, points: 3 });
  [m1, m2, m3, m4, m5, m6] = await insertMembers(t, app, [{ lastLoginAt: new Date(Date.now() - 2 * 3600_000) }, { network: 'youtube', lastLoginAt: new Date(Date.now() - 3 * 3600_000) }, {}, {}, {}, {}]);
  // Two batches recorded one after the other: the later batch completed earlier.
  feedRecords.early = (
    await record(t, app, [
      { activityId: act.listen, memberId: m1, completedAt: hoursAgo(1) },
      { activityId: act.watch, memberId: m2, completedAt: daysAgo(1) },
    ])
  ).recordIds;
  feedRecords.late = (
    await record(t, app, [
      { activityId: act.listen, memberId: m1, completedAt: daysAgo(2) },
      { activityId: act.listen, memberId: m1, completedAt: daysAgo(3) },
      { activityId: act.share, memberId: m1, completedAt: daysAgo(4) },
      { activityId: act.watch, memberId: m2, completedAt: daysAgo(2) },
    ])
  ).recordIds;
  // Through activity/record, on networks the members have no identity on.
  await ok(t.rest(app, 'POST', '/activity/record', { activityid: act.watch, id: m1, service: 'youtube', timestamp: stamp(daysAgo(5)) }));
  await ok(t.rest(app, 'POST', '/activity/record', { activityid: act.share, id: m3, service: 'twitter', timestamp: stamp(daysAgo(2)) }));
  // Completed long ago, recorded last of all.
  feedRecords.old = (
    await record(t, app, [
      { activityId: act.listen, memberId: m1, completedAt: daysAgo(250) },
      { activityId: act.listen, memberId: m4, completedAt: daysAgo(300) },
    ])
  ).recordIds;
  await ok(t.rest(app, 'POST', `/brand/${sport}/optin`, { id: m5 }));
  await t.database.db
    .update(members)
    .set({ extended: { tier: 'gold', points: 42 } })
    .where(eq(members.id, m1));
  await t.database.db
    .update(members)
    .set({ extended: { tier: 'silver', points: 7 } })
    .where(eq(members.id, m2));
  await t.database.db
    .update(members)
    .set({ extended: { points: 'n/a' } })
    .where(eq(members.id, m3));
  await t.database.db
    .update(members)
    .set({ extended: { points: 100 } })
    .where(eq(members.id, m4));
  await t.database.db
    .update(members)
    .set({ extended: { points: 9.5 } })
    .where(eq(members.id, m5));
});
afterAll(() => t?.close());

/** `YYYY-MM-DD HH:MM:SS` of an ISO time, as the interface takes timestamps. */
function stamp(iso: string): string {
  return iso.slice(0, 19).replace('T', ' ');
}

function expectError(answer: { status: number; json: any }, status: number, code: number, param: string) {
  expect(answer.status).toBe(status);
  expect(answer.json).toEqual({ error: { code, type: expect.any(String), message: expect.any(String), param } });
}

describe('activity/feed with order_by_recorded=1', () => {
  const feed = async (query: RestParams) => (await ok(get(app, '/activity/feed', { members: `${m1},${m2}`, all_member_actions: 1, ...query })))[0];

  it('keeps the window on completion time and orders by the time each record was recorded', async () => {
    const byCompletion = await feed({});
    const byRecorded = await feed({ order_by_recorded: 1 });
    expect(Object.keys(byRecorded)).toEqual(['totalSize', 'items']);
    // The same records of the week: the ones completed 250 days ago (recorded last) stay out.
    expect(byRecorded.totalSize).toBe(7);
    expect(byCompletion.totalSize).toBe(7);
    expect(new Set(byRecorded.items.map((item: { ID: string }) => item.ID))).toEqual(new Set(byCompletion.items.map((item: { ID: string }) => item.ID)));
    expect(byRecorded.items.map((item: { ID: string }) => item.ID)).not.toContain(feedRecords.old[0]);
    // Newest recorded first: the whole later batch comes before the earlier one.
    const position = (id: string) => byRecorded.items.findIndex((item: { ID: string }) => item.ID === id);
    for (const late of feedRecords.late) for (const early of feedRecords.early) expect(position(late)).toBeLessThan(position(early));
    // By completion the record of an hour ago comes first.
    expect(byCompletion.items[0].ID).toBe(feedRecords.early[0]);
  });

  it('keeps the six-month maximum on completion time', async () => {
    const wide = await feed({ order_by_recorded: 1, period: '12 Month' });
    const ids = wide.items.map((item: { ID: string }) => item.ID);
    expect(ids).not.toContain(feedRecords.old[0]);
    expect(wide.totalSize).toBe(7);
    expect((await feed({ order_by_recorded: 1, start_date: stamp(daysAgo(251)), end_date: stamp(daysAgo(249)) })).items.map((item: { ID: string }) => item.ID)).toEqual([feedRecords.old[0]]);
  });

  it('refuses a malformed flag', async () => {
    expectError(await get(app, '/activity/feed', { order_by_recorded: 'maybe' }), 400, 4, 'order_by_recorded');
  });
});

/** The brand's members by definition: a rollup row on it, or a current opt-in to it; merged members left out. */
async function brandMembersBruteForce(tenant: Tenant, brandId: number): Promise<number[]> {
  const rows = await executeRows<{ id: number }>(
    t.database.db,
    sql`
    select m.id from members m
    where m.account_id = ${tenant.accountId} and m.merged_into_id is null
      and (exists (select 1 from activity_records r where r.account_id = m.account_id and r.member_id = m.id and r.brand_id = ${brandId})
        or exists (select 1 from optins o where o.account_id = m.account_id and o.member_id = m.id and o.brand_id = ${brandId} and o.opted_out_at is null))
    order by m.id`,
  );
  return rows.map((row) => Number(row.id));
}

describe('members/all?brandID=', () => {
  const listed = async (query: RestParams) => {
    const body = await ok(get(app, '/members/all', { limit: 100, totalmembercount: 1, ...query }));
    expect(body.totalmembercount).toBe(body.items.length);
    return ids(body.items);
  };

  it("lists the brand's members: a record on it at any time, or opted into it now", async () => {
    expect(await listed({ brandID: music })).toEqual([m1, m3, m4]);
    expect(await listed({ brandID: sport })).toEqual([m1, m2, m5]);
    expect(await listed({ brandID: music })).toEqual(await brandMembersBruteForce(app, music));
    expect(await listed({ brandID: sport })).toEqual(await brandMembersBruteForce(app, sport));
    expect(await listed({})).toEqual([m1, m2, m3, m4, m5, m6]);
  });

  it('follows opt-outs and opt-ins at once, before the kept members are settled', async () => {
    await ok(t.rest(app, 'POST', `/brand/${sport}/optout`, { id: m5 }));
    await ok(t.rest(app, 'POST', `/brand/${music}/optin`, { id: m6 }));
    expect(await listed({ brandID: sport })).toEqual(await brandMembersBruteForce(app, sport));
    expect(await listed({ brandID: sport })).toEqual([m1, m2]);
    expect(await listed({ brandID: music })).toEqual([m1, m3, m4, m6]);
    await ok(t.rest(app, 'POST', `/brand/${sport}/optin`, { id: m5 }));
    await ok(t.rest(app, 'POST', `/brand/${music}/optout`, { id: m6 }));
    expect(await listed({ brandID: sport })).toEqual(await brandMembersBruteForce(app, sport));
    expect(await listed({ brandID: music })).toEqual(await brandMembersBruteForce(app, music));
  });

  it('combines with the other member filters and pages by id', async () => {
    expect(await listed({ brandID: sport, optedin: 1 })).toEqual([m5]);
    expect(await listed({ brandID: music, exclude_members: m1 })).toEqual([m3, m4]);
    const first = await ok(get(app, '/members/all', { brandID: sport, limit: 2 }));
    expect(ids(first.items)).toEqual([m1, m2]);
    const second = await ok(get(app, '/members/all', { brandID: sport, limit: 2, after: m2 }));
    expect(ids(second.items)).toEqual([m5]);
  });

  it("answers not found for another account's brand, and refuses a malformed id", async () => {
    expectError(await get(app, '/members/all', { brandID: strangerBrand }), 404, 5, 'brandID');
    expectError(await get(app, '/members/all', { brandID: 'two' }), 400, 4, 'brandid');
    // The stranger's own brand has no members of this account.
    expect(ids((await ok(get(stranger, '/members/all', { brandID: strangerBrand }))).items)).toEqual([]);
  });
});

describe('dotted fields on members/active', () => {
  it('keeps the named Extended fields as members/login and members/all do', async () => {
    const fields = 'Email,extended.tier,extended.points';
    const [active] = await ok(get(app, '/members/active', { fields, members: m1 }));
    const login = await ok(get(app, '/members/login', { fields, members: m1 }));
    const all = await ok(get(app, '/members/all', { fields, members: m1 }));
    expect(active.items).toHaveLength(1);
    expect(Object.keys(active.items[0])).toEqual(['ID', 'Email', 'Extended']);
    expect(active.items[0].Extended).toEqual({ tier: 'gold', points: 42 });
    expect(active.items[0]).toEqual(login.items[0]);
    expect(active.items[0]).toEqual(all.items[0]);
  });

  it('adds no Extended without dotted names', async () => {
    const [active] = await ok(get(app, '/members/active', { fields: 'Email', members: m1 }));
    expect(active.items[0]).toEqual({ ID: String(m1), Email: expect.any(String) });
  });
});

describe('/v1.1/auth and details', () => {
  let accessToken: string;
  let memberId: number;

  beforeAll(async () => {
    const [registered] = await ok(t.rest(app, 'POST', '/member/register', { service: 'email', email: 'details@example.com', password: 'correct horse battery' }));
    accessToken = registered.data.AccessToken;
    memberId = registered.data.ID;
  });

  it('answers the lean view by default: the record, opt-ins and a token, no services', async () => {
    for (const details of [undefined, 0]) {
      const body = await ok(t.rest(app, 'POST', '/auth', { accesstoken: accessToken, details }));
      expect(Object.keys(body)).toEqual(['data', 'optins', 'jwt']);
      expect(body.data.ID).toBe(memberId);
      expect(body.optins).toEqual([]);
      expect(body.jwt).toEqual(expect.any(String));
    }
  });

  it('adds the linked services with details=1, without their tokens', async () => {
    const body = await ok(t.rest(app, 'GET', '/auth', { accessToken, details: 1 }));
    expect(Object.keys(body)).toEqual(['data', 'optins', 'services', 'jwt']);
    expect(body.services).toHaveLength(1);
    expect(Object.keys(body.services[0])).toEqual([
      'Service',
      'Valid',
      'ActivitySharing',
      'ID',
      'UserID',
      'Username',
      'UserURL',
      'LastUpdated',
      'LastLogin',
      'VerifiedEmail',
      'PaidAccount',
      'Followers',
      'Likes',
      'PartnerCode',
      'PartnerID',
      'Domains',
    ]);
    expect(body.services[0]).toMatchObject({ Service: 'email', Valid: '1' });
    expect(body.data.ID).toBe(memberId);
  });

  it('refuses a malformed details flag, and another account cannot use the token', async () => {
    expectError(await t.rest(app, 'POST', '/auth', { accessToken, details: 2 }), 400, 4, 'details');
    const foreign = await t.rest(stranger, 'POST', '/auth', { accessToken, details: 1 });
    expect(foreign.status).toBe(401);
    expect(foreign.json.error.code).toBe(15);
    expect(foreign.body).not.toContain('details@example.com');
  });
});

describe('limit as offset,n', () => {
  beforeAll(async () => {
    const at = (hours: number) => new Date(Date.now() - hours * 3600_000);
    const events = [
      ...[m1, m2, m3].map((memberId) => ({ memberId, domain: 'one.example.com', kind: 'register' as const })),
      ...[m1, m2].map((memberId) => ({ memberId, domain: 'two.example.com', kind: 'register' as const })),
      { memberId: m1, domain: 'three.example.com', kind: 'register' as const },
      ...[m1, m2, m3].map((memberId) => ({ memberId, domain: 'one.example.com', kind: 'login' as const })),
      ...[m1, m2].map((memberId) => ({ memberId, domain: 'two.example.com', kind: 'login' as const })),
    ];
    await t.database.db.insert(loginEvents).values(events.map((event, index) => ({ accountId: app.accountId, network: 'email', createdAt: at(index + 1), ...event })));
  });

  it('pages the brand activity report, whose totals are made from the page', async () => {
    // Music in the week: listen 3 records (m1), share 2 records (m1, m3).
    const [whole] = await ok(get(app, `/brand/${music}/stats/activity`, { limit: 10 }));
    expect(whole.items.map((item: { ActivityID: string; Count: string }) => [Number(item.ActivityID), item.Count])).toEqual([
      [act.listen, '3'],
      [act.share, '2'],
    ]);
    const [second] = await ok(get(app, `/brand/${music}/stats/activity`, { limit: '1,1' }));
    expect(second).toEqual({
      totalSize: 1,
      items: [{ ActivityID: String(act.share), BrandID: String(music), SegmentName: null, Activity: 'Share', ServiceType: 'twitter', Count: '2', DistinctMembers: '2' }],
      TotalCount: '2',
      TotalMembers: '2',
      clamped: false,
      notice: null,
    });
    const [past] = await ok(get(app, `/brand/${music}/stats/activity`, { limit: '2,5' }));
    expect(past).toEqual({ totalSize: 0, items: [], TotalCount: '0', TotalMembers: '0', clamped: false, notice: null });
  });

  it("pages the members report's Groups", async () => {
    const body = await ok(get(app, `/brand/${music}/stats/members`, { limit: '1,1' }));
    expect(body).toEqual({ ActiveMembers: 2, InactiveMembers: 1, TotalMembers: 3, Groups: [{ ActivityID: String(act.share), Activity: 'Share', ActiveMembers: 2 }], clamped: false, notice: null });
  });

  it('pages the top domains and the registration domains', async () => {
    const top = await ok(get(app, '/members/domains', { limit: '1,1' }));
    expect(top).toEqual({ totalSize: 1, items: [{ Domain: 'two.example.com', Members: '2', Visits: '4' }] });
    const registrations = await ok(get(app, '/login/stats/domains', { limit: '1,1' }));
    expect(registrations).toEqual({ domains: [{ domain: 'two.example.com', signups: '2', members: '2' }], total: 2 });
  });

  it('refuses a malformed limit on each', async () => {
    for (const path of [`/brand/${music}/stats/activity`, `/brand/${music}/stats/members`, '/members/domains', '/login/stats/domains']) {
      expectError(await get(app, path, { limit: '1,x' }), 400, 4, 'limit');
      expectError(await get(app, path, { limit: '100001,1' }), 400, 4, 'limit');
    }
    expectError(await get(app, `/brand/${strangerBrand}/stats/activity`, { limit: '1,1' }), 404, 5, 'brandID');
  });
});

describe('members/extended ordered by a custom field', () => {
  const mine = () => [m1, m2, m3, m4, m5, m6].join(',');
  const order = async (sort: string) => ids((await ok(get(app, '/members/extended', { order_by: 'extended.points', sort, members: mine(), limit: 100 }))).items);

  it('compares JSON numbers as numbers, then other values as text, members without the field last', async () => {
    // m4 100, m1 42, m5 9.5, m2 7; m3 'n/a'; m6 none.
    expect(await order('DESC')).toEqual([m4, m1, m5, m2, m3, m6]);
    expect(await order('ASC')).toEqual([m2, m5, m1, m4, m3, m6]);
  });

  it('pages the same order by offset', async () => {
    const body = await ok(get(app, '/members/extended', { order_by: 'extended.points', sort: 'DESC', members: mine(), limit: '1,2' }));
    expect(ids(body.items)).toEqual([m1, m5]);
  });

  it('refuses an order that is not a custom field', async () => {
    expectError(await get(app, '/members/extended', { order_by: 'Email' }), 400, 4, 'order_by');
    expectError(await get(app, '/members/extended', {}), 400, 3, 'order_by');
  });
});

describe('services filters records by their network', () => {
  type Group = { ServiceType: string; Count: string; DistinctMembers: string };

  it("a brand's per-service breakdown and the same report filtered by each service agree", async () => {
    for (const brand of [music, sport]) {
      const [byService] = await ok(get(app, `/brand/${brand}/stats/activity`, { group_by: 'service', limit: 100 }));
      const [timeline] = await ok(get(app, `/brand/${brand}/stats/timeline`));
      // Music has records through spotify and twitter; sport through youtube only.
      expect(byService.items.length).toBe(brand === music ? 2 : 1);
      for (const group of byService.items as Group[]) {
        const [filtered] = await ok(get(app, `/brand/${brand}/stats/activity`, { services: group.ServiceType, limit: 100 }));
        expect([filtered.TotalCount, filtered.TotalMembers]).toEqual([group.Count, group.DistinctMembers]);
        const [filteredTimeline] = await ok(get(app, `/brand/${brand}/stats/timeline`, { services: group.ServiceType }));
        const line = timeline.services.find((service: { service: string }) => service.service === group.ServiceType);
        expect(filteredTimeline.services).toEqual([line]);
        expect(line.TotalCount).toBe(Number(group.Count));
      }
    }
  });

  it('members/active and the feed count records through activity/record on a network the member has no identity on', async () => {
    const [twitter] = await ok(get(app, '/members/active', { services: 'twitter' }));
    expect(twitter.items.map((item: { ID: string; Score: string }) => [Number(item.ID), item.Score])).toEqual([
      [m1, '5'],
      [m3, '5'],
    ]);
    const [youtube] = await ok(get(app, '/members/active', { services: 'youtube', brandID: sport }));
    expect(youtube.items.map((item: { ID: string; Score: string }) => [Number(item.ID), item.Score])).toEqual([
      [m2, '6'],
      [m1, '3'],
    ]);
    const [feed] = await ok(get(app, '/activity/feed', { services: 'youtube', all_member_actions: 1 }));
    expect(feed.totalSize).toBe(3);
  });

  it('listings that read no records keep members with an identity on the network', async () => {
    expect(ids((await ok(get(app, '/members/all', { services: 'youtube' }))).items)).toEqual([m2]);
    expect(ids((await ok(get(app, '/members/login', { services: 'spotify' }))).items)).toEqual([m1]);
  });

  it('paid_only still needs a paid identity, and another account sees nothing of these records', async () => {
    const [paid] = await ok(get(app, '/members/active', { services: 'twitter', paid_only: 1 }));
    expect(paid.items).toEqual([]);
    const [theirs] = await ok(get(stranger, '/members/active', { services: 'twitter' }));
    expect(theirs.items).toEqual([]);
  });
});
