import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/rest/openapi/document.js';
import { defineRoute, type RestRoute } from '../../src/rest/route.js';
import { restRoutes } from '../../src/rest/table.js';
import { AppInfoDocument } from '../../src/generated/graphql.js';
import { AppError } from '../../src/core/errors.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
let tenant: Tenant;
let document: any;

beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('advanced');
  const response = await t.request({ url: '/v1.1/openapi.json' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  document = response.json();
});
afterAll(() => t.close());

const operationOf = (method: string, path: string) => document.paths[`/v1.1${path.replace(/:(\w+)/g, '{$1}')}`]?.[method.toLowerCase()];
const parameterOf = (method: string, path: string, name: string) => operationOf(method, path).parameters.find((p: any) => p.name === name);

describe('GET /v1.1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, served without a key', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has every route of the table with each of its methods, a summary and a description', () => {
    let operations = 0;
    for (const route of restRoutes) {
      for (const method of route.methods) {
        const operation = operationOf(method, route.path);
        expect(operation, `${method} ${route.path}`).toBeDefined();
        expect(operation.summary.length).toBeGreaterThan(3);
        expect(operation.description).toContain(route.description);
        operations += 1;
      }
    }
    const listed = Object.values(document.paths).flatMap((item: any) => Object.keys(item));
    expect(listed).toHaveLength(operations);
    expect(operations).toBeGreaterThanOrEqual(60);
  });

  it('gives every route a description of its own', () => {
    const descriptions = restRoutes.map((route) => route.description);
    for (const route of restRoutes) expect(route.description?.trim().length, route.path).toBeGreaterThanOrEqual(10);
    // Crossover with and without a brand are the only pair that may read alike; none is a copy.
    expect(new Set(descriptions).size).toBe(descriptions.length);
  });

  it('refuses to build for a route without a description', () => {
    const appInfo = restRoutes.find((route) => route.path === '/app/info')!;
    const undescribed = { ...appInfo, description: '' } as RestRoute;
    expect(() => openApiDocument([undescribed])).toThrow(/\/app\/info has no description/);
    const { description: _omitted, ...withoutField } = appInfo;
    expect(() => openApiDocument([withoutField as RestRoute])).toThrow(/no description/);
  });

  it("lists each parameter with the type and rule of the reader the route's code uses", () => {
    expect(parameterOf('POST', '/member/register', 'service')).toMatchObject({ in: 'query', required: true, schema: { type: 'string' } });
    expect(parameterOf('POST', '/member/register', 'gender')).toMatchObject({ required: false, schema: { enum: ['M', 'F', 'Other'] } });
    expect(parameterOf('POST', '/member/register', 'birthdate').description).toContain('dd-mm-yyyy');
    expect(parameterOf('POST', '/member/register', 'segmentid').schema).toEqual({ type: 'integer', minimum: 1 });
    expect(parameterOf('POST', '/member/register', 'activity_sharing_enabled').schema).toEqual({ type: 'integer', minimum: 0, maximum: 1 });
    // Rules applied after the read (ids of the shared filters) come from the route's own error message.
    expect(parameterOf('GET', '/members/active', 'brandid').description).toContain('expected a numeric id');
    expect(parameterOf('GET', '/members/active', 'country')).toMatchObject({ style: 'form', explode: false, schema: { type: 'array' } });
    expect(parameterOf('GET', '/members/active', 'limit').schema.description).toContain('default 10, at most 1000');
    expect(parameterOf('GET', '/member/:id', 'limit').schema.description).toContain('default 3');
    expect(parameterOf('GET', '/member/:id', 'id')).toMatchObject({ in: 'path', required: true });
    expect(parameterOf('GET', '/member/:id', 'id').description).toContain('numeric id from 1 to 2147483647');
    // Required by the route's own code rather than by the reader, and a value it checks itself.
    expect(parameterOf('GET', '/account/usage', 'start_date').required).toBe(true);
    expect(parameterOf('GET', '/account/usage', 'interval')).toMatchObject({ required: true, example: 'day' });
    expect(parameterOf('GET', '/account/usage', 'interval').description).toContain('expected hour, day or month');
    expect(parameterOf('GET', '/account/usage', 'period').schema.pattern).toContain('[hH][oO][uU][rR]');
    // A condition the route words itself.
    expect(parameterOf('POST', '/member/:id/activity/delete', 'recordid')).toMatchObject({ required: false });
    expect(parameterOf('POST', '/member/:id/activity/delete', 'recordid').description).toContain("Send 'recordid', or 'activityid'");
    // A plan is named, POST bodies take the same parameters.
    expect(operationOf('POST', '/app/whitelist')['x-plan']).toBe('advanced');
    expect(operationOf('POST', '/app/whitelist').requestBody.content['application/json'].schema.properties.domain).toEqual({ type: 'string' });
    expect(operationOf('GET', '/app/info').requestBody).toBeUndefined();
  });

  it('finds parameters read only beside another one, and stops on a value it cannot make up', () => {
    // Only the parameters matter here: the document is never run.
    const probe = defineRoute<unknown, Record<string, unknown>>({
      methods: ['GET'],
      path: '/probe/:id',
      description: 'A route that exists for this test only.',
      document: AppInfoDocument as never,
      variables: (params) => {
        if (params.boolean('detailed')) params.string('detail');
        return { n: params.int('n', { min: 2, max: 5 }), s: params.requiredString('s') };
      },
      shape: () => ({}),
    });
    const built: any = openApiDocument([probe]);
    const parameters = built.paths['/v1.1/probe/{id}'].get.parameters;
    expect(parameters.map((p: any) => p.name).sort()).toEqual(['detail', 'detailed', 'id', 'n', 's']);
    expect(parameters.find((p: any) => p.name === 'n').schema).toEqual({ type: 'integer', minimum: 2, maximum: 5 });
    expect(parameters.find((p: any) => p.name === 's').required).toBe(true);

    const picky = defineRoute({
      ...probe,
      path: '/picky',
      variables: (params) => {
        if (params.requiredString('mode') !== 'fast') throw new AppError('INVALID_PARAMETER', 'no', 'mode');
        return {};
      },
    });
    expect(() => openApiDocument([picky])).toThrow(/example value for 'mode'/);
    expect(() => openApiDocument([{ ...picky, examples: { mode: 'fast' } }])).not.toThrow();
  });

  it('lists the error body with every code of the catalogue', () => {
    const error = document.components.schemas.Error.properties.error;
    expect(error.required).toEqual(['code', 'type', 'message', 'param']);
    expect(error.properties.type.enum).toEqual(expect.arrayContaining(['MISSING_API_KEY', 'INVALID_PARAMETER', 'PLAN_REQUIRED', 'DATABASE_UNAVAILABLE']));
    expect(error.properties.code.enum).toEqual(expect.arrayContaining([1, 2, 3, 4, 5, 6, 7, 9, 20]));
    expect(document.components.responses.Error403.description).toContain('9 PLAN_REQUIRED');
    expect(operationOf('GET', '/app/info').responses['401']).toEqual({ $ref: '#/components/responses/Error401' });
  });
});

describe('the schemas describe real answers', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  let compiled = false;

  function check(method: string, path: string, status: number, body: unknown) {
    if (!compiled) {
      ajv.addSchema({ $id: 'https://marquee.test/openapi.json', components: document.components });
      compiled = true;
    }
    const response = operationOf(method, path).responses[String(status)];
    const schemaRef = response.$ref ? document.components.responses[response.$ref.split('/').pop()].content['application/json'].schema.$ref : response.content['application/json'].schema.$ref;
    expect(schemaRef, `${method} ${path} has no response schema`).toBeDefined();
    const validate = ajv.getSchema(`https://marquee.test/openapi.json${schemaRef}`)!;
    expect(validate(body), `${method} ${path}: ${JSON.stringify(validate.errors, null, 1)}`).toBe(true);
  }

  /** A call to the route `path` names (its :id from the query), answering the status and the JSON. */
  async function call(method: 'GET' | 'POST', path: string, query: Record<string, string | number> = {}) {
    const { status, json } = await t.rest(tenant, method, path.replace(':id', String(query.id ?? '')), query);
    return { status, body: json };
  }

  it('member envelopes, listings, the feed, statistics, usage and errors', async () => {
    const brand = await call('POST', '/brand/create', { name: 'Schema Band', type: 'Music' });
    check('POST', '/brand/create', 200, brand.body);
    const activity = await call('POST', '/activity/create', { name: 'Listened', type: 'Listened', brandid: brand.body.ID, points: 3 });
    expect(activity.status, JSON.stringify(activity.body)).toBe(200);

    const registered = await call('POST', '/member/register', { service: 'email', email: 'schema@example.com', password: 'correct horse', firstname: 'Ada', country: 'FR' });
    check('POST', '/member/register', 200, registered.body);
    const memberId = registered.body[0].data.ID;
    const recorded = await call('POST', '/activity/record', { activityid: activity.body.ID, id: memberId, service: 'email' });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);

    const responses: [string, string, Record<string, string | number>][] = [
      ['GET', '/member/:id', { id: memberId, showactions: 1, showbrands: 1, extended: 1 }],
      ['POST', '/member/:id/update', { id: memberId, city: 'Lyon' }],
      ['POST', '/member/login', { service: 'email', email: 'schema@example.com', password: 'correct horse' }],
      ['GET', '/member/:id/domains', { id: memberId }],
      ['GET', '/members/all', {}],
      ['GET', '/members/active', { brandid: brand.body.ID }],
      ['GET', '/members/login', {}],
      ['GET', '/activity/feed', {}],
      ['GET', '/brand/:id', { id: brand.body.ID }],
      ['GET', '/brands/crossover', {}],
      ['GET', '/brand/:id/stats/activity', { id: brand.body.ID }],
      ['GET', '/brand/:id/stats/timeline', { id: brand.body.ID }],
      ['GET', '/brand/:id/stats/location', { id: brand.body.ID }],
      ['GET', '/brand/:id/stats/members', { id: brand.body.ID }],
      ['GET', '/login/stats/alltime', {}],
      ['GET', '/account/usage', { interval: 'day', start_date: '2026-01-01 00:00:00', period: '7 days' }],
      ['GET', '/account/audit', {}],
      ['GET', '/member/:id/export', { id: memberId }],
    ];
    for (const [method, path, query] of responses) {
      const { status, body } = await call(method as 'GET' | 'POST', path, query);
      expect(status, `${method} ${path}: ${JSON.stringify(body)}`).toBe(200);
      check(method, path, 200, body);
    }

    const missing = await call('POST', '/app/whitelist', {});
    expect(missing.status).toBe(400);
    check('POST', '/app/whitelist', 400, missing.body);
    const unknownKey = await t.rest({ apiKey: 'mq_nope' }, 'GET', '/app/info');
    check('GET', '/app/info', 401, unknownKey.json);
  });
});

describe('GET /v1.1/docs', () => {
  it('is a page that loads the reference from the gateway itself', async () => {
    const page = await t.request({ url: '/v1.1/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const scripts = [...page.body.matchAll(/src="([^"]+)"/g)].map((match) => match[1]);
    expect(scripts).toEqual(['/v1.1/docs/redoc.standalone.js']);
    expect(page.body).toContain('spec-url="/v1.1/openapi.json"');
    expect(page.body).not.toMatch(/https?:\/\//);
    const bundle = await t.request({ url: scripts[0] });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.body.length).toBeGreaterThan(500_000);
    // Redocly's logo came from its CDN, which the page's policy refuses: taken out of the bundle.
    expect(bundle.body).not.toContain('cdn.redoc.ly');
    expect(bundle.body).toContain('API docs by Redocly');
  });
});
