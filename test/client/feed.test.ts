import { and, desc, eq, gte, lt } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityRecords } from '../../src/db/schema/index.js';
import { ago, createActivity, insertMembers, record } from '../support/activity-data.js';
import { ActivityFeedPageDocument, type ActivityFeedPageQuery } from './generated/graphql.js';
import { startClientGateway, type ClientGateway } from './support.js';

/**
 * Screen (c): an infinite activity feed. Pages are merged by fetchMore into one list (the cache's
 * relayStylePagination policy); records stored between two pages must not repeat an item or skip one.
 */
let g: ClientGateway;
let listen = 0;
let fans: number[] = [];
const minute = 60_000;

beforeAll(async () => {
  g = await startClientGateway();
  listen = await createActivity(g.t, g.tenant, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2 });
  fans = await insertMembers(g.t, g.tenant, [{}, {}, {}]);
  // 14 records, one every ten minutes from 3 hours ago to 50 minutes ago: three pages of 5, the last short.
  await record(
    g.t,
    g.tenant,
    Array.from({ length: 14 }, (_, index) => ({ activityId: listen, memberId: fans[index % 3], completedAt: ago((180 - index * 10) * minute) })),
  );
});

afterAll(() => g?.close());

/** The feed as the database holds it, newest first: completed within the week before `end`, stored before it. */
async function bruteForce(end: Date): Promise<number[]> {
  const rows = await g.t.database.db
    .select({ id: activityRecords.id })
    .from(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, g.tenant.accountId),
        gte(activityRecords.completedAt, new Date(end.getTime() - 7 * 24 * 60 * minute)),
        lt(activityRecords.completedAt, end),
        lt(activityRecords.recordedAt, end),
      ),
    )
    .orderBy(desc(activityRecords.completedAt), desc(activityRecords.id));
  return rows.map((row) => row.id);
}

describe('an infinite activity feed', () => {
  // Offset cursors over a window recomputed per page repeated the items new records shifted
  // ([14, 13, 12, 11, 10, 11, 10, …]); keyset cursors carrying the first page's window and time do not.
  it('merges pages with records arriving between them: no repeat, no gap', async () => {
    const client = g.client();
    const variables = { first: 5 };
    const first = await client.query({ query: ActivityFeedPageDocument, variables });
    // The first page's window ends when it was answered: records completed later belong above it.
    const windowEnd = new Date();
    const firstPage = first.data!.activityFeed.edges.map((edge) => Number(edge.node.id));
    expect(firstPage).toHaveLength(5);

    // Between the first and the second page: a record completed just now (above the first page),
    // one completed between two records already shown, and one further down the list.
    const arrived = await record(g.t, g.tenant, [
      { activityId: listen, memberId: fans[0], completedAt: new Date().toISOString() },
      { activityId: listen, memberId: fans[1], completedAt: ago(65 * minute) },
      { activityId: listen, memberId: fans[2], completedAt: ago(125 * minute) },
    ]);
    const [aboveFirstPage, amongShown, furtherDown] = arrived.recordIds.map(Number);

    const feed = client.watchQuery({ query: ActivityFeedPageDocument, variables, fetchPolicy: 'cache-first' });
    const subscription = feed.subscribe(() => {});
    try {
      let page: ActivityFeedPageQuery['activityFeed'] = first.data!.activityFeed;
      for (let guard = 0; page.pageInfo.hasNextPage && guard < 10; guard += 1) {
        const more = await feed.fetchMore({ variables: { after: page.pageInfo.endCursor } });
        page = more.data.activityFeed;
      }
    } finally {
      subscription.unsubscribe();
    }
    const merged = client.readQuery({ query: ActivityFeedPageDocument, variables })!.activityFeed.edges.map((edge) => Number(edge.node.id));

    // What the screen should show: the first page's window among the records stored by its time.
    // Those stored since, above, among or below the records shown, wait for a fresh first page.
    const expected = await bruteForce(windowEnd);
    expect(merged).toEqual(expected);
    expect(new Set(merged).size).toBe(merged.length);
    expect(merged.slice(0, 5)).toEqual(firstPage);
    expect(merged).toHaveLength(14);
    for (const arrivedId of [aboveFirstPage, amongShown, furtherDown]) expect(merged).not.toContain(arrivedId);
    // A fresh first page shows the records that arrived: the newest on top.
    const fresh = await client.query({ query: ActivityFeedPageDocument, variables, fetchPolicy: 'network-only' });
    expect(fresh.data!.activityFeed.edges.map((edge) => Number(edge.node.id))[0]).toBe(aboveFirstPage);
  });
});
