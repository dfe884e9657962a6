import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivity, daysAgo, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { BrandTopMembersByEdgeDocument, BrandTopMembersDocument } from './generated/graphql.js';
import { startClientGateway, type ClientGateway } from './support.js';

/**
 * Screen (b): a brand's top 20 this week and this month on one page. Both listings hold the same
 * members with different numbers; in a normalized cache each must keep its own.
 */
let g: ClientGateway;
let brandId: number;
let [ada, ben, cat] = [0, 0, 0];
const end = new Date(Date.now() + 60_000).toISOString();
const week = { start: daysAgo(7), end };
const month = { start: daysAgo(30), end };

beforeAll(async () => {
  g = await startClientGateway();
  brandId = await insertBrand(g.t, g.tenant, 'Chart Band');
  const listen = await createActivity(g.t, g.tenant, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brandId, points: 2 });
  [ada, ben, cat] = await insertMembers(g.t, g.tenant, [{}, {}, {}]);
  const at = (memberId: number, completedAt: string) => ({ activityId: listen, memberId, completedAt });
  await record(g.t, g.tenant, [
    // This week: Ada 3 listens, Ben 1.
    at(ada, hoursAgo(1)),
    at(ada, hoursAgo(2)),
    at(ada, hoursAgo(3)),
    at(ben, hoursAgo(4)),
    // Earlier this month: Ben 5 more, Cat 2.
    ...[1, 2, 3, 4, 5].map((n) => at(ben, daysAgo(10 + n))),
    at(cat, daysAgo(20)),
    at(cat, daysAgo(21)),
  ]);
});

afterAll(() => g?.close());

describe('a brand top 20, this week and this month on one page', () => {
  it('Member.score without arguments shares one cache slot: the month listing overwrites the week numbers', async () => {
    const client = g.client();
    const { data } = await client.query({ query: BrandTopMembersDocument, variables: { brandId: String(brandId), week, month } });
    const rows = (listing: NonNullable<typeof data>['week']) => listing.edges.map((edge) => [Number(edge.node.id), edge.node.score.points, edge.node.score.activityCount]);
    expect(rows(data!.month)).toEqual([
      [ben, 12, 6],
      [ada, 6, 3],
      [cat, 4, 2],
    ]);
    // The server answered Ben's week score as 2 points and 1 record: the cache keeps the month's.
    expect(rows(data!.week)).toEqual([
      [ada, 6, 3],
      [ben, 12, 6],
    ]);
  });

  it("each listing keeps its own figures on its edges, whatever the other listing's", async () => {
    const client = g.client();
    const { data } = await client.query({ query: BrandTopMembersByEdgeDocument, variables: { brandId: String(brandId), week, month } });
    const rows = (listing: NonNullable<typeof data>['week']) => listing.edges.map((edge) => [Number(edge.node.id), edge.rank, edge.rankCapped, edge.score.points, edge.score.activityCount]);
    expect(data!.week.totalCount).toBe(2);
    expect(rows(data!.week)).toEqual([
      [ada, 1, false, 6, 3],
      [ben, 2, false, 2, 1],
    ]);
    expect(data!.month.totalCount).toBe(3);
    expect(rows(data!.month)).toEqual([
      [ben, 1, false, 12, 6],
      [ada, 2, false, 6, 3],
      [cat, 3, false, 4, 2],
    ]);
    // Read back from the normalized cache, as a second component of the page would.
    const cached = client.readQuery({ query: BrandTopMembersByEdgeDocument, variables: { brandId: String(brandId), week, month } })!;
    expect(rows(cached.week)).toEqual(rows(data!.week));
    expect(rows(cached.month)).toEqual(rows(data!.month));
  });
});
