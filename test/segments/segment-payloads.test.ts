import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { segmentMembers, segments } from '../../src/db/schema/index.js';
import { insertBrand, insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { listenForGraphql, type HttpGraphql } from '../support/graphql-http.js';

let t: TestGateway;
let gql: HttpGraphql;
let app: Tenant;
let basic: Tenant;
let stranger: Tenant;
let brandId: number;
let strangerBrandId: number;

beforeAll(async () => {
  t = await startTestGateway();
  gql = await listenForGraphql(t);
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  stranger = await t.tenant('advanced');
  brandId = await insertBrand(t, app, 'Segmented');
  strangerBrandId = await insertBrand(t, stranger, 'Elsewhere');
  await insertMembers(t, app, [{ country: 'GB' }, { country: 'FR' }]);
});
afterAll(() => t.close());

/** The tenant's segments and computed memberships: what a refused mutation must leave as it was. */
async function stored(tenant: Tenant) {
  const rows = await t.database.db.select().from(segments).where(eq(segments.accountId, tenant.accountId)).orderBy(segments.id);
  const members = await t.database.db.select().from(segmentMembers).where(eq(segmentMembers.accountId, tenant.accountId));
  return { rows, members: members.length };
}

const fields = 'segment { id name label kind brandId filter } userErrors { field code message }';
const create = `mutation($input: SegmentInput!) { segmentCreate(input: $input) { ${fields} } }`;
const update = `mutation($id: ID!, $input: SegmentInput!) { segmentUpdate(id: $id, input: $input) { ${fields} } }`;
const remove = `mutation($id: ID!) { segmentDelete(id: $id) { deletedSegmentId userErrors { field code message } } }`;

async function created(tenant: Tenant, input: Record<string, unknown>): Promise<string> {
  const answer = await gql(tenant.apiKey, create, { input });
  expect(answer.body.data?.segmentCreate.userErrors).toEqual([]);
  return answer.body.data.segmentCreate.segment.id;
}

describe('segmentCreate', () => {
  it('creates list and filter segments and answers them', async () => {
    const list = await gql(app.apiKey, create, { input: { name: ' VIP ', label: 'Very important', brandId: String(brandId) } });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: { segmentCreate: { segment: { id: expect.stringMatching(/^\d+$/), name: 'VIP', label: 'Very important', kind: 'LIST', brandId: String(brandId), filter: null }, userErrors: [] } },
    });
    const filter = await gql(app.apiKey, create, { input: { name: 'UK fans', kind: 'FILTER', filter: { countries: ['GB'] } } });
    expect(filter.body.data.segmentCreate).toEqual({
      segment: { id: expect.stringMatching(/^\d+$/), name: 'UK fans', label: null, kind: 'FILTER', brandId: null, filter: { countries: ['GB'] } },
      userErrors: [],
    });
    const members = await t.database.db
      .select()
      .from(segmentMembers)
      .where(eq(segmentMembers.segmentId, Number(filter.body.data.segmentCreate.segment.id)));
    expect(members).toHaveLength(1);
  });

  it('answers every problem of the form at once, a filter field under the filter, and writes nothing', async () => {
    const before = await stored(app);
    const answer = await gql(app.apiKey, create, {
      input: { name: '', label: 'l'.repeat(201), brandId: String(strangerBrandId), kind: 'FILTER', filter: { countries: ['GBR'] } },
    });
    expect(answer.body).toEqual({
      data: {
        segmentCreate: {
          segment: null,
          userErrors: [
            { field: ['input', 'name'], code: 'REQUIRED', message: "The parameter 'name' is required." },
            { field: ['input', 'filter', 'countries'], code: 'INVALID', message: "The parameter 'countries' is invalid: expected ISO 3166-1 alpha-2 codes such as GB,US." },
            { field: ['input', 'label'], code: 'INVALID', message: "The parameter 'label' is invalid: at most 200 characters." },
            { field: ['input', 'brandId'], code: 'NOT_FOUND', message: 'Brand not found.' },
          ],
        },
      },
    });
    const unknown = await gql(app.apiKey, create, { input: { name: 'Typo', kind: 'FILTER', filter: { brandID: String(brandId) } } });
    expect(unknown.body.data.segmentCreate.userErrors).toEqual([{ field: ['input', 'filter'], code: 'INVALID', message: "The parameter 'filter' is invalid: unknown filter field 'brandID'." }]);
    const theirs = await gql(app.apiKey, create, { input: { name: 'Theirs', kind: 'FILTER', filter: { brandId: String(strangerBrandId), membersFromSegment: '999999' } } });
    expect(theirs.body.data.segmentCreate.userErrors).toEqual([
      { field: ['input', 'filter', 'brandId'], code: 'NOT_FOUND', message: 'Brand not found.' },
      { field: ['input', 'filter', 'membersFromSegment'], code: 'NOT_FOUND', message: 'Segment not found.' },
    ]);
    const fields = await gql(app.apiKey, create, { input: { name: 'Fields', kind: 'FILTER', filter: { brandId: 'abc', countries: ['GB', 'FR'], region: 'x', requiredFields: ['Shoe'] } } });
    expect(fields.body.data.segmentCreate.userErrors).toEqual([
      { field: ['input', 'filter', 'brandId'], code: 'INVALID', message: "The parameter 'brandId' is invalid: expected a numeric id from 1 to 2147483647." },
      { field: ['input', 'filter', 'region'], code: 'INVALID', message: "The parameter 'region' is invalid: region applies only with exactly one country." },
      {
        field: ['input', 'filter', 'requiredFields'],
        code: 'INVALID',
        message: "The parameter 'requiredFields' is invalid: unknown field 'Shoe': expected profile fields such as Email, FirstName, City, or extended.<name>.",
      },
    ]);
    const kindless = await gql(app.apiKey, create, { input: { name: 'List', filter: { countries: ['GB'] } } });
    expect(kindless.body.data.segmentCreate.userErrors).toEqual([{ field: ['input', 'filter'], code: 'INVALID', message: "The parameter 'filter' is invalid: only filter segments have a filter." }]);
    expect(await stored(app)).toEqual(before);
  });

  it('keeps the plan a top-level error, and the first mutation of a document when the second answers user errors', async () => {
    const before = await stored(basic);
    const plan = await gql(basic.apiKey, create, { input: { name: 'No' } });
    expect(plan.status).toBe(200);
    expect(plan.body.data).toEqual({ segmentCreate: null });
    expect(plan.body.errors![0]).toMatchObject({ path: ['segmentCreate'], extensions: { code: 'PLAN_REQUIRED' } });
    expect(await stored(basic)).toEqual(before);

    const two = await gql(
      app.apiKey,
      `mutation { first: segmentCreate(input: { name: "First of two" }) { segment { name } userErrors { field } }
        second: segmentCreate(input: { name: "Second", kind: FILTER }) { segment { name } userErrors { field code } } }`,
    );
    expect(two.body).toEqual({
      data: {
        first: { segment: { name: 'First of two' }, userErrors: [] },
        second: { segment: null, userErrors: [{ field: ['input', 'filter'], code: 'REQUIRED' }] },
      },
    });
  });
});

describe('segmentUpdate', () => {
  it('changes the fields given', async () => {
    const id = await created(app, { name: 'Editable' });
    const answer = await gql(app.apiKey, update, { id, input: { name: 'Edited', label: 'New label', brandId: String(brandId) } });
    expect(answer.body.data.segmentUpdate).toEqual({ segment: { id, name: 'Edited', label: 'New label', kind: 'LIST', brandId: String(brandId), filter: null }, userErrors: [] });
  });

  it('answers every problem at once and changes nothing', async () => {
    const id = await created(app, { name: 'Fixed list' });
    const before = await stored(app);
    const answer = await gql(app.apiKey, update, { id, input: { name: ' ', label: 'l'.repeat(201), kind: 'FILTER', brandId: '999999', filter: { countries: ['GB'] } } });
    expect(answer.body.data.segmentUpdate).toEqual({
      segment: null,
      userErrors: [
        { field: ['input', 'name'], code: 'INVALID', message: "The parameter 'name' is invalid: a segment needs a name." },
        { field: ['input', 'label'], code: 'INVALID', message: "The parameter 'label' is invalid: at most 200 characters." },
        { field: ['input', 'kind'], code: 'INVALID', message: "The parameter 'type' is invalid: the kind of a segment is fixed at creation." },
        { field: ['input', 'brandId'], code: 'NOT_FOUND', message: 'Brand not found.' },
        { field: ['input', 'filter'], code: 'INVALID', message: "The parameter 'filter' is invalid: only filter segments have a filter." },
      ],
    });
    expect(await stored(app)).toEqual(before);
  });

  it("answers another tenant's segment as NOT_FOUND at id and leaves it as it was", async () => {
    const theirs = await created(stranger, { name: 'Their segment' });
    const before = await stored(stranger);
    const answer = await gql(app.apiKey, update, { id: theirs, input: { name: 'Mine now' } });
    expect(answer.body).toEqual({ data: { segmentUpdate: { segment: null, userErrors: [{ field: ['id'], code: 'NOT_FOUND', message: 'Segment not found.' }] } } });
    expect(await stored(stranger)).toEqual(before);
  });
});

describe('segmentDelete', () => {
  it('deletes a live segment, then answers it NOT_FOUND; another tenant’s stays', async () => {
    const id = await created(app, { name: 'Short lived' });
    expect((await gql(app.apiKey, remove, { id })).body).toEqual({ data: { segmentDelete: { deletedSegmentId: id, userErrors: [] } } });
    const notFound = { data: { segmentDelete: { deletedSegmentId: null, userErrors: [{ field: ['id'], code: 'NOT_FOUND', message: 'Segment not found.' }] } } };
    expect((await gql(app.apiKey, remove, { id })).body).toEqual(notFound);
    const theirs = await created(stranger, { name: 'Still theirs' });
    expect((await gql(app.apiKey, remove, { id: theirs })).body).toEqual(notFound);
    const [row] = await t.database.db
      .select()
      .from(segments)
      .where(eq(segments.id, Number(theirs)));
    expect(row.deletedAt).toBeNull();
    const plan = await gql(basic.apiKey, remove, { id: theirs });
    expect(plan.body.errors![0].extensions.code).toBe('PLAN_REQUIRED');
  });

  it('deprecates the old mutations, naming their successors', async () => {
    const schema = await gql(app.apiKey, `{ __schema { mutationType { fields(includeDeprecated: true) { name deprecationReason } } } }`);
    const reasons = Object.fromEntries((schema.body.data.__schema.mutationType.fields as { name: string; deprecationReason: string | null }[]).map((field) => [field.name, field.deprecationReason]));
    expect(reasons).toMatchObject({ createSegment: 'Use segmentCreate.', editSegment: 'Use segmentUpdate.', deleteSegment: 'Use segmentDelete.', segmentCreate: null });
  });
});
