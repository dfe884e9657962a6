import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../src/db/rows.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { createActivity, daysAgo, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';

/**
 * member(id) reads its score and latest record under their defaults (the week to now) in the
 * member's own statement. The answers must be those of the fields' loaders (the same fields with
 * the week written out) and of a brute-force count over the records.
 */
let t: TestGateway;
let app: Tenant;
let ids: number[];

beforeAll(async () => {
  t = await startTestGateway();
  await t.gateway.scoreWindows.stop();
  app = await t.tenant('advanced');
  const brand = await insertBrand(t, app, 'The Band');
  const listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brand, points: 2 });
  const share = await createActivity(t, app, { name: 'Share', type: 'Shared', points: 5 });
  const follow = await createActivity(t, app, { name: 'Follow', type: 'Followed', brandid: brand, points: 10, onetime: 1 });
  ids = await insertMembers(
    t,
    app,
    Array.from({ length: 12 }, () => ({ country: 'GB' })),
  );
  const tie = hoursAgo(3);
  await record(t, app, [
    // Inside the week, before and after midnight, on the first partial day, and outside it.
    ...ids.slice(0, 10).flatMap((memberId, index) => [
      { activityId: listen, memberId, completedAt: hoursAgo(1 + index * 7) },
      { activityId: share, memberId, completedAt: hoursAgo(20 + index * 15) },
      { activityId: listen, memberId, completedAt: hoursAgo(170 + index) },
    ]),
    // One-time records count in no score and are no member's latest.
    { activityId: follow, memberId: ids[0], completedAt: hoursAgo(0.5) },
    // Two latest records at the same time: the later one stored is the latest.
    { activityId: listen, memberId: ids[10], completedAt: tie },
    { activityId: share, memberId: ids[10], completedAt: tie },
  ]);
  // ids[11] has no record at all.
});
afterAll(() => t.close());

const figures = `query($id: ID!) { member(lookup: { id: $id }) { id email services { network userId valid } score { points activityCount } lastActivity { id completedAt activity { name } } } }`;
const figuresOfTheWeek = `query($id: ID!) { member(lookup: { id: $id }) { id email services { network userId valid }
  score(window: { period: { amount: 1, unit: WEEK } }) { points activityCount } lastActivity(window: { period: { amount: 1, unit: WEEK } }) { id completedAt activity { name } } } }`;

async function ask(query: string, id: number, tenant = app) {
  const response = await t.graphql(tenant.apiKey, query, { id: String(id) });
  return { body: response.body, roundTrips: Number(response.headers['x-sql-round-trips']) };
}

/** The week's score and latest record of a member, counted from the records themselves. */
async function bruteForce(memberId: number) {
  const since = daysAgo(7);
  const [score] = await executeRows<{ points: number; count: number }>(
    t.database.db,
    sql`select coalesce(sum(points), 0)::int as points, count(*)::int as count from activity_records
      where account_id = ${app.accountId} and member_id = ${memberId} and completed_at >= ${since} and not one_time`,
  );
  const [latest] = await executeRows<{ id: number }>(
    t.database.db,
    sql`select id::int as id from activity_records where account_id = ${app.accountId} and member_id = ${memberId} and completed_at >= ${since} and not one_time
      order by completed_at desc, id desc limit 1`,
  );
  return { points: score.points, activityCount: score.count, latestId: latest ? String(latest.id) : null };
}

describe("member(id)'s score and latest record", () => {
  it('are read in the member statement, and answer as the loaders and the records do', async () => {
    await ask(figures, ids[0]); // the API key is now cached, as it is for any busy caller
    for (const id of ids) {
      const read = await ask(figures, id);
      const loaded = await ask(figuresOfTheWeek, id);
      expect(read.body.errors).toBeUndefined();
      expect(read.roundTrips).toBe(1);
      expect(loaded.roundTrips).toBe(3);
      expect(read.body.data).toEqual(loaded.body.data);
      const expected = await bruteForce(id);
      const member = read.body.data.member;
      expect(member.score).toEqual({ points: expected.points, activityCount: expected.activityCount });
      expect(member.lastActivity?.id ?? null).toBe(expected.latestId);
    }
    // The member with records tied at the latest time, and the member without any.
    expect((await ask(figures, ids[10])).body.data.member.lastActivity.activity.name).toBe('Share');
    expect((await ask(figures, ids[11])).body.data.member).toMatchObject({ score: { points: 0, activityCount: 0 }, lastActivity: null });
  });

  it('are read with the member only for the fields asked with their defaults', async () => {
    const scoreOnly = `query($id: ID!) { member(lookup: { id: $id }) { id score { points } } }`;
    const neither = `query($id: ID!) { member(lookup: { id: $id }) { id email } }`;
    const withVariables = `query($id: ID!, $window: WindowInput) { member(lookup: { id: $id }) { id score(window: $window) { points } } }`;
    expect((await ask(scoreOnly, ids[1])).roundTrips).toBe(1);
    expect((await ask(neither, ids[1])).roundTrips).toBe(1);
    // A window given through a variable left unset is the default window.
    const unset = await t.graphql(app.apiKey, withVariables, { id: String(ids[1]) });
    expect(Number(unset.headers['x-sql-round-trips'])).toBe(1);
    const given = await t.graphql(app.apiKey, withVariables, { id: String(ids[1]), window: { period: { amount: 2, unit: 'DAY' } } });
    expect(Number(given.headers['x-sql-round-trips'])).toBe(2);
    expect(given.body.data.member.score.points).toBeLessThanOrEqual(unset.body.data.member.score.points);
  });

  it("REST member show's position is the one its loaders answer", async () => {
    const positionOfTheWeek = `query($id: ID!) { member(lookup: { id: $id }) { position(window: { period: { amount: 1, unit: WEEK } }) } }`;
    for (const id of ids.slice(0, 4)) {
      const shown = await t.rest(app, 'GET', `/member/${id}`, { showposition: 1 });
      expect(shown.status).toBe(200);
      const loaded = await t.graphql(app.apiKey, positionOfTheWeek, { id: String(id) });
      expect(shown.json.data.AEPosition).toBe(loaded.body.data.member.position);
    }
    // The member with its score in one statement, the members ahead of it in another (three before
    // the score was read with the member). The fewer of two runs: a cache the process refreshes now
    // and then is no cost of the route.
    const roundTrips = async () => Number((await t.rest(app, 'GET', `/member/${ids[0]}`, { showposition: 1 })).headers['x-sql-round-trips']);
    expect(Math.min(await roundTrips(), await roundTrips())).toBe(2);
  });

  it("another account's member is not found, and nothing of it is read", async () => {
    const other = await t.tenant('advanced');
    const { body } = await ask(figures, ids[0], other);
    expect(body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect(body.data?.member ?? null).toBeNull();
  });

  it('a malformed id is refused before any figure is read', async () => {
    const response = await t.graphql(app.apiKey, figures, { id: 'fan-1' });
    expect(response.body.errors?.[0].extensions.code).toBe('INVALID_PARAMETER');
    expect(Number(response.headers['x-sql-round-trips'])).toBe(0);
  });
});
