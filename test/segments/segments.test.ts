import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { segments } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
let app: Tenant;
let basic: Tenant;
let stranger: Tenant;
let brandId: number;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  stranger = await t.tenant('advanced');
  brandId = (await t.rest(app, 'POST', '/brand/create', { name: 'Segmented' })).json.ID;
});
afterAll(() => t.close());

async function segmentCount(tenant: Tenant) {
  const [row] = await t.database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(segments)
    .where(eq(segments.accountId, tenant.accountId));
  return row.n;
}

function expectError(response: { status: number; json: any }, status: number, code: number, param: string | null) {
  expect(response.status, JSON.stringify(response.json)).toBe(status);
  expect(response.json.error).toMatchObject({ code, param });
}

const timestamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('segments', () => {
  it('creates list and filter segments and answers the segment record', async () => {
    const list = await t.rest(app, 'POST', '/segment/create', { name: 'VIP', label: 'Very important', brandid: brandId });
    expect(list.status, list.body).toBe(200);
    expect(list.json).toEqual({
      ID: expect.stringMatching(/^\d+$/),
      Name: 'VIP',
      Label: 'Very important',
      Type: 'list',
      BrandID: String(brandId),
      Filter: null,
      Created: expect.stringMatching(timestamp),
    });
    const filter = await t.rest(app, 'POST', '/segment/create', { name: 'UK fans', type: 'Filter', filter: '{"countries":["GB"]}' });
    expect(filter.json).toMatchObject({ Name: 'UK fans', Label: null, Type: 'filter', BrandID: null, Filter: { countries: ['GB'] } });

    const all = (await t.rest(app, 'GET', '/segments')).json;
    expect(all.totalSize).toBe(2);
    expect(all.items.map((item: { ID: string }) => item.ID)).toEqual([list.json.ID, filter.json.ID]);
    const ofBrand = (await t.rest(app, 'GET', `/brand/${brandId}/segments`)).json;
    expect(ofBrand).toEqual({ totalSize: 1, items: [list.json] });
  });

  it('edits the fields given and soft-deletes', async () => {
    const created = (await t.rest(app, 'POST', '/segment/create', { name: 'Editable', brandid: brandId })).json;
    const edited = await t.rest(app, 'POST', `/segment/${created.ID}/edit`, { name: 'Edited', label: 'New label' });
    expect(edited.json).toMatchObject({ ID: created.ID, Name: 'Edited', Label: 'New label', Type: 'list', BrandID: String(brandId) });
    expect((await t.rest(app, 'POST', `/segment/${created.ID}/delete`)).json).toEqual({ Result: true });
    expect((await t.rest(app, 'GET', '/segments')).json.items.map((item: { ID: string }) => item.ID)).not.toContain(created.ID);
    expectError(await t.rest(app, 'POST', `/segment/${created.ID}/edit`, { name: 'Again' }), 404, 5, 'id');
    const [row] = await t.database.db
      .select()
      .from(segments)
      .where(eq(segments.id, Number(created.ID)));
    expect(row.deletedAt).toBeInstanceOf(Date);
  });

  it('refuses bad input and writes nothing', async () => {
    const before = await segmentCount(app);
    expectError(await t.rest(app, 'POST', '/segment/create', { label: 'No name' }), 400, 3, 'name');
    expectError(await t.rest(app, 'POST', '/segment/create', { name: 'X', type: 'smart' }), 400, 4, 'type');
    expectError(await t.rest(app, 'POST', '/segment/create', { name: 'X', type: 'filter' }), 400, 3, 'filter');
    expectError(await t.rest(app, 'POST', '/segment/create', { name: 'X', type: 'filter', filter: '[]' }), 400, 4, 'filter');
    expectError(await t.rest(app, 'POST', '/segment/create', { name: 'X', type: 'filter', filter: '{oops' }), 400, 4, 'filter');
    expectError(await t.rest(app, 'POST', '/segment/create', { name: 'X', filter: '{"countries":["GB"]}' }), 400, 4, 'filter');
    expectError(await t.rest(app, 'POST', '/segment/create', { name: 'X', brandid: 'abc' }), 400, 4, 'brandid');
    expectError(await t.rest(app, 'POST', '/segment/create', { name: 'X', brandid: 999999 }), 404, 5, 'brandid');
    const list = (await t.rest(app, 'POST', '/segment/create', { name: 'Fixed kind' })).json;
    expectError(await t.rest(app, 'POST', `/segment/${list.ID}/edit`, { type: 'filter', name: 'Changed' }), 400, 4, 'type');
    expect((await t.rest(app, 'GET', '/segments')).json.items.find((item: { ID: string }) => item.ID === list.ID).Name).toBe('Fixed kind');
    expect(await segmentCount(app)).toBe(before + 1);
  });

  it('needs an advanced plan to change segments, not to list them', async () => {
    expectError(await t.rest(basic, 'POST', '/segment/create', { name: 'Nope' }), 403, 9, null);
    expectError(await t.rest(basic, 'POST', '/segment/1/edit', { name: 'Nope' }), 403, 9, null);
    expectError(await t.rest(basic, 'POST', '/segment/1/delete'), 403, 9, null);
    expect((await t.rest(basic, 'GET', '/segments')).json).toEqual({ totalSize: 0, items: [] });
    expect(await segmentCount(basic)).toBe(0);
  });

  it("keeps another account's segments and brands out of reach", async () => {
    const mine = (await t.rest(app, 'POST', '/segment/create', { name: 'Private' })).json;
    expectError(await t.rest(stranger, 'POST', `/segment/${mine.ID}/edit`, { name: 'Theirs' }), 404, 5, 'id');
    expectError(await t.rest(stranger, 'POST', `/segment/${mine.ID}/delete`), 404, 5, 'id');
    expectError(await t.rest(stranger, 'GET', `/brand/${brandId}/segments`), 404, 5, 'id');
    expectError(await t.rest(stranger, 'POST', '/segment/create', { name: 'X', brandid: brandId }), 404, 5, 'brandid');
    expect((await t.rest(stranger, 'GET', '/segments')).json).toEqual({ totalSize: 0, items: [] });
  });

  it('is the same through GraphQL, with Brand.segments and Segment.brand', async () => {
    const created = await t.graphql(app.apiKey, `mutation($input: SegmentInput!) { createSegment(input: $input) { id kind brand { id name } } }`, {
      input: { name: 'Graph segment', brandId: String(brandId) },
    });
    expect(created.body.data.createSegment).toMatchObject({ kind: 'LIST', brand: { id: String(brandId), name: 'Segmented' } });
    const read = await t.graphql(app.apiKey, `query($id: ID!) { brand(id: $id) { segments { name } } }`, { id: String(brandId) });
    expect(read.body.data.brand.segments.map((s: { name: string }) => s.name)).toContain('Graph segment');
  });
});
