import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivity, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { BrandChartDocument } from './generated/graphql.js';
import { startClientGateway, type ClientGateway } from './support.js';

/** Screen (d): a brand's chart, records per UTC day and network, for two windows in one cache. */
let g: ClientGateway;
let brandId = 0;
const day = 24 * 3600_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const utcDay = (offset: number) => new Date(today + offset * day).toISOString().slice(0, 10);
const at = (offset: number, hour: number) => new Date(today + offset * day + hour * 3600_000).toISOString();
const threeDays = { start: at(-3, 0), end: at(0, 0) };
const twoDays = { start: at(-2, 0), end: at(0, 0) };

beforeAll(async () => {
  g = await startClientGateway();
  brandId = await insertBrand(g.t, g.tenant, 'Chart Brand');
  const other = await insertBrand(g.t, g.tenant, 'Other Brand');
  const listen = await createActivity(g.t, g.tenant, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brandId, points: 2 });
  const watch = await createActivity(g.t, g.tenant, { name: 'Watch', type: 'Watched', service: 'youtube', brandid: brandId, points: 3 });
  const elsewhere = await createActivity(g.t, g.tenant, { name: 'Listen elsewhere', type: 'Listened', service: 'spotify', brandid: other, points: 2 });
  const [ada, ben] = await insertMembers(g.t, g.tenant, [{}, {}]);
  await record(g.t, g.tenant, [
    { activityId: listen, memberId: ada, completedAt: at(-3, 10) },
    { activityId: listen, memberId: ben, completedAt: at(-3, 11) },
    { activityId: listen, memberId: ada, completedAt: at(-2, 9) },
    { activityId: listen, memberId: ada, completedAt: at(-2, 23) },
    { activityId: watch, memberId: ben, completedAt: at(-1, 12) },
    // Not the brand's, and not in the window.
    { activityId: elsewhere, memberId: ben, completedAt: at(-2, 12) },
    { activityId: listen, memberId: ben, completedAt: at(-4, 12) },
  ]);
});

afterAll(() => g?.close());

describe('a brand chart', () => {
  it('draws every day of each window per network, and both windows keep their own days in the cache', async () => {
    const client = g.client();
    const variables = (window: typeof threeDays) => ({ brandId: String(brandId), window });
    const longer = await client.query({ query: BrandChartDocument, variables: variables(threeDays) });
    await client.query({ query: BrandChartDocument, variables: variables(twoDays) });
    const days = (counts: number[], members: number[], from: number) => counts.map((count, index) => ({ date: utcDay(from + index), count, distinctMembers: members[index] }));
    const threeDayChart = {
      brand: { id: String(brandId), name: 'Chart Brand' },
      timeline: [
        { service: 'spotify', totalCount: 4, totalMembers: 2, days: days([2, 2, 0], [2, 1, 0], -3) },
        { service: 'youtube', totalCount: 1, totalMembers: 1, days: days([0, 0, 1], [0, 0, 1], -3) },
      ],
    };
    expect(stripTypename(longer.data!.brandStats)).toEqual(threeDayChart);
    const cached = client.readQuery({ query: BrandChartDocument, variables: variables(threeDays) });
    expect(stripTypename(cached!.brandStats)).toEqual(threeDayChart);
    const shorter = client.readQuery({ query: BrandChartDocument, variables: variables(twoDays) });
    expect(stripTypename(shorter!.brandStats)).toEqual({
      brand: { id: String(brandId), name: 'Chart Brand' },
      timeline: [
        { service: 'spotify', totalCount: 2, totalMembers: 1, days: days([2, 0], [1, 0], -2) },
        { service: 'youtube', totalCount: 1, totalMembers: 1, days: days([0, 1], [0, 1], -2) },
      ],
    });
  });
});

/** The answer without Apollo's __typename fields, to compare with plain objects. */
function stripTypename(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === '__typename' ? undefined : inner)));
}
