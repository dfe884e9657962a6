import net from 'node:net';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import postgres from 'postgres';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDialect } from 'drizzle-orm/pg-core';
import { maxListItems } from '../../src/core/list-limits.js';
import { compileFilter } from '../../src/filters/compile.js';
import { listingWindow, resolveWindow } from '../../src/filters/window.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { holdMemberRow } from '../support/lock-waits.js';
import { createActivity, daysAgo, hoursAgo, insertBrand, insertMembers, record } from '../support/activity-data.js';

/**
 * Every statement a request causes is bounded: a filter's activity lists compile to one subquery
 * whatever their length, every list a caller sends is at most `maxListItems` long, a statement
 * runs at most STATEMENT_TIMEOUT_MS and is cancelled when its client goes away, a request body
 * must arrive within REQUEST_TIMEOUT_MS, and a record's content may nest only so deep.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

let t: TestGateway;
let tenant: Tenant;
let music: number;
let sport: number;
const act = { a1: 0, a2: 0, a3: 0 };
let m1: number, m2: number, m3: number, m4: number;
const recorded: { memberId: number; activityId: number; brandId: number; completedAt: string }[] = [];

beforeAll(async () => {
  t = await startTestGateway({ REQUEST_TIMEOUT_MS: '400' });
  tenant = await t.tenant('enterprise');
  music = await insertBrand(t, tenant, 'The Band');
  sport = await insertBrand(t, tenant, 'The Club', 'Sport');
  act.a1 = await createActivity(t, tenant, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: music, points: 2 });
  act.a2 = await createActivity(t, tenant, { name: 'Share', type: 'Shared', service: 'twitter', brandid: music, points: 5 });
  act.a3 = await createActivity(t, tenant, { name: 'Watch', type: 'Watched', service: 'youtube', brandid: sport, points: 3 });
  [m1, m2, m3, m4] = await insertMembers(t, tenant, [{ country: 'GB' }, { country: 'US' }, { country: 'GB' }, { country: 'GB' }]);
  const specs = [
    { memberId: m1, activityId: act.a1, brandId: music, completedAt: hoursAgo(2) },
    { memberId: m1, activityId: act.a2, brandId: music, completedAt: daysAgo(1) },
    { memberId: m1, activityId: act.a3, brandId: sport, completedAt: daysAgo(2) },
    { memberId: m2, activityId: act.a1, brandId: music, completedAt: daysAgo(3) },
    { memberId: m2, activityId: act.a2, brandId: music, completedAt: hoursAgo(5) },
    { memberId: m3, activityId: act.a1, brandId: music, completedAt: daysAgo(2) },
    // Outside the listing's week: m3 did not share in the window.
    { memberId: m3, activityId: act.a2, brandId: music, completedAt: daysAgo(20) },
  ];
  await record(t, tenant, specs);
  recorded.push(...specs);
});
afterAll(async () => {
  await t?.close();
});

type Ref = { activityId: string; brandId?: string };

/** The members who performed the refs in the last week, worked out from the records in the test (every ref for allOf, one for anyOf). */
function bruteForce(refs: Ref[], mode: 'all' | 'any'): number[] {
  const weekAgo = Date.now() - 7 * 24 * 3600_000;
  const performed = (memberId: number, ref: Ref) =>
    recorded.some((r) => r.memberId === memberId && String(r.activityId) === ref.activityId && (!ref.brandId || String(r.brandId) === ref.brandId) && Date.parse(r.completedAt) >= weekAgo);
  return [m1, m2, m3, m4].filter((memberId) => (mode === 'all' ? refs.every((ref) => performed(memberId, ref)) : refs.some((ref) => performed(memberId, ref))));
}

const listingQuery = `query($filter: MemberFilter) { members(filter: $filter, orderBy: ID, sort: ASC, first: 100) { edges { node { id } } } }`;

async function listed(filter: Record<string, unknown>): Promise<number[]> {
  const { status, body } = await t.graphql(tenant.apiKey, listingQuery, { filter });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data.members.edges.map((edge: { node: { id: string } }) => Number(edge.node.id));
}

/** `count` refs: the real ones given, then activities nobody performed. */
function refsOf(real: Ref[], count: number): Ref[] {
  const unknown = Array.from({ length: count - real.length }, (_, i) => ({ activityId: String(900_000 + i) }));
  return [...real, ...unknown];
}

function refusal(body: any) {
  const error = body.errors?.[0] ?? body.error;
  expect(error, JSON.stringify(body)).toBeDefined();
  return { code: error.extensions?.aeCode ?? error.code, param: error.extensions?.param ?? error.param, message: error.message as string };
}

describe('activity lists of the member filter', () => {
  it('answer the brute force for 100 and 150 items of allOfActivities and anyOfActivities', async () => {
    const a = (id: number, brand?: number): Ref => ({ activityId: String(id), brandId: brand ? String(brand) : undefined });
    const cases: [Ref[], 'all' | 'any'][] = [
      // The three refs performed, repeated to 150 items: m1 and m2 performed all of them in the week.
      [Array.from({ length: 150 }, (_, i) => [a(act.a1), a(act.a2, music), a(act.a1, music)][i % 3]), 'all'],
      [Array.from({ length: 100 }, (_, i) => [a(act.a1), a(act.a2)][i % 2]), 'all'],
      // 150 distinct refs, 148 never performed: nobody did all of them.
      [refsOf([a(act.a1), a(act.a2)], 150), 'all'],
      // Any of 150 distinct refs, of which one was performed by m1 only (a3 with its own brand, not with another).
      [refsOf([a(act.a3, sport), a(act.a3, music)], 150), 'any'],
      [refsOf([a(act.a2)], 100), 'any'],
      // The brand of a ref counts: a1 was never performed under the sport brand.
      [[a(act.a1, sport), a(act.a2)], 'all'],
    ];
    for (const [refs, mode] of cases) {
      const expected = bruteForce(refs, mode);
      const field = mode === 'all' ? 'allOfActivities' : 'anyOfActivities';
      expect(await listed({ [field]: refs }), `${field} of ${refs.length}`).toEqual(expected);
    }
    // The cases are not all empty: the comparison says something.
    expect(bruteForce(refsOf([{ activityId: String(act.a3), brandId: String(sport) }], 150), 'any')).toEqual([m1]);
    expect(bruteForce([{ activityId: String(act.a1) }, { activityId: String(act.a2) }], 'all')).toEqual([m1, m2]);
  });

  it('compile to the same statement whatever their length: one subquery, the refs as parameters', async () => {
    const window = resolveWindow(null, listingWindow);
    const dialect = new PgDialect();
    const statement = async (filter: Record<string, unknown>) => {
      const compiled = await compileFilter(t.database.db, tenant.accountId, filter, window);
      const { sql, params } = dialect.sqlToQuery(compiled.member()!);
      return { sql, params: params.length };
    };
    for (const field of ['allOfActivities', 'anyOfActivities']) {
      const one = await statement({ [field]: refsOf([], 1) });
      const many = await statement({ [field]: refsOf([{ activityId: '7', brandId: '3' }], maxListItems) });
      expect(many, field).toEqual(one);
    }
  });

  it('answers the REST listing for a 150-item allofactivities and anyofactivities', async () => {
    const list = (ids: string[]) => ids.join(',');
    const all = list(Array.from({ length: 150 }, (_, i) => [String(act.a1), `${music}-${act.a2}`][i % 2]));
    const any = list([...Array.from({ length: 149 }, (_, i) => String(900_000 + i)), `${sport}-${act.a3}`]);
    const active = async (params: Record<string, string>) => {
      const answer = await t.rest(tenant, 'GET', '/members/active', params);
      expect(answer.status, answer.body).toBe(200);
      return answer.json[0].items.map((item: { ID: string }) => Number(item.ID)).sort((x: number, y: number) => x - y);
    };
    expect(await active({ allofactivities: all })).toEqual([m1, m2]);
    expect(await active({ anyofactivities: any })).toEqual([m1]);
  });
});

describe('list sizes', () => {
  // Ids of no member, so the list at the limit selects only the member added to it.
  const ids = (count: number) => Array.from({ length: count }, (_, i) => String(500_000 + i));

  it('refuses a GraphQL filter list longer than the limit with code 4 naming the argument, in variables or in the document', async () => {
    const over = maxListItems + 1;
    const lists: [string, unknown[]][] = [
      ['memberIds', ids(over)],
      ['excludeMemberIds', ids(70_000)],
      ['emails', ids(over).map((id) => `m${id}@example.com`)],
      ['services', Array.from({ length: 50_000 }, () => 'spotify')],
      ['countries', Array.from({ length: over }, () => 'GB')],
      ['activityIds', ids(over)],
      ['allOfActivities', ids(over).map((activityId) => ({ activityId }))],
      ['anyOfActivities', ids(over).map((activityId) => ({ activityId }))],
      ['requiredFields', Array.from({ length: over }, () => 'Email')],
    ];
    for (const [field, list] of lists) {
      const { status, body } = await t.graphql(tenant.apiKey, listingQuery, { filter: { [field]: list } });
      expect(status, field).toBe(400);
      expect(refusal(body), field).toMatchObject({ code: 4, param: field });
      expect(refusal(body).message).toContain(String(maxListItems));
    }
    // Written in the document rather than sent as a variable.
    const literal = `{ members(filter: { memberIds: [${ids(over).join(',')}] }) { totalCount } }`;
    const { body } = await t.graphql(tenant.apiKey, literal);
    expect(refusal(body)).toMatchObject({ code: 4, param: 'memberIds' });
    // At the limit the list is taken.
    expect(await listed({ memberIds: [...ids(maxListItems - 1), String(m2)] })).toEqual([m2]);
  });

  it('refuses a REST list longer than the limit with code 4 naming the parameter', async () => {
    const over = ids(maxListItems + 1).join(',');
    for (const param of ['members', 'exclude_members', 'emails', 'services', 'country', 'activityID', 'allofactivities', 'anyofactivities']) {
      const answer = await t.rest(tenant, 'GET', '/members/active', { [param]: over });
      expect(answer.status, `${param}: ${answer.body}`).toBe(400);
      expect(answer.json.error.code).toBe(4);
      // Parameter names match in any case; the refusal names it as the route reads it.
      expect(answer.json.error.param.toLowerCase()).toBe(param.toLowerCase());
    }
  });

  it("bounds a member's own token too: viewer.position answers a 150-item filter and refuses one over the limit", async () => {
    const shown = await t.rest(tenant, 'GET', `/member/${m1}`);
    expect(shown.status, shown.body).toBe(200);
    const asMember = async (filter: Record<string, unknown>) => {
      const response = await t.request({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${shown.json.jwt}`, 'content-type': 'application/json' },
        payload: { query: 'query($filter: MemberFilter) { viewer { id position(filter: $filter) } }', variables: { filter } },
      });
      return { status: response.statusCode, body: response.json() };
    };
    const answered = await asMember({ allOfActivities: refsOf([{ activityId: String(act.a1) }], 150) });
    expect(answered.body.errors, JSON.stringify(answered.body)).toBeUndefined();
    expect(answered.body.data.viewer.id).toBe(String(m1));
    const refused = await asMember({ allOfActivities: refsOf([], maxListItems + 1) });
    expect(refused.status).toBe(400);
    expect(refusal(refused.body)).toMatchObject({ code: 4, param: 'allOfActivities' });
  });

  it('refuses a subscription whose filter holds a list over the limit, naming it', async () => {
    const { port } = await listening(t);
    const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, connectionParams: { 'x-api-key': tenant.apiKey }, retryAttempts: 0 });
    try {
      const filter = { anyOfActivities: refsOf([], maxListItems + 1) };
      const result = await client
        .iterate({ query: 'subscription($filter: MemberFilter) { activityRecorded(filter: $filter) { id } }', variables: { filter } })
        .next()
        .catch((errors: unknown) => ({ value: { errors } }));
      const errors = (result.value as { errors: { extensions: { aeCode: number; param: string } }[] }).errors;
      expect(errors, JSON.stringify(result)).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ aeCode: 4, param: 'anyOfActivities' }) })]);
    } finally {
      await client.dispose();
    }
  });

  it('writes nothing when a list of a write is too long: a segment whose saved filter is over the limit is not created', async () => {
    const filter = { memberIds: ids(maxListItems + 1) };
    const before = (await t.graphql(tenant.apiKey, '{ segments { id } }')).body.data.segments.length;
    const create = `mutation($input: SegmentInput!) { createSegment(input: $input) { id } }`;
    const graphqlAnswer = await t.graphql(tenant.apiKey, create, { input: { name: 'Too many', kind: 'FILTER', filter } });
    expect(refusal(graphqlAnswer.body)).toMatchObject({ code: 4, param: 'memberIds' });
    const restAnswer = await t.rest(tenant, 'POST', '/segment/create', {}, { payload: { name: 'Too many', type: 'filter', filter: JSON.stringify(filter) } });
    expect(restAnswer.status, restAnswer.body).toBe(400);
    expect(restAnswer.json.error).toMatchObject({ code: 4, param: 'members' });
    expect((await t.graphql(tenant.apiKey, '{ segments { id } }')).body.data.segments.length).toBe(before);
  });
});

describe('request bodies', () => {
  it('refuses record content nested deeper than the limit with code 4, and records nothing', async () => {
    // Written out as text: serialising an object this deep overflows the test's own stack.
    const content = `${'{"nested":'.repeat(4500)}{"leaf":1}${'}'.repeat(4500)}`;
    const variables = `{"input":[{"activityId":"${act.a1}","memberId":"${m4}","completedAt":"${hoursAgo(1)}","content":${content}}]}`;
    const query = JSON.stringify('mutation($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }');
    const response = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
      payload: `{"query":${query},"variables":${variables}}`,
    });
    const { statusCode: status, body } = { statusCode: response.statusCode, body: response.json() };
    // Refused by the resolver once executed: GraphQL answers 200 with the error in `errors` (docs/errors.md), REST 400.
    expect(status, JSON.stringify(body)).toBe(200);
    expect(refusal(body)).toMatchObject({ code: 4, param: 'content' });
    const rest = await t.rest(tenant, 'POST', '/activity/record', {}, { payload: { activityid: String(act.a1), id: String(m4), content } });
    expect(rest.status, rest.body).toBe(400);
    expect(rest.json.error).toMatchObject({ code: 4, param: 'content' });
    expect(await listed({ memberIds: [String(m4)], anyOfActivities: [{ activityId: String(act.a1) }] })).toEqual([]);
  });

  it('cuts off a client that sends its body too slowly (REQUEST_TIMEOUT_MS) with 408', async () => {
    const { port } = await listening(t);
    const socket = net.connect(port, '127.0.0.1');
    try {
      const answer = new Promise<string>((resolve) => {
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('close', () => resolve(received));
        socket.on('error', () => resolve(received));
      });
      socket.write(`POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nx-api-key: ${tenant.apiKey}\r\n\r\n{"query":`);
      // The rest of the body never comes: the gateway answers and closes the connection on its own.
      expect(await answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      socket.destroy();
    }
  });
});

/** A connection of the test's own to the gateway's database, outside the gateway's pool. */
function testConnection() {
  return postgres(t.database.url!, { max: 3, onnotice: () => {} });
}

/** Holds the member's row locked on the test's own connection until `release` is called (lock-waits.ts). */
const holdRow = (db: postgres.Sql, memberId: number) => holdMemberRow(db, tenant.accountId, memberId);

/** Waits (polling the database's state, not a clock) until `check` holds; gives up after `attempts`. */
async function until(check: () => Promise<boolean>, attempts = 200): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe.runIf(onPostgres)('statements on PostgreSQL', () => {
  let bounded: TestGateway;
  let boundedTenant: Tenant;

  beforeAll(async () => {
    bounded = await startTestGateway({ STATEMENT_TIMEOUT_MS: '300' }, t.database);
    boundedTenant = { ...tenant };
  });
  afterAll(async () => {
    await bounded?.gateway.close();
  });

  /**
   * The backends of the gateway's database waiting on a lock with an update of `members`. On a
   * Citus cluster the wait is on a worker, where the shard's statement runs: `citus_lock_waits`
   * names the coordinator's session that sent it (its global pid) and its statement.
   */
  const waitingUpdates = async (db: postgres.Sql) => {
    const [{ citus }] = await db<{ citus: boolean }[]>`select exists (select 1 from pg_extension where extname = 'citus') as citus`;
    if (citus) return db<{ pid: string }[]>`select distinct waiting_gpid::text as pid from citus_lock_waits where blocked_statement ilike 'update "members"%'`;
    return db<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
      and wait_event_type = 'Lock' and query ilike 'update "members"%'`;
  };

  it('answers STATEMENT_TIMEOUT (503, code 20) when a statement runs past STATEMENT_TIMEOUT_MS, and the statement is gone', async () => {
    const db = testConnection();
    try {
      // The test holds the member's row: the update the request sends waits on it.
      const held = await holdRow(db, m3);
      const answer = bounded.rest(boundedTenant, 'POST', `/member/${m3}/update`, { firstname: 'Timed' });
      // A safety net for a gateway without the timeout: the lock goes once the answer came or the database shows no waiting update.
      const settled = await Promise.race([answer, until(async () => false, 200).then(() => undefined)]);
      await held.release();
      const result = settled ?? (await answer);
      expect(result.status, result.body).toBe(503);
      expect(result.json.error).toMatchObject({ code: 20, type: 'STATEMENT_TIMEOUT' });
      expect(result.json.error.message).toMatch(/statement timeout/);
      expect(result.json.error.message).not.toMatch(/canceling|members/);
      expect(await waitingUpdates(db)).toEqual([]);
      const [row] = await db<{ first_name: string | null }[]>`select first_name from members where id = ${m3}`;
      expect(row.first_name).not.toBe('Timed');
    } finally {
      await db.end();
    }
  });

  it('answers STATEMENT_TIMEOUT on GraphQL too, with HTTP 503', async () => {
    const db = testConnection();
    try {
      const held = await holdRow(db, m3);
      const answer = bounded.graphql(boundedTenant.apiKey, 'mutation($id: ID!) { updateMember(id: $id, input: { firstName: "Timed" }) { jwt } }', { id: String(m3) });
      const settled = await Promise.race([answer, until(async () => false, 200).then(() => undefined)]);
      await held.release();
      const result = settled ?? (await answer);
      expect(result.status, JSON.stringify(result.body)).toBe(503);
      expect(result.body.errors[0].extensions).toMatchObject({ code: 'STATEMENT_TIMEOUT', aeCode: 20 });
      expect(await waitingUpdates(db)).toEqual([]);
    } finally {
      await db.end();
    }
  });

  it('cancels the statements of a request whose client disconnects: no statement is left running', async () => {
    const { port } = await listening(t);
    const db = testConnection();
    const row = await holdRow(db, m2);
    try {
      const request = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v1.1/member/${m2}/update?firstname=Gone`,
        headers: { 'x-api-key': tenant.apiKey },
      });
      request.on('error', () => {});
      request.end();
      // The request's update waits on the row the test holds.
      expect(await until(async () => (await waitingUpdates(db)).length === 1)).toBe(true);
      request.destroy();
      // The client went away: the waiting statement is cancelled, not left to run once the row is free.
      expect(await until(async () => (await waitingUpdates(db)).length === 0)).toBe(true);
    } finally {
      await row.release();
    }
    try {
      const [row] = await db<{ first_name: string | null }[]>`select first_name from members where id = ${m2}`;
      expect(row.first_name).not.toBe('Gone');
    } finally {
      await db.end();
    }
  });
});

async function listening(target: TestGateway): Promise<AddressInfo> {
  if (!target.gateway.app.server.listening) await target.gateway.app.listen({ port: 0, host: '127.0.0.1' });
  return target.gateway.app.server.address() as AddressInfo;
}
