import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CrossoverDocument } from '../../src/generated/graphql.js';
import { getSchema } from '../../src/graphql/schema.js';
import { defineRoute, prepareRoutes } from '../../src/rest/route.js';
import { restRoutes } from '../../src/rest/table.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/** REST runs its documents in-process, within the limits of /graphql (src/graphql/limits.ts). */

const defaults = loadConfig({ NODE_ENV: 'test', SECRET_KEY: 'test-secret-key-of-at-least-32-characters' }).graphqlLimits;

describe('the depth, alias and definition limits, on the route table at start', () => {
  it('accept every route under the default limits', async () => {
    expect(() => prepareRoutes(schema, restRoutes, defaults)).not.toThrow();
  });

  it('stop the boot, naming the route, when a document is deeper than GRAPHQL_MAX_DEPTH', async () => {
    expect(() => prepareRoutes(schema, restRoutes, { ...defaults, maxDepth: 9 })).toThrow(/REST route \/member\/register: .*depth/i);
  });

  it('stop the boot when a document has more aliases than GRAPHQL_MAX_ALIASES', async () => {
    const aliased = defineRoute({
      methods: ['GET'],
      path: '/aliased',
      description: 'Two aliases.',
      document: parse('query Aliased { a: application { id } b: application { id } }'),
      variables: () => ({}),
      shape: (data) => data,
    });
    expect(() => prepareRoutes(schema, [aliased], { ...defaults, maxAliases: 1 })).toThrow(/REST route \/aliased: .*aliases/i);
  });
});

let schema: Awaited<ReturnType<typeof getSchema>>;

let t: TestGateway;
let app: Tenant;
beforeAll(async () => {
  schema = await getSchema();
  t = await startTestGateway();
  app = await t.tenant('advanced');
});
afterAll(() => t.close());

describe('the cost limit, on each call with its page size', () => {
  const crossover = { first: 1000, offset: 0, filter: {}, window: {} };

  it('refuses a page costing more than GRAPHQL_MAX_COST with the REST error body, as /graphql refuses the same document', async () => {
    const rest = await t.rest(app, 'GET', '/brands/crossover', { limit: 1000 });
    expect(rest.status).toBe(400);
    expect(rest.json).toEqual({
      error: { code: 4, type: 'INVALID_PARAMETER', message: 'The query costs 20001, above the limit of 20000: ask for fewer items or fields.', param: null },
    });
    const graphql = await t.graphql(app.apiKey, print(CrossoverDocument), crossover);
    expect(graphql.body.errors[0].message).toBe(rest.json.error.message);
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4 });
  });

  it('answers a smaller page of the same route, and refuses the large one again from the kept cost', async () => {
    expect((await t.rest(app, 'GET', '/brands/crossover', { limit: 500 })).status).toBe(200);
    expect((await t.graphql(app.apiKey, print(CrossoverDocument), { ...crossover, first: 500 })).body.errors).toBeUndefined();
    const again = await t.rest(app, 'GET', '/brands/crossover', { limit: '0,1000' });
    expect(again.status).toBe(400);
    expect(again.json.error).toMatchObject({ code: 4, param: null, message: expect.stringMatching(/^The query costs 20001, above the limit of 20000/) });
  });

  it('prices the page a listing asks for: a large page of full member records is refused', async () => {
    expect((await t.rest(app, 'GET', '/members/all', { limit: 250 })).status).toBe(200);
    const refused = await t.rest(app, 'GET', '/members/all', { limit: 1000 });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 4, type: 'INVALID_PARAMETER', param: null, message: expect.stringMatching(/^The query costs \d+, above the limit of 20000/) });
  });
});
