import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brands } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { listenForGraphql, type HttpGraphql } from '../support/graphql-http.js';

let t: TestGateway;
let gql: HttpGraphql;
let app: Tenant;
let basic: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  gql = await listenForGraphql(t);
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  stranger = await t.tenant('advanced');
});
afterAll(() => t.close());

/** Every row of the tenant's brands table, deleted ones too: what a refused mutation must leave as it was. */
async function brandRows(tenant: Tenant) {
  return t.database.db.select().from(brands).where(eq(brands.accountId, tenant.accountId)).orderBy(brands.id);
}

async function liveBrandCount(tenant: Tenant) {
  const [row] = await t.database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(brands)
    .where(and(eq(brands.accountId, tenant.accountId), isNull(brands.deletedAt)));
  return row.n;
}

const create = `mutation($input: BrandInput!) { brandCreate(input: $input) {
  brand { id slug name type officialWebsiteUrl hashTag networks { network url id handle } }
  warnings { param field message }
  userErrors { field code message } } }`;
const update = `mutation($id: ID!, $input: BrandInput!) { brandUpdate(id: $id, input: $input) {
  brand { id slug name hashTag networks { network url id } }
  warnings { param field message }
  userErrors { field code message } } }`;
const remove = `mutation($id: ID!) { brandDelete(id: $id) { deletedBrandId userErrors { field code message } } }`;

async function created(tenant: Tenant, name: string): Promise<string> {
  const answer = await gql(tenant.apiKey, create, { input: { name } });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data.brandCreate.brand.id;
}

describe('brandCreate', () => {
  it('answers the brand, the warnings of URLs it could not read, and no user errors', async () => {
    const answer = await gql(app.apiKey, create, {
      input: {
        name: '  Adele ',
        type: 'MUSIC',
        officialWebsiteUrl: 'adele.com',
        hashTag: '#Adele25',
        networks: [
          { network: 'deezer', url: 'https://www.deezer.com/artist/75798' },
          { network: 'spotify', url: 'https://example.com/adele' },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        brandCreate: {
          brand: {
            id: expect.stringMatching(/^\d+$/),
            slug: 'adele',
            name: 'Adele',
            type: 'Music',
            officialWebsiteUrl: 'https://adele.com',
            hashTag: 'Adele25',
            // In the brand record's order of networks, not the input's.
            networks: [
              { network: 'spotify', url: 'https://example.com/adele', id: null, handle: null },
              { network: 'deezer', url: 'https://www.deezer.com/artist/75798', id: '75798', handle: null },
            ],
          },
          warnings: [
            {
              param: 'spotifyurl',
              field: ['input', 'networks', '1', 'url'],
              message: 'No Spotify id or name could be read from this URL; it is kept as given.',
            },
          ],
          userErrors: [],
        },
      },
    });
  });

  it('answers every problem of a form in one request, each at its input path, and writes nothing', async () => {
    const before = await brandRows(app);
    const answer = await gql(app.apiKey, create, {
      input: {
        name: 'x'.repeat(201),
        officialWebsiteUrl: 'not a url',
        wikipediaUrl: 'ftp://en.wikipedia.org/wiki/Adele',
        hashTag: 'two words',
        networks: [
          { network: 'deezer', url: 'https://www.deezer.com/artist/75798' },
          { network: 'myspace', url: 'https://myspace.com/adele' },
          { network: 'spotify', url: `https://open.spotify.com/${'a'.repeat(2000)}` },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        brandCreate: {
          brand: null,
          warnings: [],
          userErrors: [
            { field: ['input', 'name'], code: 'INVALID', message: "The parameter 'name' is invalid: at most 200 characters." },
            { field: ['input', 'officialWebsiteUrl'], code: 'INVALID', message: "The parameter 'officialwebsiteurl' is invalid: expected an http or https URL." },
            { field: ['input', 'wikipediaUrl'], code: 'INVALID', message: "The parameter 'wikipediaurl' is invalid: expected an http or https URL." },
            { field: ['input', 'hashTag'], code: 'INVALID', message: "The parameter 'hashtag' is invalid: expected one hashtag of letters, digits and underscores." },
            {
              field: ['input', 'networks', '1', 'network'],
              code: 'INVALID',
              message: expect.stringMatching(/^The parameter 'network' is invalid: expected one of facebook, /),
            },
            { field: ['input', 'networks', '2', 'url'], code: 'INVALID', message: "The parameter 'spotifyurl' is invalid: at most 2000 characters." },
          ],
        },
      },
    });
    expect(await brandRows(app)).toEqual(before);
  });

  it('answers a missing name as REQUIRED', async () => {
    const answer = await gql(app.apiKey, create, { input: { name: '  ' } });
    expect(answer.body.data.brandCreate).toEqual({
      brand: null,
      warnings: [],
      userErrors: [{ field: ['input', 'name'], code: 'REQUIRED', message: "The parameter 'name' is required." }],
    });
  });

  it('keeps the plan and the custom-fields feature top-level errors, even beside field errors', async () => {
    const before = await brandRows(basic);
    const plan = await gql(basic.apiKey, create, { input: { name: 'No' } });
    expect(plan.status).toBe(200);
    expect(plan.body.data).toEqual({ brandCreate: null });
    expect(plan.body.errors).toHaveLength(1);
    expect(plan.body.errors![0]).toMatchObject({ path: ['brandCreate'], extensions: { code: 'PLAN_REQUIRED' } });
    expect(await brandRows(basic)).toEqual(before);

    const feature = await gql(app.apiKey, create, { input: { name: '', hashTag: 'two words', custom: { tier: 'gold' } } });
    expect(feature.body.data).toEqual({ brandCreate: null });
    expect(feature.body.errors![0]).toMatchObject({ path: ['brandCreate'], extensions: { code: 'FEATURE_NOT_ENABLED', param: 'custom' } });
  });

  it('keeps the first mutation of a document when the second answers user errors', async () => {
    const answer = await gql(
      app.apiKey,
      `mutation { first: brandCreate(input: { name: "Kept First" }) { brand { name } userErrors { field } }
        second: brandCreate(input: { name: "" }) { brand { name } userErrors { field code } } }`,
    );
    expect(answer.body).toEqual({
      data: {
        first: { brand: { name: 'Kept First' }, userErrors: [] },
        second: { brand: null, userErrors: [{ field: ['input', 'name'], code: 'REQUIRED' }] },
      },
    });
    const names = (await brandRows(app)).map((row) => row.name);
    expect(names).toContain('Kept First');
  });
});

describe('brandUpdate', () => {
  it('changes the fields given and answers the brand', async () => {
    const id = await created(app, 'Before Rename');
    const answer = await gql(app.apiKey, update, { id, input: { name: 'After Rename', hashTag: 'renamed', networks: [{ network: 'deezer', url: 'deezer.com/artist/27' }] } });
    expect(answer.body).toEqual({
      data: {
        brandUpdate: {
          brand: { id, slug: 'after-rename', name: 'After Rename', hashTag: 'renamed', networks: [{ network: 'deezer', url: 'deezer.com/artist/27', id: '27' }] },
          warnings: [],
          userErrors: [],
        },
      },
    });
  });

  it('answers every problem at once and changes nothing', async () => {
    const id = await created(app, 'Unchanged');
    const before = await brandRows(app);
    const answer = await gql(app.apiKey, update, { id, input: { name: null, type: null, imageUrl: 'javascript:alert(1)', networks: [{ network: 'twitter', url: 'y'.repeat(2001) }] } });
    expect(answer.body.data.brandUpdate).toEqual({
      brand: null,
      warnings: [],
      userErrors: [
        { field: ['input', 'name'], code: 'INVALID', message: "The parameter 'name' is invalid: a brand needs a name." },
        { field: ['input', 'type'], code: 'INVALID', message: "The parameter 'type' is invalid: a brand needs a type." },
        { field: ['input', 'imageUrl'], code: 'INVALID', message: "The parameter 'imageurl' is invalid: expected an http or https URL." },
        { field: ['input', 'networks', '0', 'url'], code: 'INVALID', message: "The parameter 'twitterurl' is invalid: at most 2000 characters." },
      ],
    });
    expect(await brandRows(app)).toEqual(before);
  });

  it("answers another tenant's brand as NOT_FOUND at id, leaving it as it was and telling nothing of it", async () => {
    const theirs = await created(stranger, 'Their Brand');
    const before = await brandRows(stranger);
    for (const id of [theirs, '999999999']) {
      const answer = await gql(app.apiKey, update, { id, input: { name: 'Taken Over' } });
      expect(answer.body).toEqual({ data: { brandUpdate: { brand: null, warnings: [], userErrors: [{ field: ['id'], code: 'NOT_FOUND', message: 'Brand not found.' }] } } });
    }
    const malformed = await gql(app.apiKey, update, { id: 'abc', input: { name: 'X' } });
    expect(malformed.body.data.brandUpdate.userErrors).toEqual([{ field: ['id'], code: 'INVALID', message: "The parameter 'id' is invalid: expected a numeric id from 1 to 2147483647." }]);
    expect(await brandRows(stranger)).toEqual(before);
  });
});

describe('brandDelete', () => {
  it('deletes a live brand of the account and answers its id', async () => {
    const id = await created(app, 'Short Lived');
    const live = await liveBrandCount(app);
    const answer = await gql(app.apiKey, remove, { id });
    expect(answer.body).toEqual({ data: { brandDelete: { deletedBrandId: id, userErrors: [] } } });
    expect(await liveBrandCount(app)).toBe(live - 1);
    const again = await gql(app.apiKey, remove, { id });
    expect(again.body).toEqual({ data: { brandDelete: { deletedBrandId: null, userErrors: [{ field: ['id'], code: 'NOT_FOUND', message: 'Brand not found.' }] } } });
  });

  it("answers another tenant's brand as NOT_FOUND and leaves it live; the plan stays top-level", async () => {
    const theirs = await created(stranger, 'Still Theirs');
    const answer = await gql(app.apiKey, remove, { id: theirs });
    expect(answer.body).toEqual({ data: { brandDelete: { deletedBrandId: null, userErrors: [{ field: ['id'], code: 'NOT_FOUND', message: 'Brand not found.' }] } } });
    expect((await brandRows(stranger)).find((row) => String(row.id) === theirs)?.deletedAt).toBeNull();
    const plan = await gql(basic.apiKey, remove, { id: theirs });
    expect(plan.body.data).toEqual({ brandDelete: null });
    expect(plan.body.errors![0].extensions.code).toBe('PLAN_REQUIRED');
  });
});

describe('the old brand mutations', () => {
  it('are deprecated, naming their successors, and still answer one error at the top level', async () => {
    const schema = await gql(app.apiKey, `{ __schema { mutationType { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } } }`);
    const fields = schema.body.data.__schema.mutationType.fields as { name: string; isDeprecated: boolean; deprecationReason: string | null }[];
    const reasons = Object.fromEntries(fields.filter((field) => /brand/i.test(field.name)).map((field) => [field.name, field.deprecationReason]));
    expect(reasons).toMatchObject({ createBrand: 'Use brandCreate.', editBrand: 'Use brandUpdate.', deleteBrand: 'Use brandDelete.', brandCreate: null, brandUpdate: null, brandDelete: null });
    const old = await gql(app.apiKey, `mutation { createBrand(input: { name: "", hashTag: "two words" }) { brand { id } } }`);
    expect(old.body.data).toBeNull();
    expect(old.body.errors).toHaveLength(1);
    expect(old.body.errors![0]).toMatchObject({ message: "The parameter 'name' is required.", extensions: { code: 'MISSING_PARAMETER', param: 'name' } });
  });
});
