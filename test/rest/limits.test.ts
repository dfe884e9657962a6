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

describe('the page sizes of the interface, whatever /graphql would price them at', () => {
  const crossover = { first: 1000, offset: 0, filter: {}, window: {} };

  it('answers the interface maximum on REST where /graphql refuses the same document at that size', async () => {
    const graphql = await t.graphql(app.apiKey, print(CrossoverDocument), crossover);
    expect(graphql.body.errors[0].message).toMatch(/^The query costs 20001, above the limit of 20000/);
    expect((await t.rest(app, 'GET', '/brands/crossover', { limit: 1000 })).status).toBe(200);
    expect((await t.rest(app, 'GET', '/members/all', { limit: 1000 })).status).toBe(200);
    expect((await t.rest(app, 'GET', '/activity/feed', { limit: 1000 })).status).toBe(200);
  });
});
