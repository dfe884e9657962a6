import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityDefinitions, activityQueue, activityRecords, memberActivityDaily } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { createActivity, daysAgo, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';

let t: TestGateway;
let app: Tenant;
let basic: Tenant;
let stranger: Tenant;
let brand: number;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  stranger = await t.tenant('advanced');
  brand = await insertBrand(t, app, 'The Band');
});
afterAll(() => t.close());

const count = async (table: typeof activityRecords | typeof activityDefinitions | typeof activityQueue, accountId = app.accountId) =>
  (
    await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(table)
      .where(eq(table.accountId, accountId))
  )[0].n;

async function weekScore(memberId: number, query: Record<string, string | number> = {}) {
  const response = await t.rest(app, 'GET', '/members/active', { members: memberId, ...query });
  return response.json[0].items[0]?.Score ?? '0';
}

describe('activity definitions', () => {
  it('creates, lists, edits and deletes a definition', async () => {
    const created = await t.rest(app, 'POST', '/activity/create', {
      name: 'Stream the single',
      shortname: 'Stream',
      type: 'listened',
      service: 'Spotify',
      brandid: brand,
      points: 4,
      url: 'https://open.spotify.com/track/abc',
      trackids: 'abc, def',
    });
    expect(created.status, created.body).toBe(200);
    const activity = created.json;
    expect(activity).toEqual({
      ID: expect.stringMatching(/^\d+$/),
      Name: 'Stream the single',
      ShortName: 'Stream',
      Type: 'Listened',
      Service: 'spotify',
      BrandID: String(brand),
      Points: '4',
      OneTime: '0',
      URL: 'https://open.spotify.com/track/abc',
      TrackIDs: ['abc', 'def'],
      AlbumIDs: [],
      Created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    const listed = (await t.rest(app, 'GET', '/activities')).json;
    expect(listed.items.map((item: { ID: string }) => item.ID)).toContain(activity.ID);
    expect((await t.rest(app, 'GET', `/brand/${brand}/activities`)).json.items.map((item: { ID: string }) => item.ID)).toContain(activity.ID);
    const edited = (await t.rest(app, 'POST', `/activity/${activity.ID}/edit`, { points: 6, name: 'Stream it' })).json;
    expect(edited).toMatchObject({ ID: activity.ID, Name: 'Stream it', Points: '6', ShortName: 'Stream' });
    expect((await t.rest(app, 'POST', `/activity/${activity.ID}/delete`)).json).toEqual({ Result: true });
    expect((await t.rest(app, 'GET', '/activities')).json.items.map((item: { ID: string }) => item.ID)).not.toContain(activity.ID);
    expect((await t.rest(app, 'POST', `/activity/${activity.ID}/edit`, { points: 1 })).json.error).toMatchObject({ code: 5 });
  });

  it('refuses bad input and writes nothing', async () => {
    const before = await count(activityDefinitions);
    const cases: [Record<string, string | number>, number, string][] = [
      [{ type: 'Listened' }, 3, 'name'],
      [{ name: 'x' }, 3, 'type'],
      [{ name: 'x', type: 'Danced' }, 4, 'type'],
      [{ name: 'x', type: 'Listened', service: 'myspace' }, 4, 'service'],
      [{ name: 'x', type: 'Listened', points: -1 }, 4, 'points'],
      [{ name: 'x', type: 'Listened', url: 'ftp://x' }, 4, 'url'],
      [{ name: 'x', type: 'Listened', brandid: 999999 }, 5, 'brandid'],
    ];
    for (const [query, code, param] of cases) {
      expect((await t.rest(app, 'POST', '/activity/create', query)).json.error, JSON.stringify(query)).toMatchObject({ code, param });
    }
    expect(await count(activityDefinitions)).toBe(before);
  });

  it('keeps definitions apart per account and needs an advanced plan to change them', async () => {
    const id = await createActivity(t, app, { name: 'Mine', type: 'Shared' });
    expect((await t.rest(stranger, 'POST', `/activity/${id}/edit`, { name: 'Theirs' })).json.error).toMatchObject({ code: 5 });
    expect((await t.rest(stranger, 'POST', `/activity/${id}/delete`)).json.error).toMatchObject({ code: 5 });
    expect((await t.rest(stranger, 'GET', `/brand/${brand}/activities`)).json.error).toMatchObject({ code: 5 });
    expect((await t.rest(stranger, 'GET', '/activities')).json.items.map((item: { ID: string }) => Number(item.ID))).not.toContain(id);
    expect((await t.rest(basic, 'POST', `/activity/${id}/delete`)).json.error).toMatchObject({ code: 9 });
    expect((await t.rest(basic, 'POST', '/activity/record', { activityid: id, id: 1 })).json.error).toMatchObject({ code: 9 });
  });
});

describe('recording', () => {
  it('records through REST and answers the record id', async () => {
    const activity = await createActivity(t, app, { name: 'Share', type: 'Shared', service: 'twitter', points: 5, brandid: brand });
    const [member] = await insertMembers(t, app, [{}]);
    const response = await t.rest(app, 'POST', '/activity/record', {
      activityid: activity,
      id: member,
      content: JSON.stringify({ text: 'hello' }),
      link: 'https://x.example/1',
      timestamp: '2026-01-01 10:00:00',
    });
    expect(response.status, response.body).toBe(200);
    expect(response.json).toEqual({ Result: true, RecordID: expect.stringMatching(/^\d+$/), CompleteDate: '2026-01-01 10:00:00', Repeated: false, Queued: false });
    const [row] = await t.database.db
      .select()
      .from(activityRecords)
      .where(eq(activityRecords.id, Number(response.json.RecordID)));
    expect(row).toMatchObject({ memberId: member, brandId: brand, service: 'twitter', points: 5, content: { text: 'hello' } });
  });

  it('stores a marker once when it is sent 20 times in parallel', async () => {
    const activity = await createActivity(t, app, { name: 'Like', type: 'Liked', points: 3 });
    const [member] = await insertMembers(t, app, [{}]);
    const responses = await Promise.all(Array.from({ length: 20 }, () => t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, marker: 'post-77' })));
    for (const response of responses) expect(response.status, response.body).toBe(200);
    const ids = new Set(responses.map((response) => response.json.RecordID));
    expect(ids.size).toBe(1);
    expect(responses.filter((response) => !response.json.Repeated)).toHaveLength(1);
    const rows = await t.database.db
      .select()
      .from(activityRecords)
      .where(and(eq(activityRecords.accountId, app.accountId), eq(activityRecords.marker, 'post-77')));
    expect(rows).toHaveLength(1);
    expect(await weekScore(member)).toBe('3');
  });

  it('stores single records that arrive together in shared transactions, each answered with its own record', async () => {
    const activity = await createActivity(t, app, { name: 'Spin', type: 'Listened', points: 2 });
    const members = await insertMembers(
      t,
      app,
      Array.from({ length: 6 }, () => ({})),
    );
    const alone = await t.rest(app, 'POST', '/activity/record', { activityid: activity, id: members[0], marker: 'spin-alone' });
    // the lookups, the insert with its rollup and the check against the kept windows' claim, in one
    // statement; on a Citus coordinator in three (the lookup with the check, the insert, the rollup)
    const perGroup = Number(alone.headers['x-sql-round-trips']);
    expect(perGroup).toBe(process.env.TEST_CITUS === '1' ? 3 : 1);
    const sent = Array.from({ length: 30 }, (_, index) => ({ member: members[index % members.length], marker: `spin-${index}` }));
    const responses = await Promise.all(sent.map(({ member, marker }) => t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, marker })));
    for (const response of responses) expect(response.json).toMatchObject({ Result: true, Repeated: false, Queued: false });
    // Each request is charged its share of the statements it shared.
    const charged = responses.reduce((sum, response) => sum + Number(response.headers['x-sql-round-trips']), 0);
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThan(30 * perGroup);
    const rows = await t.database.db
      .select()
      .from(activityRecords)
      .where(and(eq(activityRecords.accountId, app.accountId), eq(activityRecords.activityId, activity)));
    expect(rows).toHaveLength(31);
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    responses.forEach((response, index) => expect(byId.get(response.json.RecordID)).toMatchObject({ marker: sent[index].marker, memberId: sent[index].member }));
    // Stored together: records of one transaction share its start time.
    expect(new Set(rows.map((row) => row.recordedAt.getTime())).size).toBeLessThan(30);
    expect(await weekScore(members[0])).toBe('12');
  });

  it('refuses a bad single record alone when it arrives with others', async () => {
    const activity = await createActivity(t, app, { name: 'Clap', type: 'Custom', points: 1 });
    const [member] = await insertMembers(t, app, [{}]);
    const queries = Array.from({ length: 30 }, (_, index): Record<string, string | number> => {
      if (index % 10 === 3) return { activityid: activity, id: 999999, marker: `clap-${index}` };
      // JSON may spell a NUL character, which PostgreSQL refuses in jsonb: the shared transaction fails, each record is tried alone.
      if (index % 10 === 7) return { activityid: activity, id: member, marker: `clap-${index}`, content: '{"text": "a\\u0000b"}' };
      return { activityid: activity, id: member, marker: `clap-${index}` };
    });
    const responses = await Promise.all(queries.map((query) => t.rest(app, 'POST', '/activity/record', query)));
    responses.forEach((response, index) => {
      if (index % 10 === 3) expect(response.json.error).toMatchObject({ code: 5, param: 'id' });
      else if (index % 10 === 7) expect(response.status, response.body).toBe(400);
      else expect(response.json, response.body).toMatchObject({ Result: true, Repeated: false });
    });
    const rows = await t.database.db
      .select()
      .from(activityRecords)
      .where(and(eq(activityRecords.accountId, app.accountId), eq(activityRecords.activityId, activity)));
    expect(rows.map((row) => row.marker).sort()).toEqual(
      queries
        .filter((_, index) => index % 10 !== 3 && index % 10 !== 7)
        .map((query) => query.marker)
        .sort(),
    );
    expect(await weekScore(member)).toBe('24');
  });

  it('stores a one-time activity once per member', async () => {
    const follow = await createActivity(t, app, { name: 'Follow', type: 'Followed', points: 10, onetime: 1 });
    const [member] = await insertMembers(t, app, [{}]);
    const result = await record(t, app, [
      { activityId: follow, memberId: member, completedAt: hoursAgo(3) },
      { activityId: follow, memberId: member, completedAt: hoursAgo(2) },
    ]);
    expect(result).toMatchObject({ created: 1, repeated: 1 });
    expect(await weekScore(member)).toBe('0');
    expect(await weekScore(member, { includeOneTime: 1 })).toBe('10');
  });

  it('brings scores back exactly when records are deleted', async () => {
    const listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', points: 2 });
    const share = await createActivity(t, app, { name: 'Share', type: 'Shared', points: 5 });
    const [member] = await insertMembers(t, app, [{}]);
    await record(t, app, [
      { activityId: listen, memberId: member, completedAt: daysAgo(2) },
      { activityId: listen, memberId: member, completedAt: daysAgo(2) },
      { activityId: share, memberId: member, completedAt: daysAgo(3) },
    ]);
    const rollup = () =>
      t.database.db
        .select()
        .from(memberActivityDaily)
        .where(and(eq(memberActivityDaily.accountId, app.accountId), eq(memberActivityDaily.memberId, member)));
    expect(await weekScore(member)).toBe('9');
    const before = await rollup();
    const { recordIds } = await record(t, app, [{ activityId: share, memberId: member, completedAt: daysAgo(4) }]);
    expect(await weekScore(member)).toBe('14');
    expect((await t.rest(app, 'POST', `/member/${member}/activity/delete`, { recordid: recordIds[0] })).json).toEqual({ Result: true, Deleted: '1' });
    expect(await weekScore(member)).toBe('9');
    expect(await rollup()).toEqual(before);
    expect((await t.rest(app, 'POST', `/member/${member}/activity/delete`, { activityid: listen })).json).toEqual({ Result: true, Deleted: '2' });
    expect(await weekScore(member)).toBe('5');
    expect((await rollup()).map((row) => row.activityId)).toEqual([share]);
  });

  it('refuses a bad record and writes nothing, and keeps accounts apart', async () => {
    const activity = await createActivity(t, app, { name: 'Watch', type: 'Watched', points: 1 });
    const [member] = await insertMembers(t, app, [{}]);
    const [theirs] = await insertMembers(t, stranger, [{}]);
    const before = await count(activityRecords);
    const cases: [Record<string, string | number>, number, string][] = [
      [{ id: member }, 3, 'activityid'],
      [{ activityid: activity }, 3, 'id'],
      [{ activityid: activity, partnerCode: 'acme' }, 3, 'partnerID'],
      [{ activityid: activity, id: theirs }, 5, 'id'],
      [{ activityid: 999999, id: member }, 5, 'activityid'],
      [{ activityid: activity, id: member, timestamp: 'yesterday' }, 4, 'timestamp'],
      [{ activityid: activity, id: member, timestamp: '2099-01-01 00:00:00' }, 4, 'timestamp'],
      [{ activityid: activity, id: member, service: 'myspace' }, 4, 'service'],
      [{ activityid: activity, id: member, value: 'lots' }, 4, 'value'],
      [{ activityid: activity, id: member, brandid: 999999 }, 5, 'brandid'],
    ];
    for (const [query, code, param] of cases) {
      expect((await t.rest(app, 'POST', '/activity/record', query)).json.error, JSON.stringify(query)).toMatchObject({ code, param });
    }
    expect((await t.rest(stranger, 'POST', '/activity/record', { activityid: activity, id: theirs })).json.error).toMatchObject({ code: 5, param: 'activityid' });
    expect((await t.rest(stranger, 'POST', `/member/${member}/activity/delete`, { activityid: activity })).json.error).toMatchObject({ code: 5 });
    expect(await count(activityRecords)).toBe(before);
  });

  it('refuses a whole batch when one record is bad, and batches of more than 1000', async () => {
    const activity = await createActivity(t, app, { name: 'Visit', type: 'Visited', points: 1 });
    const [member] = await insertMembers(t, app, [{}]);
    const before = await count(activityRecords);
    const mutation = 'mutation($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }';
    const bad = await t.graphql(app.apiKey, mutation, {
      input: [
        { activityId: String(activity), memberId: String(member) },
        { activityId: '999999', memberId: String(member) },
      ],
    });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', aeCode: 5 });
    const big = Array.from({ length: 1001 }, () => ({ activityId: String(activity), memberId: String(member) }));
    expect((await t.graphql(app.apiKey, mutation, { input: big })).body.errors[0].extensions).toMatchObject({ aeCode: 4 });
    expect(await count(activityRecords)).toBe(before);
    const full = Array.from({ length: 1000 }, (_, index) => ({ activityId: String(activity), memberId: String(member), marker: `visit-${index}` }));
    expect((await t.graphql(app.apiKey, mutation, { input: full })).body.data.recordActivities.created).toBe(1000);
  });

  it('queues async records, which survive a restart of the gateway', async () => {
    const activity = await createActivity(t, app, { name: 'Queued', type: 'Custom', points: 7 });
    const [member] = await insertMembers(t, app, [{}]);
    const response = await t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, async: 1, marker: 'q-1' });
    expect(response.json).toEqual({ Result: true, RecordID: null, CompleteDate: null, Repeated: false, Queued: true });
    await t.gateway.activityQueue.drain();
    expect(await weekScore(member)).toBe('7');
    // Left behind by a process that stopped before its queue ran: the next gateway stores it.
    // This gateway's own worker is stopped first, or it could take the row before the next one.
    await t.gateway.activityQueue.stop();
    await t.database.db.insert(activityQueue).values({ accountId: app.accountId, applicationId: app.applicationId, payload: { activityId: String(activity), memberId: String(member), marker: 'q-2' } });
    const next = await startTestGateway({}, t.database);
    await next.gateway.activityQueue.drain();
    await next.close();
    t.gateway.activityQueue.start();
    expect(await weekScore(member)).toBe('14');
    expect(await count(activityQueue)).toBe(0);
    expect((await t.rest(app, 'POST', '/activity/record', { activityid: 999999, id: member, async: 1 })).json.error).toMatchObject({ code: 5 });
  });
});

describe('check and counts', () => {
  it('tells whether a member performed an activity, in a window or ever', async () => {
    const activity = await createActivity(t, app, { name: 'Attend', type: 'Attended', points: 1 });
    const other = await createActivity(t, app, { name: 'Buy', type: 'Purchased', points: 1 });
    const [member] = await insertMembers(t, app, [{}]);
    await record(t, app, [{ activityId: activity, memberId: member, completedAt: '2026-01-02T12:00:00Z' }]);
    expect((await t.rest(app, 'GET', `/member/${member}/activity/check`, { activityid: activity })).json).toEqual({
      Result: true,
      Details: { Count: '1', FirstDate: '2026-01-02 12:00:00', LastDate: '2026-01-02 12:00:00' },
    });
    expect((await t.rest(app, 'GET', `/member/${member}/activity/check`, { activityid: activity, period: '1 week' })).json).toMatchObject({ Result: false });
    expect((await t.rest(app, 'GET', `/member/${member}/activity/check`, { activityid: other })).json.Result).toBe(false);
    expect((await t.rest(stranger, 'GET', `/member/${member}/activity/check`, { activityid: activity })).json.error).toMatchObject({ code: 5 });
    expect((await t.rest(app, 'GET', `/member/${member}/activity/check`)).json.error).toMatchObject({ code: 3, param: 'activityid' });
    // GraphQL names its own arguments; REST maps them back (rest/error-params.ts), as above.
    const check = 'query($activityId: ID!, $memberId: ID!) { activityCheck(activityId: $activityId, memberId: $memberId) { result } }';
    const unknown = await t.graphql(app.apiKey, check, { activityId: '999999999', memberId: String(member) });
    expect(unknown.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'activityId' });
    const removal = 'mutation($memberId: ID!) { deleteMemberActivity(memberId: $memberId) }';
    const missing = await t.graphql(app.apiKey, removal, { memberId: String(member) });
    expect(missing.body.errors[0].extensions).toMatchObject({ param: 'recordId', aeCode: 3 });
    expect((await t.rest(app, 'POST', `/member/${member}/activity/delete`)).json.error).toMatchObject({ code: 3, param: 'recordid' });
  });

  it('counts per day and activity, and per day and network', async () => {
    const account = await t.tenant('advanced');
    const listen = await createActivity(t, account, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2 });
    const watch = await createActivity(t, account, { name: 'Watch', type: 'Watched', service: 'youtube', points: 3 });
    const [a, b] = await insertMembers(t, account, [{}, {}]);
    await record(t, account, [
      { activityId: listen, memberId: a, completedAt: '2026-03-01T10:00:00Z' },
      { activityId: listen, memberId: a, completedAt: '2026-03-01T11:00:00Z' },
      { activityId: listen, memberId: b, completedAt: '2026-03-01T12:00:00Z' },
      { activityId: watch, memberId: b, completedAt: '2026-03-02T12:00:00Z' },
    ]);
    const window = { start_date: '2026-03-01 00:00:00', end_date: '2026-03-03 00:00:00' };
    expect((await t.rest(account, 'GET', '/activities/count/daily', window)).json).toEqual({
      totalSize: 2,
      items: [
        { Date: '2026-03-01', ActivityID: String(listen), Activity: 'Listen', Count: '3', DistinctMembers: '2', Points: '6' },
        { Date: '2026-03-02', ActivityID: String(watch), Activity: 'Watch', Count: '1', DistinctMembers: '1', Points: '3' },
      ],
    });
    expect((await t.rest(account, 'GET', '/activities/count/services', window)).json.items).toEqual([
      { Date: '2026-03-01', ServiceType: 'spotify', Count: '3', DistinctMembers: '2', Points: '6' },
      { Date: '2026-03-02', ServiceType: 'youtube', Count: '1', DistinctMembers: '1', Points: '3' },
    ]);
    expect((await t.rest(basic, 'GET', '/activities/count/daily')).json.error).toMatchObject({ code: 9 });
    expect((await t.rest(stranger, 'GET', '/activities/count/daily', window)).json).toEqual({ totalSize: 0, items: [] });
  });
});

describe('merging members', () => {
  it("adds the merged member's records and rollups to the survivor, a shared one-time activity once", async () => {
    const follow = await createActivity(t, app, { name: 'Follow us', type: 'Followed', points: 10, onetime: 1 });
    const listen = await createActivity(t, app, { name: 'Listen again', type: 'Listened', points: 2 });
    const register = async (email: string) => (await t.rest(app, 'POST', '/member/register', { service: 'email', email, password: 'correct horse' })).json[0].data;
    const survivor = await register(`keep-${Date.now()}@example.com`);
    const merged = await register(`gone-${Date.now()}@example.com`);
    await record(t, app, [
      { activityId: follow, memberId: survivor.ID, completedAt: daysAgo(1) },
      { activityId: listen, memberId: survivor.ID, completedAt: daysAgo(1) },
      { activityId: follow, memberId: merged.ID, completedAt: daysAgo(2) },
      { activityId: listen, memberId: merged.ID, completedAt: daysAgo(1) },
      { activityId: listen, memberId: merged.ID, completedAt: daysAgo(3) },
    ]);
    const response = await t.rest(app, 'POST', `/member/${survivor.ID}/merge`, { from: merged.ID, accesstoken: merged.AccessToken });
    expect(response.status, response.body).toBe(200);
    expect(await weekScore(survivor.ID, { includeOneTime: 1 })).toBe('16');
    expect(await weekScore(survivor.ID)).toBe('6');
    const rows = await t.database.db
      .select()
      .from(memberActivityDaily)
      .where(and(eq(memberActivityDaily.accountId, app.accountId), eq(memberActivityDaily.memberId, merged.ID)));
    expect(rows).toEqual([]);
    const records = await t.database.db
      .select()
      .from(activityRecords)
      .where(and(eq(activityRecords.accountId, app.accountId), eq(activityRecords.memberId, survivor.ID)));
    expect(records).toHaveLength(4);
    // Recording against the merged id now lands on the survivor.
    await record(t, app, [{ activityId: listen, memberId: merged.ID, completedAt: hoursAgo(1) }]);
    expect(await weekScore(survivor.ID)).toBe('8');
  });
});
