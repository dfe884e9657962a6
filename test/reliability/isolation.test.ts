import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema } from '../../src/graphql/schema.js';
import { restRoutes } from '../../src/rest/table.js';
import { startFakeNetworks, type FakeNetworks } from '../support/fake-networks.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { graphqlCases, restCases, type CaseContext } from './isolation.cases.js';
import { documentFor, graphqlOperations, restOperations, type GraphqlOperation, type IdKind, type Path, type RestOperation } from './surface.js';
import { fillSide, makers, snapshot, type Side } from './world.js';

/**
 * The isolation matrix. One application (the caller) calls every GraphQL operation and every
 * `/v1.1` route, found in the schema and the route table, once for each place an id goes, with
 * the id of another account's thing of that kind, with an id that names nothing, and with its own.
 * Tokens are tried from another account and from another application of the caller's own account,
 * where tokens are kept per application. It passes when:
 *  - the foreign id gets exactly the answer the made-up id gets (nothing to enumerate by);
 *  - where that answer is an error, it is not found (or, for tokens, invalid token);
 *  - no answer holds any text of the other account;
 *  - the other account's rows, and the sibling application's, are unchanged at the end;
 *  - the caller's own id makes the same call succeed, so the swapped id is what the answer is about.
 */

let t: TestGateway;
let fake: FakeNetworks;
let own: Side;
let victim: Side;
let sibling: Tenant;
let siblingToken: string;
let before: { victim: Record<string, string[]>; sibling: Record<string, string[]> };

/** Calls whose own variant cannot succeed here, and why; the foreign and made-up variants are still compared. */
const ownMayFail: Record<string, string> = {
  viewer: 'answers only a member JWT, and this caller holds an API key',
  viewerUpdate: 'answers only a member JWT, and this caller holds an API key',
  viewerSessions: 'answers only a member JWT, and this caller holds an API key',
  viewerEndSessions: 'answers only a member JWT, and this caller holds an API key',
  viewerOptIn: 'answers only a member JWT, and this caller holds an API key',
  viewerOptOut: 'answers only a member JWT, and this caller holds an API key',
  refreshServiceTokens: 'the email identity has no network tokens to refresh',
  'POST /member/:id/refresh': 'the email identity has no network tokens to refresh',
};

beforeAll(async () => {
  fake = await startFakeNetworks();
  t = await startTestGateway(
    // The matrix reads whole responses under one key: the limits are tested elsewhere.
    { GRAPHQL_MAX_COST: '100000000', GRAPHQL_MAX_DEPTH: '30', RATE_LIMIT_PER_MINUTE: '100000000' },
    undefined,
    { networks: { baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls } },
  );
  const accountName = `isolation-${process.pid}-${randomBytes(3).toString('hex')}`;
  sibling = await t.tenant('enterprise', accountName);
  const caller = await t.tenant('enterprise', accountName);
  const other = await t.tenant('enterprise');
  own = await fillSide(t, caller, `own${randomBytes(4).toString('hex')}`);
  // The other account's ids far from the caller's and from small numbers, so an answer that
  // mentions one is told apart from a count or a version that happens to be equal.
  for (const table of ['members', 'member_services', 'brands', 'segments', 'activity_definitions', 'activity_records', 'presave_jobs']) {
    // The column's sequence set (not `alter column … restart`, which Citus refuses on a distributed table).
    await t.database.db.execute(sql.raw(`select setval(pg_get_serial_sequence('${table}', 'id'), 900000)`));
  }
  victim = await fillSide(t, other, `victim${randomBytes(4).toString('hex')}`);
  // What the sibling application keeps for itself: a whitelisted domain, settings, a sign-in token.
  await t.graphql(sibling.apiKey, 'mutation { whitelistDomain(domain: "sibling.example.com") { id } }');
  await t.graphql(sibling.apiKey, 'mutation { setRequiredFields(fields: [CITY]) { id } }');
  siblingToken = await makers(t, sibling, own.marker).signInToken(own.ids.member);
  // Background workers write derived rows on their own schedule; the matrix compares rows written by calls.
  await t.gateway.activityQueue.stop();
  await t.gateway.scoreWindows.stop();
  before = { victim: await snapshot(t, other.accountId), sibling: await snapshot(t, sibling.accountId, sibling.applicationId) };
}, 120_000);

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const madeUpId = '2147480001';
const madeUpToken = () => randomBytes(32).toString('base64url');

function foreignValues(kind: IdKind): { label: string; value: string }[] {
  if (kind !== 'token') return [{ label: 'another account', value: victim.ids[kind] }];
  return [
    { label: "another account's sign-in token", value: victim.signInToken },
    { label: "another account's member access token", value: victim.accessToken },
    { label: "another application's sign-in token", value: siblingToken },
  ];
}

function setPath(target: Record<string, any>, path: Path, value: unknown) {
  let node: any = target;
  path.forEach((step, index) => {
    if (index === path.length - 1) {
      node[step] = value;
      return;
    }
    if (node[step] === undefined || node[step] === null) node[step] = typeof path[index + 1] === 'number' ? [] : {};
    node = node[step];
  });
}
const getPath = (target: Record<string, any>, path: Path) => path.reduce<any>((node, step) => node?.[step], target);

/** The answer with the swapped value, request ids and times taken out, so two answers compare equal when they say the same. */
function normalize(body: string, value: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  const pattern = new RegExp(`(?<![\\w-])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'g');
  const walk = (node: unknown, key?: string): unknown => {
    if (typeof node === 'string') {
      if (key === 'requestId') return '<request>';
      // Cursors are opaque and signed: they hash the list they page (its filter's ids) and carry its times.
      if (key === 'cursor' || key === 'startCursor' || key === 'endCursor') return '<cursor>';
      // A whole value equal to the id is the id only under an id's name: counts are strings in /v1.1 too.
      if (node === value && !/^(id|ID)$|[a-z](Id|ID)s?$/.test(key ?? '')) return node;
      return node
        .replace(pattern, '<id>')
        .replace(/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g, '<jwt>')
        .replace(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?Z?/g, '<time>');
    }
    if (Array.isArray(node)) return node.map((item) => walk(item, key));
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, k)]));
    return node;
  };
  return walk(parsed);
}

/** Where two answers first differ, for the failure message. */
function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference((a as any)[key], (b as any)[key], `${path}.${key}`);
      if (found) return found;
    }
    return '';
  }
  return JSON.stringify(a) === JSON.stringify(b) ? '' : `at ${path || 'the top'}: ${JSON.stringify(a)?.slice(0, 200)} against ${JSON.stringify(b)?.slice(0, 200)}`;
}

interface Answer {
  status: number;
  body: string;
}

const failures: string[] = [];
const figures = { operations: 0, slots: 0, calls: 0, answers: new Map<string, number>() };

function errorName(answer: Answer): string {
  try {
    const body = JSON.parse(answer.body);
    if (body.errors) return `${answer.status} ${body.errors[0].extensions?.code}`;
    if (body.error) return `${answer.status} ${body.error.type}`;
  } catch {
    // not JSON
  }
  return String(answer.status);
}

/** The comparison every swapped id goes through. */
function judge(where: string, kind: IdKind, label: string, foreign: Answer, foreignValue: string, madeUp: Answer, madeUpValue: string) {
  figures.calls += 2;
  const name = errorName(foreign);
  figures.answers.set(name, (figures.answers.get(name) ?? 0) + 1);
  if (foreign.body.includes(victim.marker)) failures.push(`${where} with ${label}'s ${kind}: the answer holds the other account's data: ${foreign.body.slice(0, 300)}`);
  const [a, b] = [normalize(foreign.body, foreignValue), normalize(madeUp.body, madeUpValue)];
  if (foreign.status !== madeUp.status || JSON.stringify(a) !== JSON.stringify(b)) {
    failures.push(`${where} with ${label}'s ${kind}: answers ${foreign.status} where a made-up id answers ${madeUp.status}; ${firstDifference(a, b)}`);
  }
  // A refusal is "not found": an error status (REST, a request GraphQL refused whole), or an error
  // beside the data of an executed GraphQL request (a nullable lookup answers null and NOT_FOUND).
  const refused = foreign.status >= 400 || name !== String(foreign.status);
  // A member JWT's own operations refuse the API key before they read any id (test/members/viewer.test.ts covers them with member JWTs).
  const memberOnly = /^GraphQL viewer\w*\(/.test(where) && /WRONG_APPLICATION/.test(name);
  if (refused && !memberOnly && !/NOT_FOUND|INVALID_TOKEN/.test(name)) failures.push(`${where} with ${label}'s ${kind}: the refusal is ${name}, not "not found"`);
  // A payload mutation refuses in its userErrors: that too must be "not found".
  const userErrors = userErrorCodes(foreign.body).filter((code) => code !== 'NOT_FOUND');
  if (userErrors.length) failures.push(`${where} with ${label}'s ${kind}: the user errors are ${userErrors.join(', ')}, not NOT_FOUND`);
}

/** The codes of the user errors of a payload mutation's answer (empty for any other answer). */
function userErrorCodes(body: string): string[] {
  try {
    const data = (JSON.parse(body) as { data?: Record<string, { userErrors?: { code: string }[] } | null> }).data;
    return Object.values(data ?? {}).flatMap((payload) => payload?.userErrors?.map((error) => error.code) ?? []);
  } catch {
    return [];
  }
}

const context = (slot: string | undefined): CaseContext => ({ own, make: makers(t, own.tenant, own.marker), slot });

describe('the isolation matrix', () => {
  let graphqlOps: GraphqlOperation[];
  let restOps: RestOperation[];

  beforeAll(async () => {
    const schema = await getSchema();
    graphqlOps = graphqlOperations(schema);
    restOps = restOperations(schema, restRoutes, Object.fromEntries(Object.entries(restCases).map(([key, entry]) => [key, entry.probe ?? {}])));
  });

  it('has a way to call every operation of the schema and every route of the table, and knows every id kind', () => {
    const problems: string[] = [];
    for (const op of graphqlOps) {
      const entry = graphqlCases[op.name];
      if (!entry) problems.push(`GraphQL ${op.operation} ${op.name}: no entry in graphqlCases`);
      for (const slot of op.slots) {
        if (!(entry?.kinds?.[slot.path.join('.')] ?? slot.kind)) problems.push(`GraphQL ${op.name}: the kind of id in ${slot.path.join('.')} is unknown`);
      }
    }
    for (const name of Object.keys(graphqlCases)) if (!graphqlOps.some((op) => op.name === name)) problems.push(`graphqlCases.${name}: no such operation`);
    for (const op of restOps) {
      if (!restCases[op.key]) problems.push(`REST ${op.key}: no entry in restCases`);
      if (op.probeError) problems.push(`REST ${op.key}: its parameters could not be probed (${op.probeError}); give restCases a probe`);
      for (const slot of op.slots) if (!slot.kind) problems.push(`REST ${op.key}: the kind of id in ${slot.param} is unknown`);
    }
    for (const key of Object.keys(restCases)) if (!restOps.some((op) => op.key === key)) problems.push(`restCases['${key}']: no such route`);
    expect(problems).toEqual([]);
    // The surface is what the schema and the table hold, not a hand-kept list.
    expect(graphqlOps.length).toBeGreaterThan(40);
    expect(restOps.length).toBe(restRoutes.reduce((n, route) => n + route.methods.length, 0));
  });

  const post = (op: GraphqlOperation, variables: Record<string, unknown>): Promise<Answer> =>
    t.graphql(own.tenant.apiKey, documentFor(op, variables), variables).then((r) => ({ status: r.status, body: r.text }));

  it('answers every GraphQL operation with a foreign id as it answers a made-up one, and changes nothing of theirs', async () => {
    for (const op of graphqlOps) {
      const entry = graphqlCases[op.name] ?? {};
      const kindOf = (path: Path) => (entry.kinds?.[path.join('.')] ?? op.slots.find((slot) => slot.path.join('.') === path.join('.'))?.kind)!;
      /** The case's variables, each required id the caller's own unless the case chose one. */
      const build = async (slot: string | undefined) => {
        const variables = structuredClone((await entry.vars?.(context(slot))) ?? {}) as Record<string, unknown>;
        for (const required of op.slots.filter((s) => s.required)) {
          if (getPath(variables, required.path) === undefined) setPath(variables, required.path, own.ids[kindOf(required.path) as Exclude<IdKind, 'token'>]);
        }
        return variables;
      };
      figures.operations += 1;
      if (!op.slots.length) {
        const answer = await post(op, await build(undefined));
        figures.calls += 1;
        if (answer.body.includes(victim.marker)) failures.push(`${op.name}: the answer holds the other account's data`);
        if ((answer.status !== 200 || JSON.parse(answer.body).errors || userErrorCodes(answer.body).length) && !ownMayFail[op.name]) {
          failures.push(`${op.name} as the caller: ${answer.status} ${answer.body.slice(0, 300)}`);
        }
        continue;
      }
      for (const slot of op.slots) {
        const key = slot.path.join('.');
        const kind = kindOf(slot.path);
        figures.slots += 1;
        const where = `GraphQL ${op.name}(${key})`;
        for (const foreign of foreignValues(kind)) {
          const variables = await build(key);
          const ownValue = getPath(variables, slot.path) as string | undefined;
          setPath(variables, slot.path, foreign.value);
          // An object made to hold the slot gets the caller's own ids where it requires one (anyOfActivities' activityId).
          for (const sibling of op.slots) {
            const parent = getPath(variables, sibling.path.slice(0, -1));
            if (sibling.nonNull && parent && typeof parent === 'object' && getPath(variables, sibling.path) === undefined) {
              setPath(variables, sibling.path, own.ids[kindOf(sibling.path) as Exclude<IdKind, 'token'>]);
            }
          }
          const foreignAnswer = await post(op, variables);
          const madeUp = kind === 'token' ? madeUpToken() : madeUpId;
          setPath(variables, slot.path, madeUp);
          judge(where, kind, foreign.label, foreignAnswer, foreign.value, await post(op, variables), madeUp);
          setPath(variables, slot.path, kind === 'token' ? ownValue : (ownValue ?? own.ids[kind]));
          const mine = await post(op, variables);
          figures.calls += 1;
          if ((mine.status !== 200 || JSON.parse(mine.body).errors || userErrorCodes(mine.body).length) && !ownMayFail[op.name]) {
            failures.push(`${where} with the caller's own ${kind}: ${mine.status} ${mine.body.slice(0, 300)}`);
          }
        }
      }
    }
  }, 240_000);

  const rest = (op: RestOperation, params: Record<string, string>): Promise<Answer> => {
    const path = op.route.path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(params[`:${name}`]));
    const query = Object.fromEntries(Object.entries(params).filter(([name]) => !name.startsWith(':')));
    return t.rest(own.tenant, op.method, path, query, { key: 'header' });
  };

  it('answers every /v1.1 route with a foreign id as it answers a made-up one, and changes nothing of theirs', async () => {
    for (const op of restOps) {
      const entry = restCases[op.key] ?? {};
      const build = async (slot: string | undefined) => {
        const params = { ...(await entry.params?.(context(slot))) };
        for (const required of op.slots.filter((s) => s.required)) params[required.param] ??= own.ids[required.kind as Exclude<IdKind, 'token'>];
        return params;
      };
      figures.operations += 1;
      if (!op.slots.length) {
        const answer = await rest(op, await build(undefined));
        figures.calls += 1;
        if (answer.body.includes(victim.marker)) failures.push(`${op.key}: the answer holds the other account's data`);
        if (answer.status !== 200 && !ownMayFail[op.key]) failures.push(`${op.key} as the caller: ${answer.status} ${answer.body.slice(0, 300)}`);
        continue;
      }
      for (const slot of op.slots) {
        const kind = slot.kind!;
        figures.slots += 1;
        const where = `REST ${op.key} (${slot.param})`;
        for (const foreign of foreignValues(kind)) {
          const params = await build(slot.param);
          const ownValue = params[slot.param] ?? own.ids[kind as Exclude<IdKind, 'token'>];
          const foreignAnswer = await rest(op, { ...params, [slot.param]: foreign.value });
          const madeUp = kind === 'token' ? madeUpToken() : madeUpId;
          judge(where, kind, foreign.label, foreignAnswer, foreign.value, await rest(op, { ...params, [slot.param]: madeUp }), madeUp);
          const mine = await rest(op, { ...params, [slot.param]: ownValue });
          figures.calls += 1;
          if (mine.status !== 200 && !ownMayFail[op.key]) failures.push(`${where} with the caller's own ${kind}: ${mine.status} ${mine.body.slice(0, 300)}`);
        }
      }
    }
  }, 240_000);

  it('found no difference, no foreign data, and left the other account and the sibling application untouched', async () => {
    console.info(
      `isolation matrix: ${figures.operations} operations, ${figures.slots} id places, ${figures.calls} calls; foreign answers: ` + [...figures.answers].map(([name, n]) => `${name} × ${n}`).join(', '),
    );
    expect(failures).toEqual([]);
    expect(await snapshot(t, victim.tenant.accountId)).toEqual(before.victim);
    expect(await snapshot(t, sibling.accountId, sibling.applicationId)).toEqual(before.sibling);
  });
});
