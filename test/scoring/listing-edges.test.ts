import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRows } from '../../src/db/rows.js';
import { listingWindow, resolveWindow } from '../../src/filters/window.js';
import type { PeriodUnit, WindowInput } from '../../src/filters/window.types.js';
import { rankCap } from '../../src/modules/scoring/member-listing.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { createActivity, daysAgo, hoursAgo, insertMembers, record, type RecordSpec } from '../support/activity-data.js';

/**
 * A listing's figures on its edges (MemberEdge.score, lastActivity, rank, rankCapped): each
 * listing of a document answers its own window's, checked against sums over the raw records;
 * ranks run through the whole listing, ties by id; a page costs the same statements for 10 and
 * 100 members; a member's fields without arguments keep their old answers.
 */
let t: TestGateway;
let app: Tenant;
let other: Tenant;
let ids: number[];

const week: WindowInput = { period: { amount: 1, unit: 'WEEK' as PeriodUnit } };
const month: WindowInput = { period: { amount: 1, unit: 'MONTH' as PeriodUnit } };

beforeAll(async () => {
  t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '1000000' });
  // Rankings from the daily rollup and raw records here; the kept totals are checked by rankings.property.test.ts.
  await t.gateway.scoreWindows.stop();
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
  const listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2 });
  const share = await createActivity(t, app, { name: 'Share', type: 'Shared', points: 5 });
  ids = await insertMembers(
    t,
    app,
    Array.from({ length: 130 }, () => ({ country: 'GB' })),
  );
  const specs: RecordSpec[] = [];
  ids.slice(0, 120).forEach((memberId, index) => {
    // This week: 2 points times 1 to 6 listens, so many members tie.
    for (let n = 0; n <= index % 6; n += 1) specs.push({ activityId: listen, memberId, completedAt: hoursAgo(2 + n * 5 + (index % 7)) });
    // Earlier this month: shares that reorder the month's ranking against the week's.
    for (let n = 0; n < index % 4; n += 1) specs.push({ activityId: share, memberId, completedAt: daysAgo(10 + n + (index % 5)) });
  });
  // Members active this month only.
  for (const memberId of ids.slice(120, 125)) specs.push({ activityId: share, memberId, completedAt: daysAgo(12) });
  await record(t, app, specs);
  // Another account whose members outscore every one of app's, in both windows.
  const otherListen = await createActivity(t, other, { name: 'Listen', type: 'Listened', points: 50 });
  const otherIds = await insertMembers(
    t,
    other,
    Array.from({ length: 5 }, () => ({})),
  );
  await record(
    t,
    other,
    otherIds.map((memberId) => ({ activityId: otherListen, memberId, completedAt: hoursAgo(3) })),
  );
}, 120_000);
afterAll(() => t.close());

interface Ranked {
  id: number;
  points: number;
  activityCount: number;
  lastRecordId: number;
}

/** A ranking by definition: app's records in the window summed member by member, by points then id. */
async function bruteForce(window: WindowInput, sort: 'ASC' | 'DESC' = 'DESC', now = new Date()): Promise<Ranked[]> {
  const { start, end } = resolveWindow(window, listingWindow, now);
  const rows = await executeRows<Record<string, unknown>>(
    t.database.db,
    sql`select member_id as id, sum(points)::int as points, count(*)::int as activity_count,
      (array_agg(id order by completed_at desc, id desc))[1] as last_record_id
    from activity_records where account_id = ${app.accountId} and not one_time
      and completed_at >= ${start.toISOString()}::timestamptz and completed_at < ${end.toISOString()}::timestamptz
    group by member_id`,
  );
  const direction = sort === 'DESC' ? -1 : 1;
  return rows
    .map((row) => ({ id: Number(row.id), points: Number(row.points), activityCount: Number(row.activity_count), lastRecordId: Number(row.last_record_id) }))
    .sort((a, b) => direction * (a.points - b.points) || a.id - b.id);
}

const edgeFields = 'cursor rank rankCapped score { points activityCount } lastActivity { id } node { id score { points activityCount } }';

interface Edge {
  cursor: string;
  rank: number | null;
  rankCapped: boolean;
  score: { points: number; activityCount: number };
  lastActivity: { id: string } | null;
  node: { id: string; score: { points: number; activityCount: number } };
}

const asRanked = (edges: Edge[]) => edges.map((edge) => ({ id: Number(edge.node.id), points: edge.score.points, activityCount: edge.score.activityCount, lastRecordId: Number(edge.lastActivity?.id) }));

async function ask(query: string, variables: Record<string, unknown> = {}, tenant = app) {
  const response = await t.graphql(tenant.apiKey, query, variables);
  return { body: response.body, roundTrips: Number(response.headers['x-sql-round-trips']) };
}

describe("a listing's figures on its edges", () => {
  it('a week and a month leaderboard in one document each answer their own window, as the records sum up', async () => {
    const query = `query($week: WindowInput, $month: WindowInput) {
      week: members(window: $week, first: 200) { edges { ${edgeFields} } }
      month: members(window: $month, first: 200) { edges { ${edgeFields} monthOfTheMember: node { id monthly: score(window: $month) { points activityCount } ownDefault: score(window: {}) { points activityCount } weekRank: rank monthRank: rank(window: $month) } } }
    }`;
    const before = new Date();
    const { body } = await ask(query, { week, month });
    const after = new Date();
    expect(body.errors).toBeUndefined();
    const expectedWeek = await bruteForce(week, 'DESC', before);
    const expectedMonth = await bruteForce(month, 'DESC', before);
    // No record lies at either end of the windows between the two instants.
    expect(await bruteForce(week, 'DESC', after)).toEqual(expectedWeek);
    expect(await bruteForce(month, 'DESC', after)).toEqual(expectedMonth);
    const weekEdges: Edge[] = body.data.week.edges;
    const monthEdges: (Edge & { monthOfTheMember: { monthly: unknown; ownDefault: unknown; weekRank: number | null; monthRank: number | null } })[] = body.data.month.edges;
    expect(asRanked(weekEdges)).toEqual(expectedWeek);
    expect(asRanked(monthEdges)).toEqual(expectedMonth);
    expect(weekEdges.map((edge) => edge.rank)).toEqual(expectedWeek.map((_, index) => index + 1));
    expect(monthEdges.map((edge) => edge.rank)).toEqual(expectedMonth.map((_, index) => index + 1));
    expect([...weekEdges, ...monthEdges].every((edge) => !edge.rankCapped)).toBe(true);
    // The two disagree for most members: what a normalised cache kept in one slot before.
    const weekOf = new Map(weekEdges.map((edge) => [edge.node.id, edge]));
    const differing = monthEdges.filter((edge) => {
      const inWeek = weekOf.get(edge.node.id);
      return !inWeek || inWeek.score.points !== edge.score.points || inWeek.rank !== edge.rank;
    });
    expect(differing.length).toBeGreaterThan(50);
    expect(monthEdges.length).toBe(weekEdges.length + 5);
    // The node's score without arguments still answers the listing's figures (deprecated there).
    for (const edge of [...weekEdges, ...monthEdges]) expect(edge.node.score).toEqual(edge.score);
    // With a window given, the member's score is the same wherever it appears.
    for (const edge of monthEdges) expect(edge.monthOfTheMember.monthly).toEqual(edge.score);
    // An empty window asks for the member's default (the week) in a listing too.
    for (const edge of monthEdges) expect(edge.monthOfTheMember.ownDefault).toEqual(weekOf.get(edge.node.id)?.score ?? { points: 0, activityCount: 0 });
    // Member.rank means the member's default ranking (the week) wherever it appears, or the window given.
    for (const edge of monthEdges) {
      expect(edge.monthOfTheMember.weekRank).toBe(weekOf.get(edge.node.id)?.rank ?? null);
      expect(edge.monthOfTheMember.monthRank).toBe(edge.rank);
    }
    const lookedUp = await ask(`query($id: ID!) { member(lookup: { id: $id }) { rank position } }`, { id: weekEdges[4].node.id });
    expect(lookedUp.body.data.member.rank).toBe(5);
    // A member without counted activity has no rank.
    expect((await ask(`query($id: ID!) { member(lookup: { id: $id }) { rank } }`, { id: String(ids[129]) })).body.data.member.rank).toBeNull();
  });

  it('ranks ties as the listing orders them, by member id, both ways', async () => {
    for (const sort of ['DESC', 'ASC'] as const) {
      const { body } = await ask(`query($sort: SortDirection) { members(window: { period: { amount: 1, unit: WEEK } }, sort: $sort, first: 1000) { edges { ${edgeFields} } } }`, { sort });
      expect(body.errors).toBeUndefined();
      const edges: Edge[] = body.data.members.edges;
      const expected = await bruteForce(week, sort);
      expect(asRanked(edges)).toEqual(expected);
      expect(edges.map((edge) => edge.rank)).toEqual(expected.map((_, index) => index + 1));
      // Ties there are: every rank is still its own.
      const tied = expected.filter((row, index) => index > 0 && expected[index - 1].points === row.points);
      expect(tied.length).toBeGreaterThan(50);
      expect(new Set(edges.map((edge) => edge.rank)).size).toBe(edges.length);
    }
  });

  it('ranks every page through the whole listing: offsets, cursors both ways and a from keyset', async () => {
    const expected = await bruteForce(week);
    const page = `query($first: Int, $after: String, $before: String, $offset: Int, $from: MemberKeyset) {
      members(window: { period: { amount: 1, unit: WEEK } }, first: $first, after: $after, before: $before, offset: $offset, from: $from) {
        edges { ${edgeFields} } pageInfo { hasNextPage startCursor endCursor } } }`;
    const walked: Edge[] = [];
    let after: string | undefined;
    for (;;) {
      const { body } = await ask(page, { first: 7, after });
      expect(body.errors).toBeUndefined();
      walked.push(...body.data.members.edges);
      if (!body.data.members.pageInfo.hasNextPage) break;
      after = body.data.members.pageInfo.endCursor;
    }
    expect(asRanked(walked)).toEqual(expected);
    expect(walked.map((edge) => edge.rank)).toEqual(expected.map((_, index) => index + 1));
    // The page before the 50th member: ranks 43 to 49.
    const back = await ask(page, { first: 7, before: walked[49].cursor });
    expect(back.body.data.members.edges.map((edge: Edge) => edge.rank)).toEqual([43, 44, 45, 46, 47, 48, 49]);
    // An offset page, and one from a keyset.
    const offset = await ask(page, { first: 5, offset: 30 });
    expect(offset.body.data.members.edges.map((edge: Edge) => edge.rank)).toEqual([31, 32, 33, 34, 35]);
    const from = await ask(page, { first: 3, from: { points: expected[59].points, memberId: expected[59].id } });
    expect(from.body.data.members.edges.map((edge: Edge) => [Number(edge.node.id), edge.rank])).toEqual(expected.slice(60, 63).map((row, index) => [row.id, 61 + index]));
  });

  it('ranks plain orders by their place, by id through cursors too', async () => {
    const page = `query($first: Int, $after: String, $offset: Int, $sort: SortDirection, $orderBy: MemberOrder) {
      members(orderBy: $orderBy, sort: $sort, first: $first, after: $after, offset: $offset) { edges { rank rankCapped node { id } } pageInfo { endCursor } } }`;
    const byId = [...ids].sort((a, b) => a - b);
    const first = await ask(page, { orderBy: 'ID', sort: 'ASC', first: 40 });
    const next = await ask(page, { orderBy: 'ID', sort: 'ASC', first: 40, after: first.body.data.members.pageInfo.endCursor });
    const edges = [...first.body.data.members.edges, ...next.body.data.members.edges];
    expect(edges.map((edge: { node: { id: string } }) => Number(edge.node.id))).toEqual(byId.slice(0, 80));
    expect(edges.map((edge: { rank: number }) => edge.rank)).toEqual(byId.slice(0, 80).map((_, index) => index + 1));
    const created = await ask(page, { orderBy: 'CREATED', sort: 'DESC', first: 4, offset: 10 });
    expect(created.body.data.members.edges.map((edge: { rank: number }) => edge.rank)).toEqual([11, 12, 13, 14]);
  });

  it('costs a fixed number of statements for pages of 10 and 100, from the start and after a cursor', async () => {
    const page = `query($first: Int!, $after: String) { members(window: { period: { amount: 1, unit: WEEK } }, first: $first, after: $after) {
      edges { rank rankCapped score { points activityCount } lastActivity { id activity { name } } node { id email } } pageInfo { endCursor } } }`;
    const plain = `query($first: Int!, $after: String) { members(window: { period: { amount: 1, unit: WEEK } }, first: $first, after: $after) { edges { node { id email } } pageInfo { endCursor } } }`;
    // The fewer of two runs: a cache the process refreshes now and then is no cost of the page.
    const fewest = async (query: string, variables: Record<string, unknown>) => {
      const [one, two] = [await ask(query, variables), await ask(query, variables)];
      expect(one.body.errors).toBeUndefined();
      return { count: Math.min(one.roundTrips, two.roundTrips), body: one.body };
    };
    const start = (await ask(plain, { first: 2 })).body.data.members.pageInfo.endCursor;
    const ten = await fewest(page, { first: 10 });
    const hundred = await fewest(page, { first: 100 });
    expect(hundred.body.data.members.edges).toHaveLength(100);
    expect(hundred.count).toBe(ten.count);
    // The ranking with its scores, the latest records with their definitions: one statement more
    // than the page alone; the ranks of a first page are its places.
    expect(ten.count).toBe((await fewest(plain, { first: 10 })).count + 1);
    const tenAfter = await fewest(page, { first: 10, after: start });
    const hundredAfter = await fewest(page, { first: 100, after: start });
    expect(hundredAfter.body.data.members.edges[0].rank).toBe(3);
    expect(hundredAfter.count).toBe(tenAfter.count);
    // After a cursor, one count of the members before the page.
    expect(tenAfter.count).toBe((await fewest(plain, { first: 10, after: start })).count + 2);
  });

  it('caps ranks beyond the deepest it counts', async () => {
    const many = await t.tenant('advanced');
    const count = rankCap + 10;
    await t.database.db.execute(sql`insert into members (account_id, email, access_token_hash, access_token_sealed)
      select ${many.accountId}, 'fan' || g || '-' || ${many.accountId} || '@example.com', 'hash-' || ${many.accountId} || '-' || g, 'sealed'
      from generate_series(1, ${count}) g`);
    const page = `query($first: Int, $after: String, $offset: Int, $from: MemberKeyset) {
      members(orderBy: ID, sort: ASC, first: $first, after: $after, offset: $offset, from: $from) { edges { rank rankCapped node { id } } pageInfo { endCursor } } }`;
    const ranks = (body: { data?: { members: { edges: { rank: number | null; rankCapped: boolean }[] } } }) => body.data!.members.edges.map((edge) => [edge.rank, edge.rankCapped]);
    // By offset: exact up to the cap, then capped.
    const byOffset = await ask(page, { first: 6, offset: rankCap - 3 }, many);
    expect(byOffset.body.errors).toBeUndefined();
    expect(ranks(byOffset.body)).toEqual([
      [rankCap - 2, false],
      [rankCap - 1, false],
      [rankCap, false],
      [null, true],
      [null, true],
      [null, true],
    ]);
    // After a cursor: the members before the page are counted up to the cap.
    const head = await ask(page, { first: 2, offset: rankCap - 4 }, many);
    const afterCursor = await ask(page, { first: 4, after: head.body.data.members.pageInfo.endCursor }, many);
    expect(ranks(afterCursor.body)).toEqual([
      [rankCap - 1, false],
      [rankCap, false],
      [null, true],
      [null, true],
    ]);
    // From deep in the listing: every member of the page is beyond the cap.
    const deep = Number(byOffset.body.data.members.edges[5].node.id);
    const fromDeep = await ask(page, { first: 3, from: { memberId: deep } }, many);
    expect(ranks(fromDeep.body)).toEqual([
      [null, true],
      [null, true],
      [null, true],
    ]);
  }, 120_000);

  it('refuses a bad window or filter as the listing did, with or without the edge fields', async () => {
    const bad: Record<string, unknown>[] = [
      { window: { period: { amount: 0, unit: 'WEEK' } } },
      { window: { start: '2026-01-02T00:00:00Z', end: '2026-01-01T00:00:00Z' } },
      { filter: { brandId: 'not a number' } },
      { filter: { countries: ['GB'], optedIn: true } },
    ];
    const withEdges = `query($filter: MemberFilter, $window: WindowInput) { members(filter: $filter, window: $window) { edges { rank rankCapped score { points } lastActivity { id } node { id } } } }`;
    const without = `query($filter: MemberFilter, $window: WindowInput) { members(filter: $filter, window: $window) { edges { node { id } } } }`;
    for (const variables of bad) {
      const [one, two] = [await ask(withEdges, variables), await ask(without, variables)];
      expect(one.body.errors, JSON.stringify(variables)).toBeDefined();
      expect(one.body.data, JSON.stringify(variables)).toBeNull();
      const shown = (errors: { message: string; extensions: Record<string, unknown> }[]) => errors.map(({ message, extensions: { requestId, ...extensions } }) => [message, extensions, typeof requestId]);
      expect(shown(one.body.errors)).toEqual(shown(two.body.errors));
    }
  });

  it("never lists or counts another account's members", async () => {
    const query = `{ members(window: { period: { amount: 1, unit: WEEK } }, first: 1000) { edges { ${edgeFields} } } }`;
    const { body } = await ask(query);
    const own = new Set(ids.map(String));
    const edges: Edge[] = body.data.members.edges;
    expect(edges.every((edge) => own.has(edge.node.id))).toBe(true);
    // Their members outscore all of app's: app's first is still rank 1.
    expect(edges[0].rank).toBe(1);
    const theirs = await ask(query, {}, other);
    expect(theirs.body.data.members.edges.map((edge: Edge) => edge.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(theirs.body.data.members.edges.some((edge: Edge) => own.has(edge.node.id))).toBe(false);
    // A cursor of app's listing, used by the other account, ranks among its own members only.
    const cursor = edges[2].cursor;
    const continued = await ask(`query($after: String) { members(window: { period: { amount: 1, unit: WEEK } }, after: $after) { edges { rank node { id } } } }`, { after: cursor }, other);
    expect(continued.body.errors).toBeUndefined();
    expect(continued.body.data.members.edges.some((edge: Edge) => own.has(edge.node.id))).toBe(false);
  });
});
