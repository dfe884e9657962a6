import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberServices } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { makers } from './world.js';

/**
 * Hostile inputs the fuzzer found answering an internal error or leaking internals, each kept as a
 * regression test: the router's own refusals, names that are Object.prototype members, explicit
 * nulls, and values the database itself refuses.
 */
let t: TestGateway;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('enterprise');
});
afterAll(() => t.close());

/** Refusals made by Fastify's router before any route runs still answer the documented error body. */
const errorBody = { error: { code: 4, type: 'INVALID_PARAMETER', message: expect.any(String), param: null } };

describe("the router's refusals", () => {
  it('a path parameter over 100 characters answers 400 with the error body', async () => {
    const response = await t.request({ url: `/v1.1/member/${'9'.repeat(150)}`, headers: { 'x-api-key': tenant.apiKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(errorBody);
  });

  it('a malformed percent-encoding in the path answers 400 with the error body', async () => {
    const response = await t.request({ url: '/v1.1/member/%E0%A4%A', headers: { 'x-api-key': tenant.apiKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(errorBody);
  });
});

/** Names a caller chooses are looked up among the known ones only, never on Object.prototype. */
describe('names that are Object.prototype members', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('GET /v1.1/members/active?order_by=%s answers 400 naming order_by', async (name) => {
    const response = await t.request({ url: `/v1.1/members/active?order_by=${name}`, headers: { 'x-api-key': tenant.apiKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 4, type: 'INVALID_PARAMETER', message: expect.any(String), param: 'order_by' } });
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('GET /v1.1/account/usage?app_scope=%s answers 400 naming app_scope', async (name) => {
    const response = await t.request({ url: `/v1.1/account/usage?interval=day&start_date=2024-01-01%2000:00:00&app_scope=${name}`, headers: { 'x-api-key': tenant.apiKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 4, type: 'INVALID_PARAMETER', message: expect.any(String), param: 'app_scope' } });
  });
});

/** GraphQL lets a caller send null for any optional input field: null is refused or ignored, never an internal error. */
describe('explicit nulls', () => {
  it('editActivity(input: { type: null }) answers code 4 naming the type, and changes nothing', async () => {
    const id = await makers(t, tenant, 'nulls').activity();
    const { status, body } = await t.graphql(tenant.apiKey, 'mutation ($id: ID!) { editActivity(id: $id, input: { type: null, name: "Renamed" }) { id name type } }', { id });
    // Refused by the resolver once executed: 200 with the error in `errors` (docs/errors.md).
    expect(status).toBe(200);
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param: 'type' });
    const { body: after } = await t.graphql(tenant.apiKey, '{ activities { id name type } }');
    expect(after.data.activities.find((activity: { id: string }) => activity.id === id).type).toBe('CUSTOM');
  });
});

/**
 * A value the parameter rules let through to the database (a NUL in a GraphQL string) is refused
 * by the database's own check: the caller gets code 4 with the classified message, never the
 * failed statement with its parameters.
 */
describe('database refusals over GraphQL', () => {
  it.each([
    ['brands(type:)', 'query ($v: String) { brands(type: $v) { totalCount } }'],
    ['member(lookup: { email })', 'query ($v: String) { member(lookup: { email: $v }) { id } }'],
    ['optIn(input: { email })', 'mutation ($v: String) { optIn(input: { email: $v }) { id } }'],
  ])('%s with a NUL answers code 4 without the statement', async (_name, query) => {
    const { body } = await t.graphql(tenant.apiKey, query, { v: 'a\u0000b' });
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4 });
    expect(body.errors[0].message).toBe('A parameter is invalid: a text contains bytes that are not valid UTF-8.');
    expect(JSON.stringify(body)).not.toMatch(/select|Failed query|params:/i);
  });
});

/**
 * Partner references are indexed: a value past PostgreSQL's btree row limit (about 2.7 KB) was an
 * internal error at insert. They are bounded at input (255 characters), refused naming the
 * parameter, and nothing is written. Random text, as repeated characters compress under the limit.
 */
describe('partner references past the index row limit', () => {
  const long = randomBytes(1950).toString('hex'); // 3,900 characters

  it.each([
    ['partner', { partner: long, sourceuid: 'p-1' }],
    ['sourceuid', { partner: 'acme', sourceuid: long }],
  ])('POST /v1.1/member/register with a 3,900-character %s answers code 4 naming it, and writes nothing', async (param, extra) => {
    const app = await t.tenant('enterprise');
    const answer = await t.rest(app, 'POST', '/member/register', { service: 'email', email: `long-${param}@example.com`, password: 'correct horse', ...extra });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: { code: 4, type: 'INVALID_PARAMETER', message: expect.stringContaining('255'), param } });
    expect(await t.database.db.select().from(memberServices).where(eq(memberServices.accountId, app.accountId))).toEqual([]);
  });

  it.each(['partnerCode', 'partnerId'])('registerMember with a 3,900-character %s answers code 4 naming it, and writes nothing', async (field) => {
    const app = await t.tenant('enterprise');
    const credentials = { network: 'email', email: `long-${field}@example.com`, password: 'correct horse', partnerCode: 'acme', partnerId: 'p-1', [field]: long };
    const { body } = await t.graphql(app.apiKey, 'mutation ($c: ServiceCredentialsInput!) { registerMember(input: { credentials: $c }) { member { id } } }', { c: credentials });
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param: field });
    expect(await t.database.db.select().from(memberServices).where(eq(memberServices.accountId, app.accountId))).toEqual([]);
  });

  it('a partner reference of 255 characters registers', async () => {
    const app = await t.tenant('enterprise');
    const answer = await t.rest(app, 'POST', '/member/register', { service: 'email', email: 'long-ok@example.com', password: 'correct horse', partner: 'p'.repeat(255), sourceuid: long.slice(0, 255) });
    expect(answer.status).toBe(200);
  });
});

/**
 * A member's `extended` fields are stored as jsonb, whose functions recurse on nesting: a value
 * nested thousands deep was "stack depth limit exceeded", an internal error. It is capped at the
 * depth an activity record's `content` is (32 levels), refused with code 4, and nothing is written.
 */
describe('extended fields nested past the cap', () => {
  const nested = (depth: number) => {
    let value: Record<string, unknown> = { leaf: 1 };
    for (let level = 1; level < depth; level += 1) value = { a: value };
    return value;
  };
  const update = 'mutation ($id: ID!, $e: JSONObject) { updateMember(id: $id, input: { extended: $e }) { member { id } } }';

  it('updateMember with extended nested 9,000 deep answers code 4 naming extended, and keeps the fields it had', async () => {
    const app = await t.tenant('enterprise');
    const id = String((await t.rest(app, 'POST', '/member/register', { service: 'email', email: 'deep-extended@example.com', password: 'correct horse' })).json[0].data.ID);
    expect((await t.graphql(app.apiKey, update, { id, e: { tier: 'gold' } })).body.errors).toBeUndefined();
    // Written as text: JSON.stringify itself runs out of stack on such a value in a test worker.
    const deep = `${'{"a":'.repeat(8999)}{"leaf":1}${'}'.repeat(8999)}`;
    const response = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'x-api-key': app.apiKey },
      payload: `{"query":${JSON.stringify(update)},"variables":{"id":${JSON.stringify(id)},"e":${deep}}}`,
    });
    const body = response.json();
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param: 'extended' });
    const after = await t.graphql(app.apiKey, 'query ($id: ID!) { member(lookup: { id: $id }) { extended } }', { id });
    expect(after.body.data.member.extended).toMatchObject({ tier: 'gold' });
    expect(JSON.stringify(after.body.data.member.extended)).not.toContain('"a"');
  });

  it('updateMember with extended nested 32 deep is kept', async () => {
    const app = await t.tenant('enterprise');
    const id = String((await t.rest(app, 'POST', '/member/register', { service: 'email', email: 'deep-ok@example.com', password: 'correct horse' })).json[0].data.ID);
    expect((await t.graphql(app.apiKey, update, { id, e: nested(32) })).body.errors).toBeUndefined();
  });
});

/**
 * Apollo's automatic persisted queries refuse a hash that is not its document's, and a protocol
 * version other than 1, with errors that carry no code: they were classified unexpected, masked as
 * INTERNAL (code 20) and logged as a bug. They are the caller's error: a PERSISTED_QUERY_* code, 400.
 */
describe('automatic persisted queries', () => {
  const query = '{ __typename }';
  const post = (body: object) => t.request({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey }, payload: body });

  it.each([
    ['a hash that is not the document’s', { version: 1, sha256Hash: 'a'.repeat(64) }, 'PERSISTED_QUERY_HASH_MISMATCH'],
    ['no hash at all', { version: 1 }, 'PERSISTED_QUERY_HASH_MISMATCH'],
    ['an unknown protocol version', { version: 2, sha256Hash: createHash('sha256').update(query).digest('hex') }, 'PERSISTED_QUERY_NOT_SUPPORTED'],
  ])('%s answers 400 with its PERSISTED_QUERY_ code and aeCode 4', async (_name, persistedQuery, code) => {
    const response = await post({ query, extensions: { persistedQuery } });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].extensions).toMatchObject({ code: expect.stringMatching(/^PERSISTED_QUERY_/), aeCode: 4 });
    expect(response.json().errors[0].extensions.code).toBe(code);
  });

  it('the document’s own hash registers it, and the hash alone then runs it', async () => {
    const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };
    expect((await post({ query, extensions: { persistedQuery } })).json()).toEqual({ data: { __typename: 'Query' } });
    expect((await post({ extensions: { persistedQuery } })).json()).toEqual({ data: { __typename: 'Query' } });
  });
});
