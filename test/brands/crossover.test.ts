import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityDefinitions, activityRecords, memberActivityDaily } from '../../src/db/schema/index.js';
import { insertBrand, insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok } from '../support/rest.js';

let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
const brand = { a: 0, b: 0, c: 0, d: 0, gone: 0 };
let m: number[];

const dayMs = 24 * 3600_000;
/** Noon (UTC) n days ago: always inside a whole day of the window, so the daily rollup answers. */
const noonDaysAgo = (n: number) => {
  const date = new Date(Date.now() - n * dayMs);
  date.setUTCHours(12, 0, 0, 0);
  return date;
};

/**
 * The data set, all on whole days 2 to 4 days ago unless said (service spotify unless said):
 *   A: m1 m2 m3, and m6 20 days ago      B (Music): m1, m2 (through youtube), m4
 *   C: m1 m5, and m2 one-time only        D (Sport): m3            Gone (deleted): m1
 * Countries: m1 GB, m2 GB, m3 US, m4 GB, m5 US, m6 GB.
 */
beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  brand.a = await insertBrand(t, app, 'Alpha');
  brand.b = await insertBrand(t, app, 'Bravo');
  brand.c = await insertBrand(t, app, 'Charlie');
  brand.d = await insertBrand(t, app, 'Delta', 'Sport');
  brand.gone = await insertBrand(t, app, 'Gone');
  m = [0, ...(await insertMembers(t, app, [{ country: 'GB' }, { country: 'GB' }, { country: 'US' }, { country: 'GB' }, { country: 'US' }, { country: 'GB' }]))];
  const [listen, follow] = await t.database.db
    .insert(activityDefinitions)
    .values([
      { accountId: app.accountId, name: 'Listen', type: 'Listened', service: 'spotify', points: 1 },
      { accountId: app.accountId, name: 'Follow', type: 'Followed', points: 5, oneTime: true },
    ])
    .returning();
  const rows: { member: number; brandId: number; daysAgo: number; service?: string; oneTime?: boolean }[] = [
    { member: m[1], brandId: brand.a, daysAgo: 2 },
    { member: m[1], brandId: brand.a, daysAgo: 3 },
    { member: m[2], brandId: brand.a, daysAgo: 3 },
    { member: m[3], brandId: brand.a, daysAgo: 4 },
    { member: m[6], brandId: brand.a, daysAgo: 20 },
    { member: m[1], brandId: brand.b, daysAgo: 2 },
    { member: m[2], brandId: brand.b, daysAgo: 2, service: 'youtube' },
    { member: m[4], brandId: brand.b, daysAgo: 3 },
    { member: m[1], brandId: brand.c, daysAgo: 4 },
    { member: m[5], brandId: brand.c, daysAgo: 2 },
    { member: m[2], brandId: brand.c, daysAgo: 2, oneTime: true },
    { member: m[3], brandId: brand.d, daysAgo: 3 },
    { member: m[1], brandId: brand.gone, daysAgo: 3 },
  ];
  for (const row of rows) {
    const definition = row.oneTime ? follow : listen;
    const completedAt = noonDaysAgo(row.daysAgo);
    const service = row.service ?? 'spotify';
    await t.database.db.insert(activityRecords).values({
      accountId: app.accountId,
      memberId: row.member,
      activityId: definition.id,
      brandId: row.brandId,
      service,
      points: definition.points,
      oneTime: definition.oneTime,
      completedAt,
    });
    await t.database.db.insert(memberActivityDaily).values({
      accountId: app.accountId,
      memberId: row.member,
      day: completedAt.toISOString().slice(0, 10),
      activityId: definition.id,
      brandId: row.brandId,
      service,
      oneTime: definition.oneTime,
      count: 1,
      points: definition.points,
    });
  }
  await t.rest(app, 'POST', `/brand/${brand.gone}/delete`);
});
afterAll(() => t.close());

async function items(path: string, query: Record<string, string> = {}) {
  const body = await ok(t.rest(app, 'GET', path, query));
  return { totalSize: body.totalSize, items: body.items.map((item: { ID: number; ActiveMembers: string; Percentage: string }) => [item.ID, item.ActiveMembers, item.Percentage]) };
}

describe('GET /v1.1/brands/[id]/crossover', () => {
  it("lists the brands most shared with the brand's active members, with the share of them", async () => {
    // Base: A's members active this week, m1 m2 m3. B: m1 m2 (2 of 3), C: m1 (m2 only followed), D: m3.
    expect(await items(`/brands/${brand.a}/crossover`)).toEqual({
      totalSize: 3,
      items: [
        [brand.b, '2', '66.67'],
        [brand.c, '1', '33.33'],
        [brand.d, '1', '33.33'],
      ],
    });
  });

  it('answers crossover items: the brand record plus ActiveMembers and Percentage', async () => {
    const response = await t.rest(app, 'GET', `/brands/${brand.a}/crossover`, { limit: '1' });
    const body = response.json;
    expect(Object.keys(body)).toEqual(['totalSize', 'items']);
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ ID: brand.b, Slug: 'bravo', Name: 'Bravo', Type: 'Music', SpotifyID: null, HashTag: null, ActiveMembers: '2', Percentage: '66.67' });
    expect(Object.keys(body.items[0]).slice(-2)).toEqual(['ActiveMembers', 'Percentage']);
  });

  it('filters by brand type, country and service, and pages with offset', async () => {
    expect(await items(`/brands/${brand.a}/crossover`, { brand_type: 'sport' })).toEqual({ totalSize: 1, items: [[brand.d, '1', '33.33']] });
    // GB members of A: m1 m2. B: both; C: m1.
    expect(await items(`/brands/${brand.a}/crossover`, { country: 'GB' })).toEqual({
      totalSize: 2,
      items: [
        [brand.b, '2', '100.00'],
        [brand.c, '1', '50.00'],
      ],
    });
    // Only Spotify activity counts: m2's B activity came through YouTube.
    expect(await items(`/brands/${brand.a}/crossover`, { services: 'spotify' })).toEqual({
      totalSize: 3,
      items: [
        [brand.b, '1', '33.33'],
        [brand.c, '1', '33.33'],
        [brand.d, '1', '33.33'],
      ],
    });
    expect(await items(`/brands/${brand.a}/crossover`, { limit: '1,1' })).toEqual({ totalSize: 3, items: [[brand.c, '1', '33.33']] });
  });

  it('reads the window: m6 was active on A 20 days ago', async () => {
    // Base m1 m2 m3 m6: B 2 of 4.
    expect(await items(`/brands/${brand.a}/crossover`, { period: '1 Month' })).toEqual({
      totalSize: 3,
      items: [
        [brand.b, '2', '50.00'],
        [brand.c, '1', '25.00'],
        [brand.d, '1', '25.00'],
      ],
    });
    expect(await items(`/brands/${brand.a}/crossover`, { period: '1 Day' })).toEqual({ totalSize: 0, items: [] });
    const start = noonDaysAgo(21).toISOString().slice(0, 10);
    const end = noonDaysAgo(19).toISOString().slice(0, 10);
    expect(await items(`/brands/${brand.a}/crossover`, { start_date: `${start} 00:00:00`, end_date: `${end} 00:00:00` })).toEqual({ totalSize: 0, items: [] });
  });

  it('refuses bad parameters and other accounts’ brands', async () => {
    const bad = [
      [`/brands/${brand.a}/crossover`, { period: 'soon' }, 400, 4, 'period'],
      [`/brands/${brand.a}/crossover`, { country: 'Britain' }, 400, 4, 'country'],
      [`/brands/${brand.a}/crossover`, { limit: '0' }, 400, 4, 'limit'],
      [`/brands/${brand.gone}/crossover`, {}, 404, 5, 'brandID'],
      ['/brands/x/crossover', {}, 400, 4, 'id'],
    ] as const;
    for (const [path, query, status, code, param] of bad) {
      const response = await t.rest(app, 'GET', path, query);
      expect(response.status, path).toBe(status);
      expect(response.json.error).toMatchObject({ code, param });
    }
    // GraphQL names its own argument.
    const gone = await t.graphql(app.apiKey, 'query($id: ID) { crossover(brandId: $id) { baseMembers } }', { id: String(brand.gone) });
    expect(gone.body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', param: 'brandId' });
    const foreign = await t.rest(stranger, 'GET', `/brands/${brand.a}/crossover`);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe(5);
    expect((await t.rest(stranger, 'GET', '/brands/crossover')).json).toEqual({ totalSize: 0, items: [] });
  });
});

describe('GET /v1.1/brands/crossover', () => {
  it('lists the most popular brands by active members, as a share of all active members', async () => {
    // Active this week on any brand: m1..m5. A: m1 m2 m3, B: m1 m2 m4, C: m1 m5, D: m3; Gone is deleted.
    expect(await items('/brands/crossover')).toEqual({
      totalSize: 4,
      items: [
        [brand.a, '3', '60.00'],
        [brand.b, '3', '60.00'],
        [brand.c, '2', '40.00'],
        [brand.d, '1', '20.00'],
      ],
    });
    expect(await items('/brands/crossover', { brand_type: 'Music', limit: '2' })).toEqual({
      totalSize: 3,
      items: [
        [brand.a, '3', '60.00'],
        [brand.b, '3', '60.00'],
      ],
    });
  });

  it('is the same query through GraphQL', async () => {
    const result = await t.graphql(
      app.apiKey,
      `query($id: ID) { crossover(brandId: $id, filter: { countries: ["US"] }) {
      totalCount baseMembers nodes { brand { id name } activeMembers percentage } } }`,
      { id: String(brand.a) },
    );
    expect(result.body.data.crossover).toEqual({
      totalCount: 1,
      baseMembers: 1,
      nodes: [{ brand: { id: String(brand.d), name: 'Delta' }, activeMembers: 1, percentage: 100 }],
    });
  });
});
