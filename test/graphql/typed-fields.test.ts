import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityRecords, brands, members } from '../../src/db/schema/index.js';
import { createActivity, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * Types that say what they hold: objects beside ids (brand: Brand, deleted brands too), numbers
 * and enums beside text, a segment's filter typed, member(ref:) with a @oneOf MemberRef. Each
 * answer is compared with the database, or with a count made here from the rows inserted.
 */
let t: TestGateway;
let app: Tenant;
let other: Tenant;
let live: number;
let gone: number;
let listen: number;
let share: number;
let memberIds: number[];
let theirMember: number;

const today = new Date();
/** A birth date `years` whole years and about a hundred days ago: its age is `years` all day. */
const bornYearsAgo = (years: number) => {
  const date = new Date(Date.UTC(today.getUTCFullYear() - years, today.getUTCMonth(), today.getUTCDate()));
  date.setUTCDate(date.getUTCDate() - 100);
  return date.toISOString().slice(0, 10);
};
const ages = [10, 15, 20, 30, 40, 50, 60, 70, 24, 65];
const genders = ['M', 'F', 'Other', null, 'M', 'F', 'M', null, 'Other', 'M'];

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
  live = await insertBrand(t, app, 'Live Band');
  gone = await insertBrand(t, app, 'Gone Band', 'Sport');
  listen = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: live, points: 2 });
  share = await createActivity(t, app, { name: 'Share', type: 'Shared', brandid: gone, points: 5 });
  memberIds = await insertMembers(
    t,
    app,
    ages.map((age, index) => ({ country: 'GB', birthDate: bornYearsAgo(age), gender: genders[index] ?? undefined })),
  );
  // The eleventh member has no birth date: the unknown bucket.
  memberIds.push(...(await insertMembers(t, app, [{ country: 'FR' }])));
  [theirMember] = await insertMembers(t, other, [{ email: 'theirs@example.net' }]);
  await record(
    t,
    app,
    memberIds.flatMap((memberId, index) => [
      { activityId: listen, memberId, completedAt: hoursAgo(1 + index) },
      { activityId: share, memberId, completedAt: hoursAgo(2 + index) },
    ]),
  );
  const deleted = await t.graphql(app.apiKey, 'mutation($id: ID!) { deleteBrand(id: $id) }', { id: String(gone) });
  expect(deleted.body.data).toEqual({ deleteBrand: true });
});
afterAll(() => t?.close());

async function data(query: string, variables: Record<string, unknown> = {}, key = app.apiKey) {
  const answer = await t.graphql(key, query, variables);
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return { data: answer.body.data, roundTrips: Number(answer.headers['x-sql-round-trips']) };
}

async function brandRow(id: number) {
  const [row] = await t.database.db.select().from(brands).where(eq(brands.id, id));
  return { __typename: 'Brand', id: String(row.id), name: row.name, type: row.type, deletedAt: row.deletedAt?.toISOString() ?? null };
}

describe('brand: Brand beside brandId', () => {
  const feed = `query($first: Int!) {
    activityFeed(first: $first, allMemberActions: true) {
      edges { node { id brandId brand { __typename id name type deletedAt } activity { id brandId brand { id name deletedAt } } } }
    }
  }`;

  it('answers the brand of each record, a deleted brand too, as the database holds it', async () => {
    const { data: answer } = await data(feed, { first: 100 });
    const edges: { node: { id: string; brandId: string; brand: unknown; activity: { id: string; brandId: string; brand: { id: string } } } }[] = answer.activityFeed.edges;
    expect(edges).toHaveLength(memberIds.length * 2);
    const rows = await t.database.db.select().from(activityRecords).where(eq(activityRecords.accountId, app.accountId));
    const brandOfRecord = new Map(rows.map((row) => [String(row.id), row.brandId]));
    const expected = { [live]: await brandRow(live), [gone]: await brandRow(gone) };
    expect(expected[gone].deletedAt).not.toBeNull();
    expect(expected[live].deletedAt).toBeNull();
    for (const { node } of edges) {
      expect(node.brandId).toBe(String(brandOfRecord.get(node.id)));
      expect(node.brand).toEqual(expected[Number(node.brandId)]);
      expect(node.activity.brand.id).toBe(node.activity.brandId);
    }
    expect(new Set(edges.map(({ node }) => node.brandId))).toEqual(new Set([String(live), String(gone)]));
  });

  it('costs the same statements for a page of 2 and of 20 records with brand selected', async () => {
    await data(feed, { first: 1 });
    const two = await data(feed, { first: 2 });
    const twenty = await data(feed, { first: 20 });
    expect(twenty.data.activityFeed.edges).toHaveLength(20);
    expect(twenty.roundTrips).toBe(two.roundTrips);
  });

  it('answers REST’s feed as before: the deleted brand’s name from its kept row', async () => {
    const answer = await t.rest(app, 'GET', '/activity/feed', { all_member_actions: 1, limit: 100 });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.body).toContain('"Gone Band"');
  });

  it("answers a listing's brand and a member's top brands as Brand", async () => {
    const { data: answer } = await data(
      `query($brand: ID!, $member: ID!) {
        members(first: 1, filter: { brandId: $brand }) { brand { __typename id name type deletedAt } }
        member(ref: { id: $member }) { topBrands(first: 5) { brandId name type points brand { id name type deletedAt } } }
      }`,
      { brand: String(live), member: String(memberIds[0]) },
    );
    expect(answer.members.brand).toEqual(await brandRow(live));
    const top: { brandId: string; name: string; type: string; points: number; brand: { id: string; name: string; type: string; deletedAt: string | null } }[] = answer.member.topBrands;
    expect(top.map((item) => item.brandId).sort()).toEqual([String(live), String(gone)].sort());
    for (const item of top) {
      const { __typename: _, ...row } = await brandRow(Number(item.brandId));
      expect(item.brand).toEqual(row);
      expect([item.name, item.type]).toEqual([row.name, row.type]);
    }
  });
});

describe('brandStats: objects, numbers and enums', () => {
  const report = `query($id: ID!) {
    brandStats(brandId: $id) {
      brandId brand { id name }
      activity { brandId brand { id } items { activityId definition { id name points } } }
      age { range min max known members }
      gender { gender value members }
    }
  }`;

  it('answers each bucket as numbers and an enum, equal to a count made from the members inserted', async () => {
    const { data: answer } = await data(report, { id: String(live) });
    const stats = answer.brandStats;
    expect(stats.brand).toEqual({ id: String(live), name: 'Live Band' });
    expect(stats.activity.brand).toEqual({ id: String(live) });
    expect(stats.activity.items).toEqual([{ activityId: String(listen), definition: { id: String(listen), name: 'Listen', points: 2 } }]);

    // Brute force: every member was active on the brand this week.
    const bounds: [string, number | null, number | null][] = [
      ['under 13', null, 12],
      ['13-17', 13, 17],
      ['18-24', 18, 24],
      ['25-34', 25, 34],
      ['35-44', 35, 44],
      ['45-54', 45, 54],
      ['55-64', 55, 64],
      ['65+', 65, null],
    ];
    const expectedAges = new Map<string, { min: number | null; max: number | null; known: boolean; members: number }>();
    for (const age of ages) {
      const [range, min, max] = bounds.find(([, low, high]) => (low === null || age >= low) && (high === null || age <= high))!;
      const bucket = expectedAges.get(range) ?? { min, max, known: true, members: 0 };
      bucket.members += 1;
      expectedAges.set(range, bucket);
    }
    expectedAges.set('unknown', { min: null, max: null, known: false, members: 1 });
    const answeredAges = new Map(stats.age.map(({ range, ...rest }: { range: string }) => [range, rest]));
    expect(answeredAges).toEqual(expectedAges);

    const expectedGenders = new Map<string, { value: string | null; members: number }>();
    for (const gender of [...genders, null]) {
      const word = gender ?? 'unknown';
      const entry = expectedGenders.get(word) ?? { value: gender === null ? null : gender === 'Other' ? 'OTHER' : gender, members: 0 };
      entry.members += 1;
      expectedGenders.set(word, entry);
    }
    expect(new Map(stats.gender.map(({ gender, ...rest }: { gender: string }) => [gender, rest]))).toEqual(expectedGenders);
  });
});

describe('Geo: latitude and longitude as numbers', () => {
  it('answers the stored text as the same number, and null when not known', async () => {
    await t.database.db
      .update(members)
      .set({ geoCountry: 'GB', geoCity: 'London', geoLat: '51.5074', geoLong: '-0.1278' })
      .where(and(eq(members.accountId, app.accountId), eq(members.id, memberIds[0])));
    const query = `query($id: ID!) { member(ref: { id: $id }) { geo { lat long latitude longitude } } }`;
    const placed = await data(query, { id: String(memberIds[0]) });
    expect(placed.data.member.geo).toEqual({ lat: '51.5074', long: '-0.1278', latitude: 51.5074, longitude: -0.1278 });
    const unplaced = await data(query, { id: String(memberIds[1]) });
    expect(unplaced.data.member.geo).toEqual({ lat: null, long: null, latitude: null, longitude: null });
  });
});

describe('Segment.memberFilter and filterWindow', () => {
  it('reads a saved filter back, typed, and sends it again as a MemberFilter with the same members', async () => {
    const saved = {
      countries: ['GB'],
      brandId: String(live),
      anyOfActivities: [{ activityId: String(listen), brandId: String(live) }, { activityId: String(share) }],
      includeOneTime: true,
      window: { period: { amount: 2, unit: 'WEEK' } },
    };
    const created = await data(
      `mutation($input: SegmentInput!) { createSegment(input: $input) {
        id filter
        memberFilter { brandId segmentId countries activityIds includeOneTime anyOfActivities { activityId brandId } allOfActivities { activityId } optedIn }
        filterWindow { start end period { amount unit } periodEnd { amount unit } }
      } }`,
      { input: { name: 'GB listeners', kind: 'FILTER', filter: saved } },
    );
    const segment = created.data.createSegment;
    expect(segment.filter).toEqual(saved);
    expect(segment.memberFilter).toEqual({
      brandId: String(live),
      segmentId: null,
      countries: ['GB'],
      activityIds: null,
      includeOneTime: true,
      anyOfActivities: [
        { activityId: String(listen), brandId: String(live) },
        { activityId: String(share), brandId: null },
      ],
      allOfActivities: null,
      optedIn: null,
    });
    expect(segment.filterWindow).toEqual({ start: null, end: null, period: { amount: 2, unit: 'WEEK' }, periodEnd: null });

    // The typed value is a MemberFilter as it stands: the same members as the segment's own.
    const { __typename: _, ...filter } = { __typename: '', ...segment.memberFilter };
    const asFilter = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== null));
    const listed = await data(
      `query($filter: MemberFilter, $segment: ID!) {
      byFilter: members(first: 100, filter: $filter, window: { period: { amount: 2, unit: WEEK } }) { totalCount }
      bySegment: members(first: 100, filter: { membersFromSegment: $segment }) { totalCount }
    }`,
      { filter: asFilter, segment: segment.id },
    );
    expect(listed.data.byFilter.totalCount).toBe(ages.length);
    expect(listed.data.bySegment.totalCount).toBe(listed.data.byFilter.totalCount);
  });

  it('answers null for a LIST segment', async () => {
    const created = await data(`mutation { createSegment(input: { name: "A list" }) { filter memberFilter { brandId } filterWindow { start } } }`);
    expect(created.data.createSegment).toEqual({ filter: null, memberFilter: null, filterWindow: null });
  });
});

describe('member(ref:): a @oneOf MemberRef', () => {
  const byRef = 'query($ref: MemberRef!) { member(ref: $ref) { id email } }';

  it('finds the member by each way of naming it', async () => {
    const [row] = await t.database.db.select().from(members).where(eq(members.id, memberIds[2]));
    const expected = { member: { id: String(row.id), email: row.email } };
    expect((await data(byRef, { ref: { id: String(row.id) } })).data).toEqual(expected);
    expect((await data(byRef, { ref: { email: row.email!.toUpperCase() } })).data).toEqual(expected);
    expect((await data(byRef, { ref: { networkUser: { network: 'spotify', username: `user${row.id}` } } })).data).toEqual(expected);
  });

  it('refuses two fields, and none, as a validation error before anything runs', async () => {
    for (const query of ['{ member(ref: { id: "1", email: "a@example.com" }) { id } }', '{ member(ref: {}) { id } }']) {
      const answer = await t.graphql(app.apiKey, query);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(answer.body.errors[0].message).toMatch(/OneOf Input Object "MemberRef" must specify exactly one key/);
    }
    for (const ref of [{ id: '1', email: 'a@example.com' }, {}]) {
      const answer = await t.graphql(app.apiKey, byRef, { ref });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  it('refuses ref with lookup, and neither, naming ref', async () => {
    const both = await t.graphql(app.apiKey, `{ member(ref: { id: "${memberIds[0]}" }, lookup: { id: "${memberIds[0]}" }) { id } }`);
    expect(both.body.data).toEqual({ member: null });
    expect(both.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'ref' });
    const neither = await t.graphql(app.apiKey, '{ member { id } }');
    expect(neither.body.data).toEqual({ member: null });
    expect(neither.body.errors[0].extensions).toMatchObject({ code: 'MISSING_PARAMETER', param: 'ref' });
  });

  it("answers null for another tenant's member, exactly as for nobody, and leaks nothing", async () => {
    const answers = [];
    for (const ref of [{ id: String(theirMember) }, { id: '999999999' }, { email: 'theirs@example.net' }, { email: 'nobody@example.net' }]) {
      const answer = await t.graphql(app.apiKey, byRef, { ref });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data).toEqual({ member: null });
      expect(answer.text).not.toContain(String(theirMember) === ref.id ? 'theirs@example.net' : '\u0000');
      const [error] = answer.body.errors;
      answers.push({ message: error.message, code: error.extensions.code, param: error.extensions.param, path: error.path });
    }
    expect(answers[0]).toEqual({ message: 'Member not found.', code: 'NOT_FOUND', param: 'ref', path: ['member'] });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it("is an application's: a member's token is refused, as with lookup", async () => {
    const registered = await t.rest(app, 'POST', '/member/register', { service: 'email', email: `fan-${Date.now()}@example.com`, password: 'correct horse' });
    expect(registered.status, registered.body).toBe(200);
    const [envelope] = registered.json;
    const answer = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${envelope.jwt}`, 'content-type': 'application/json' },
      payload: { query: `{ member(ref: { id: "${envelope.data.ID}" }) { id email } }` },
    });
    const body = answer.json();
    expect(body.data).toEqual({ member: null });
    expect(body.errors[0].extensions).toMatchObject({ code: 'WRONG_APPLICATION', aeCode: 7 });
  });

  it('keeps member(lookup:) answering as before', async () => {
    const answer = await t.graphql(app.apiKey, 'query($id: ID!) { member(lookup: { id: $id }) { id } }', { id: String(theirMember) });
    expect(answer.body.data).toEqual({ member: null });
    expect(answer.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', param: 'id' });
  });
});

describe('RecordActivityInput.member: a @oneOf MemberRef', () => {
  const recordMany = 'mutation($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created recordIds } }';
  const recordOne = 'mutation($input: RecordActivityInput!) { recordActivity(input: $input) { created record { memberId member { id } } } }';

  async function recordCount() {
    return (await t.database.db.select({ id: activityRecords.id }).from(activityRecords).where(eq(activityRecords.accountId, app.accountId))).length;
  }

  it('records for the member named by id, by email and by network username, in one batch', async () => {
    const [row] = await t.database.db.select().from(members).where(eq(members.id, memberIds[3]));
    const before = await recordCount();
    const refs = [{ id: String(row.id) }, { email: row.email!.toUpperCase() }, { networkUser: { network: 'spotify', username: `user${row.id}` } }];
    const answer = await data(recordMany, { input: refs.map((member, index) => ({ activityId: String(listen), member, marker: `ref-${index}` })) });
    expect(answer.data.recordActivities.created).toBe(3);
    const stored = await t.database.db.select().from(activityRecords).where(eq(activityRecords.accountId, app.accountId));
    expect(stored.length).toBe(before + 3);
    const byId = new Map(stored.map((record) => [String(record.id), record.memberId]));
    expect(answer.data.recordActivities.recordIds.map((id: string) => byId.get(id))).toEqual([row.id, row.id, row.id]);

    const single = await data(recordOne, { input: { activityId: String(listen), member: { email: row.email }, marker: 'ref-single' } });
    expect(single.data.recordActivity).toEqual({ created: true, record: { memberId: String(row.id), member: { id: String(row.id) } } });
  });

  it("refuses another tenant's member, a member beside memberId, and two ways, writing nothing", async () => {
    const before = await recordCount();
    for (const [member, code] of [
      [{ id: String(theirMember) }, 'NOT_FOUND'],
      [{ id: '999999999' }, 'NOT_FOUND'],
      [{ email: 'theirs@example.net' }, 'NOT_FOUND'],
    ] as const) {
      const answer = await t.graphql(app.apiKey, recordMany, {
        input: [
          { activityId: String(listen), memberId: String(memberIds[0]) },
          { activityId: String(listen), member },
        ],
      });
      expect(answer.body.data).toBeNull();
      expect(answer.body.errors[0].extensions).toMatchObject({ code, param: 'member' });
      expect(answer.text).not.toContain('theirs@example.net');
    }
    const both = await t.graphql(app.apiKey, recordMany, { input: [{ activityId: String(listen), memberId: String(memberIds[0]), member: { id: String(memberIds[0]) } }] });
    expect(both.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'member' });
    const two = await t.graphql(app.apiKey, recordMany, { input: [{ activityId: String(listen), member: { id: String(memberIds[0]), email: 'a@example.com' } }] });
    expect(two.status).toBe(400);
    expect(two.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await recordCount()).toBe(before);
  });
});
