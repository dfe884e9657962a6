import { and, desc, eq, gte, lt, lte } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityRecords } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { createActivity, hoursAgo, insertMembers, record } from '../support/activity-data.js';

/**
 * The activity feed and Member.activities page by keyset cursors that carry the first page's window
 * and time: records stored between two pages neither repeat nor skip an item, backward pages are
 * forward pages reversed, and a cursor is refused when it was altered or belongs elsewhere.
 */
let t: TestGateway;
let app: Tenant;
let other: Tenant;
let listen: number;
let memberIds: number[];
let otherCursor: string;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
  listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2 });
  memberIds = await insertMembers(
    t,
    app,
    Array.from({ length: 12 }, () => ({ country: 'GB' })),
  );
  // 48 records over three days; every third hour holds two records at the very same time (ties go by id).
  const at = Array.from({ length: 24 }, (_, index) => hoursAgo(2 + index * 3));
  await record(
    t,
    app,
    at.flatMap((completedAt, index) => [
      { activityId: listen, memberId: memberIds[index % 12], completedAt },
      { activityId: listen, memberId: memberIds[(index * 5 + 1) % 12], completedAt },
    ]),
  );
  const theirs = await createActivity(t, other, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2 });
  const [stranger] = await insertMembers(t, other, [{ country: 'GB' }]);
  await record(t, other, [
    { activityId: theirs, memberId: stranger, completedAt: hoursAgo(1) },
    { activityId: theirs, memberId: stranger, completedAt: hoursAgo(2) },
  ]);
  const theirPage = await t.graphql(other.apiKey, '{ activityFeed(first: 1, allMemberActions: true) { pageInfo { endCursor } } }');
  otherCursor = theirPage.body.data.activityFeed.pageInfo.endCursor;
});
afterAll(() => t.close());

interface Page {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  edges: { cursor: string; node: { id: string; memberId: string } }[];
  nodes: { id: string }[];
}

const feedQuery = `query($first: Int, $last: Int, $after: String, $before: String, $offset: Int, $all: Boolean!, $recorded: Boolean!, $sort: SortDirection!) {
  activityFeed(first: $first, last: $last, after: $after, before: $before, offset: $offset, allMemberActions: $all, orderByRecorded: $recorded, sort: $sort) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { id memberId } }
    nodes { id }
  }
}`;

type FeedVariables = { all: boolean; recorded: boolean; sort: 'ASC' | 'DESC'; first?: number; last?: number; after?: string | null; before?: string | null; offset?: number };

async function feed(variables: FeedVariables, tenant = app): Promise<Page> {
  const result = await t.graphql(tenant.apiKey, feedQuery, variables);
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  const page = result.body.data.activityFeed as Page;
  expect(page.nodes).toEqual(page.edges.map((edge) => ({ id: edge.node.id })));
  return page;
}

async function feedError(variables: Record<string, unknown>, tenant = app) {
  const result = await t.graphql(tenant.apiKey, feedQuery, { all: true, recorded: false, sort: 'DESC', ...variables });
  expect(result.body.data).toBeNull();
  return result.body.errors[0] as { message: string; extensions: { code: string; param: string } };
}

const ids = (page: Page) => page.edges.map((edge) => Number(edge.node.id));

/** What a cursor carries (its signed body): the first page's window and time. */
function cursorBody(cursor: string): { s: number; e: number; t: number } {
  return JSON.parse(Buffer.from(cursor.slice(0, cursor.lastIndexOf('.')), 'base64url').toString('utf8'));
}

/**
 * The list by brute force: every record of the account completed in the window [s, e) and stored by
 * t, in the list's order (the time, then the id); with `latest`, each member's latest of them.
 */
async function bruteForce(list: { s: number; e: number; t: number }, options: { latest: boolean; recorded: boolean; sort: 'ASC' | 'DESC'; memberId?: number }) {
  const time = options.recorded ? activityRecords.recordedAt : activityRecords.completedAt;
  const rows = await t.database.db
    .select({ id: activityRecords.id, memberId: activityRecords.memberId })
    .from(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, app.accountId),
        gte(activityRecords.completedAt, new Date(list.s)),
        lt(activityRecords.completedAt, new Date(list.e)),
        lte(activityRecords.recordedAt, new Date(list.t)),
        options.memberId ? eq(activityRecords.memberId, options.memberId) : undefined,
      ),
    )
    .orderBy(desc(time), desc(activityRecords.id));
  let kept = rows;
  if (options.latest) {
    const seen = new Set<number>();
    kept = rows.filter((row) => !seen.has(row.memberId) && seen.add(row.memberId));
  }
  const order = kept.map((row) => row.id);
  return options.sort === 'DESC' ? order : order.reverse();
}

let stored = 0;
/** Records stored between two pages: one newer than every other, one in the middle of the list, one tied with the page's last item. */
async function storeBetweenPages(page: Page) {
  const last = await t.database.db
    .select()
    .from(activityRecords)
    .where(eq(activityRecords.id, Number(page.edges.at(-1)!.node.id)));
  stored += 1;
  await record(t, app, [
    { activityId: listen, memberId: memberIds[stored % 12], completedAt: new Date(Date.now() - 1000).toISOString() },
    { activityId: listen, memberId: memberIds[(stored + 3) % 12], completedAt: hoursAgo(40) },
    { activityId: listen, memberId: memberIds[(stored + 7) % 12], completedAt: last[0].completedAt.toISOString() },
  ]);
}

describe('an infinite activity feed', () => {
  const lists: [string, { all: boolean; recorded: boolean; sort: 'ASC' | 'DESC' }][] = [
    ['every action, newest first', { all: true, recorded: false, sort: 'DESC' }],
    ['every action, oldest first', { all: true, recorded: false, sort: 'ASC' }],
    ['every action by the time stored', { all: true, recorded: true, sort: 'DESC' }],
    ["each member's latest, newest first", { all: false, recorded: false, sort: 'DESC' }],
    ["each member's latest, oldest first", { all: false, recorded: false, sort: 'ASC' }],
  ];

  for (const [name, list] of lists) {
    it(`shows no repeat and no gap with records stored between its pages: ${name}`, async () => {
      const seen: number[] = [];
      let after: string | null = null;
      let first: Page | undefined;
      for (let pages = 0; pages < 40; pages += 1) {
        const page: Page = await feed({ ...list, first: 5, after });
        first ??= page;
        // The whole count stays the first page's list.
        expect(page.totalCount).toBe(first.totalCount);
        expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
        seen.push(...ids(page));
        if (!page.pageInfo.hasNextPage) break;
        await storeBetweenPages(page);
        after = page.pageInfo.endCursor;
      }
      expect(new Set(seen).size).toBe(seen.length);
      const expected = await bruteForce(cursorBody(first!.pageInfo.endCursor!), { latest: !list.all, recorded: list.recorded, sort: list.sort });
      expect(seen).toEqual(expected);
      expect(first!.totalCount).toBe(expected.length);
    });
  }

  it('reads backward as it reads forward, reversed', async () => {
    for (const [name, list] of lists) {
      const forward: number[] = [];
      let after: string | null = null;
      let cursors: string[] = [];
      for (;;) {
        const page: Page = await feed({ ...list, first: 7, after });
        forward.push(...ids(page));
        cursors = [...cursors, ...page.edges.map((edge) => edge.cursor)];
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      // From the end of the list (last alone), page by page back to its start.
      const backward: number[] = [];
      let before: string | null = null;
      for (;;) {
        const page: Page = await feed({ ...list, last: 7, before });
        expect(page.pageInfo.hasNextPage, name).toBe(before !== null);
        backward.unshift(...ids(page));
        if (!page.pageInfo.hasPreviousPage) break;
        before = page.pageInfo.startCursor;
      }
      expect(backward, name).toEqual(forward);
      // From a cursor of the forward walk, the pages before it hold exactly the items before it.
      const middle = Math.floor(cursors.length / 2);
      const earlier: number[] = [];
      before = cursors[middle];
      for (;;) {
        const page: Page = await feed({ ...list, last: 4, before });
        earlier.unshift(...ids(page));
        if (!page.pageInfo.hasPreviousPage) break;
        before = page.pageInfo.startCursor;
      }
      expect(earlier, name).toEqual(forward.slice(0, middle));
      // And forward again from a backward page's end cursor continues where it stopped.
      const back = await feed({ ...list, last: 3, before: cursors[middle] });
      const again = await feed({ ...list, first: 3, after: back.pageInfo.endCursor });
      expect(ids(again), name).toEqual(forward.slice(middle, middle + 3));
    }
  });

  it('refuses offset with a cursor or last, after with before, and a size over the maximum, naming the argument', async () => {
    const page = await feed({ all: true, recorded: false, sort: 'DESC', first: 2 });
    const cursor = page.pageInfo.endCursor!;
    const cases: [Record<string, unknown>, string][] = [
      [{ after: cursor, offset: 2 }, 'offset'],
      [{ before: cursor, offset: 2 }, 'offset'],
      [{ last: 2, offset: 2 }, 'offset'],
      [{ after: cursor, before: cursor }, 'before'],
      [{ first: 1001 }, 'first'],
      [{ last: 1001 }, 'last'],
      [{ first: 0 }, 'first'],
      [{ last: 0 }, 'last'],
    ];
    for (const [variables, param] of cases) {
      const error = await feedError(variables);
      expect(error.extensions, JSON.stringify(variables)).toMatchObject({ code: 'INVALID_PARAMETER', param });
    }
    expect((await feedError({ first: 1001 })).message).toMatch(/at most 1000/);
    // offset alone still pages from the start of the list (REST's limit=offset,n).
    const offset = await feed({ all: true, recorded: false, sort: 'DESC', first: 2, offset: 1 });
    expect(offset.pageInfo.hasPreviousPage).toBe(true);
    expect(ids(offset)[0]).toBe(ids(page)[1]);
  });

  it("refuses a cursor altered, unsigned, of another list or of another account, telling nothing of the other account's records", async () => {
    const page = await feed({ all: true, recorded: false, sort: 'DESC', first: 2 });
    const cursor = page.pageInfo.endCursor!;
    const [body, signature] = cursor.split('.');
    const position = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const moved = Buffer.from(JSON.stringify({ ...position, i: position.i + 1 })).toString('base64url');
    const foreignAccount = Buffer.from(JSON.stringify({ ...position, a: other.accountId })).toString('base64url');
    const refused = [`${moved}.${signature}`, `${foreignAccount}.${signature}`, `${body}.${signature.slice(0, -2)}AA`, body, Buffer.from('{"o":3}').toString('base64url'), 'nonsense', otherCursor];
    const messages = new Set<string>();
    for (const after of refused) {
      const error = await feedError({ first: 2, after });
      expect(error.extensions, after).toMatchObject({ code: 'INVALID_PARAMETER', param: 'after' });
      messages.add(error.message);
    }
    // One answer for every refusal: it does not tell a foreign cursor from a made-up one.
    expect([...messages]).toEqual(["The parameter 'after' is invalid: expected a cursor from an earlier page of this list."]);
    // The cursor of another list (another order) is refused too.
    expect((await feedError({ first: 2, after: cursor, sort: 'ASC' })).extensions.param).toBe('after');
    // The other account's own cursor still works for it, on its own records only.
    const theirs = await feed({ all: true, recorded: false, sort: 'DESC', first: 5, after: otherCursor }, other);
    expect(theirs.edges).toHaveLength(1);
    expect(theirs.totalCount).toBe(2);
  });

  it('costs the same SQL round trips on every page', async () => {
    for (const all of [true, false]) {
      const counts: number[] = [];
      let after: string | null = null;
      await t.graphql(app.apiKey, feedQuery, { all, recorded: false, sort: 'DESC', first: 1 }); // the key is cached from here on
      for (let index = 0; index < 4; index += 1) {
        const response: { body: { errors?: unknown; data?: { activityFeed: Page } }; headers: Record<string, unknown> } = await t.graphql(app.apiKey, feedQuery, {
          all,
          recorded: false,
          sort: 'DESC',
          first: 3,
          after,
        });
        expect(response.body.errors).toBeUndefined();
        counts.push(Number(response.headers['x-sql-round-trips']));
        after = response.body.data!.activityFeed.pageInfo.endCursor;
      }
      expect(new Set(counts).size, `allMemberActions ${all}: ${counts.join(', ')}`).toBe(1);
    }
  });
});

describe('Member.activities pages', () => {
  const memberQuery = `query($id: ID!, $first: Int, $last: Int, $after: String, $before: String) {
    member(lookup: { id: $id }) {
      activities(first: $first, last: $last, after: $after, before: $before, window: { period: { amount: 1, unit: MONTH } }) {
        totalCount
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node { id memberId } }
        nodes { id }
      }
    }
  }`;

  async function activities(variables: Record<string, unknown>): Promise<Page> {
    const result = await t.graphql(app.apiKey, memberQuery, variables);
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    return result.body.data.member.activities as Page;
  }

  it('shows no repeat and no gap with records stored between its pages, and reads backward as forward reversed', async () => {
    const memberId = memberIds[4];
    const seen: number[] = [];
    let after: string | null = null;
    let first: Page | undefined;
    for (;;) {
      const page: Page = await activities({ id: String(memberId), first: 2, after });
      first ??= page;
      expect(page.totalCount).toBe(first.totalCount);
      expect(page.edges.every((edge) => Number(edge.node.memberId) === memberId)).toBe(true);
      seen.push(...ids(page));
      if (!page.pageInfo.hasNextPage) break;
      await record(t, app, [
        { activityId: listen, memberId, completedAt: new Date(Date.now() - 1000).toISOString() },
        { activityId: listen, memberId, completedAt: hoursAgo(30) },
      ]);
      after = page.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(await bruteForce(cursorBody(first.pageInfo.endCursor!), { latest: false, recorded: false, sort: 'DESC', memberId }));

    // Backward from a cursor of the forward walk: the items before it, in order.
    const cursor = first.pageInfo.endCursor!;
    const back = await activities({ id: String(memberId), last: 5, before: cursor });
    expect(ids(back)).toEqual(ids(first).slice(0, 1));
    expect(back.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    // From the end of the list (last alone): the oldest records, oldest last as forward.
    const forward: number[] = [];
    after = null;
    for (;;) {
      const page: Page = await activities({ id: String(memberId), first: 3, after });
      forward.push(...ids(page));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    const backward: number[] = [];
    let before: string | null = null;
    for (;;) {
      const page: Page = await activities({ id: String(memberId), last: 3, before });
      backward.unshift(...ids(page));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(forward);
  });

  it('refuses a size over the maximum, a cursor of the feed or of another account, naming the argument', async () => {
    const feedCursor = (await feed({ all: true, recorded: false, sort: 'DESC', first: 1 })).pageInfo.endCursor;
    const cases: [Record<string, unknown>, string][] = [
      [{ first: 1001 }, 'first'],
      [{ last: 1001 }, 'last'],
      [{ after: feedCursor }, 'after'],
      [{ before: otherCursor }, 'before'],
      [{ after: 'x', before: 'y' }, 'before'],
    ];
    for (const [variables, param] of cases) {
      const result = await t.graphql(app.apiKey, memberQuery, { id: String(memberIds[1]), ...variables });
      expect(result.body.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({ code: 'INVALID_PARAMETER', param });
      expect(JSON.stringify(result.body.data ?? {})).not.toMatch(/"id"/);
    }
  });

  it("costs the same SQL round trips on every page of a listing's members", async () => {
    const query = `query($after: String) {
      members(first: 6, orderBy: ID, sort: ASC) {
        edges { node { id activities(first: 2, after: $after) { totalCount pageInfo { endCursor } edges { node { id } } } } }
      }
    }`;
    await t.graphql(app.apiKey, query, {});
    const counts: number[] = [];
    let after: string | undefined;
    for (let index = 0; index < 3; index += 1) {
      const response = await t.graphql(app.apiKey, query, { after });
      expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
      counts.push(Number(response.headers['x-sql-round-trips']));
      after = response.body.data.members.edges[0].node.activities.pageInfo.endCursor ?? undefined;
    }
    expect(new Set(counts).size, String(counts)).toBe(1);
  });
});
