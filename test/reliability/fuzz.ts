import fc from 'fast-check';
import { getNamedType, getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import type { RestRoute } from '../../src/rest/route.js';
import { documentFor, graphqlOperations, restOperations, type GraphqlOperation, type NullableInputType, type RestOperation } from './surface.js';

/**
 * Generated hostile requests over the whole surface, and the rules every answer must keep. The
 * generators draw from the schema and the route table (surface.ts), so they cover what exists;
 * the values are what breaks parsers and databases: wrong types, huge and negative numbers, 1 MB
 * strings, NUL and lone surrogates, repeated and array parameters, malformed JSON and content
 * types, impossible dates. Used by the short run in the test suite and by the long run's script.
 */

export interface FuzzRequest {
  kind: 'rest' | 'graphql' | 'raw';
  /** What it exercises, for the figures: `GET /member/:id`, `mutation optIn`, `raw malformed JSON`. */
  target: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FuzzAnswer {
  status: number;
  body: string;
  ms: number;
}

const mega = 1_000_000;

/** Values that are wrong somewhere: every parameter and variable is drawn from these. */
const hostileText = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '0',
      '-1',
      '1',
      '1.5',
      '1e309',
      '-2147483649',
      '2147483648',
      '9007199254740993',
      '99999999999999999999999',
      'NaN',
      'Infinity',
      '-0',
      'true',
      'null',
      'undefined',
      '[]',
      '{}',
      '{"a":',
      '[1,2',
      '__proto__',
      'constructor',
      "' or 1=1 --",
      '"; drop table members; --',
      '%00',
      '%',
      '\u0000',
      'a\u0000b',
      '\uD800',
      '\uDFFF',
      '\uFFFF',
      '\u202Eevil',
      'e\u0301',
      '😀'.repeat(10),
      '\r\n\r\nX-Injected: 1',
      '<script>alert(1)</script>',
      '2026-02-30',
      '2026-13-01',
      '0000-00-00',
      '9999-12-31 25:61:61',
      '1969-12-31 23:59:59',
      '+275760-09-13T00:00:00Z',
      '31/02/2026',
      '2026-02-29T24:00:00Z',
      '1 decade',
      '0 day',
      '99999999 day',
      '-1 month',
      'extended.__proto__',
      'a,b,,c',
      ',,,',
      '1,2,3,4,5,6,7,8,9,10',
    ),
  },
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.bigInt().map(String) },
  { weight: 2, arbitrary: fc.date({ noInvalidDate: false }).map((date) => (Number.isNaN(date.getTime()) ? 'Invalid Date' : date.toISOString())) },
  // Long values: 1 MB of one character, or 100 KB of a multi-byte one; rare, or most bodies would be too large to read.
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(mega), '9'.repeat(mega), 'é'.repeat(100_000), '\u0000'.repeat(10_000)) },
);

/** Values an operation accepts somewhere, so generated calls also get past the first check. */
const plausibleText = fc.oneof(
  fc.integer({ min: 1, max: 40 }).map(String),
  fc.constantFrom(
    'email',
    'spotify',
    'deezer',
    'twitter',
    'fan@example.com',
    'a-password',
    'Music',
    'Custom',
    'list',
    'filter',
    'track',
    'score',
    'created',
    'lastlogin',
    'asc',
    'desc',
    'hour',
    'day',
    'month',
    '1 day',
    '2 week',
    '3 month',
    '2026-01-01',
    '2026-01-01 00:00:00',
    '01-02-2000',
    'GB',
    'US,FR',
    '1',
    '0',
    'yes',
    'activities',
    'type',
    'app',
    'businessunit',
    'extended.points',
    'firstname,email',
    'example.com',
    'https://example.com/page',
    '{"tier":"gold"}',
    '10',
    '5,10',
  ),
);

const parameterValue = fc.oneof(hostileText, plausibleText);

/** A JSON value of any shape, for places that expect one type. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 31, -(2 ** 31) - 1, 1e300, -1e300),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('a', '__proto__', 'constructor', 'id', 'x'.repeat(100)), hostileText, { maxKeys: 3 }),
);

/** A value for an input type: usually of the right shape with hostile leaves, sometimes of any shape. */
function valueFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  const anything = hostileJson;
  const inner = getNullableType<NullableInputType>(type);
  let shaped: fc.Arbitrary<unknown>;
  if (isListType(inner)) {
    const item = valueFor(inner.ofType, depth + 1);
    // A top-level list also comes one past the batch limit.
    const overLimit = fc.constant(Array.from({ length: 1001 }, () => ({})));
    shaped = depth === 0 ? fc.oneof(fc.array(item, { maxLength: 3 }), item, overLimit) : fc.oneof(fc.array(item, { maxLength: 3 }), item);
  } else if (isInputObjectType(inner)) {
    if (depth > 3) return fc.constant({});
    const fields = Object.values(inner.getFields());
    shaped = fc.record(Object.fromEntries(fields.map((field) => [field.name, valueFor(field.type, depth + 1)])), { requiredKeys: [] });
  } else if (isEnumType(inner)) {
    shaped = fc.oneof(fc.constantFrom(...inner.getValues().map((value) => value.name)), hostileText);
  } else {
    const name = getNamedType(inner).name;
    shaped =
      {
        Int: fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 1e20, 1.5)),
        Float: fc.oneof(fc.double(), fc.constantFrom(1e308, -1e308)),
        Boolean: fc.boolean(),
        ID: fc.oneof(fc.integer({ min: -1, max: 50 }).map(String), hostileText),
      }[name] ?? parameterValue;
  }
  const value = fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: anything });
  return isNonNullType(type) ? value : fc.oneof({ weight: 5, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) });
}

function graphqlRequest(ops: GraphqlOperation[], apiKey: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...ops).chain((op) =>
    fc
      .tuple(fc.record(Object.fromEntries(op.field.args.map((arg) => [arg.name, valueFor(arg.type)])), { requiredKeys: [] }), apiKey, fc.constantFrom('json', 'json', 'json', 'batched', 'get'))
      .map(([variables, headers, form]) => {
        // Every argument declared, so missing and null required ones reach the variable checks.
        const query = documentFor(op, Object.fromEntries(op.field.args.map((arg) => [arg.name, true])), '{ __typename }');
        const base = { kind: 'graphql' as const, target: `${op.operation} ${op.name}` };
        if (form === 'get') {
          const search = new URLSearchParams({ query, variables: JSON.stringify(variables) });
          return { ...base, method: 'GET', path: `/graphql?${search}`, headers };
        }
        const payload =
          form === 'batched'
            ? [
                { query, variables },
                { query, variables },
              ]
            : { query, variables };
        return { ...base, method: 'POST', path: '/graphql', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(payload) };
      }),
  );
}

/** Lone surrogates replaced, so the text can be percent-encoded (the query string does the same). */
const wellFormed = (text: string) => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** How parameters travel: the query string (names repeated or not), a form body, a JSON body. */
function restRequest(ops: RestOperation[], apiKey: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...ops).chain((op) => {
    const names = [...op.reads, 'apikey', 'unknown_param', 'fields'];
    const pathParams = [...op.route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
    return fc
      .tuple(
        fc.array(fc.tuple(fc.constantFrom(...names), fc.oneof({ weight: 4, arbitrary: parameterValue }, { weight: 1, arbitrary: fc.array(parameterValue, { minLength: 2, maxLength: 3 }) })), {
          maxLength: 6,
        }),
        fc.array(fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 40 }).map(String) }, { weight: 1, arbitrary: hostileText }), { minLength: pathParams.length, maxLength: pathParams.length }),
        apiKey,
        fc.constantFrom('query', 'query', 'form', 'json', 'json-raw'),
      )
      .map(([params, pathValues, headers, place]) => {
        let index = 0;
        const path = `/v1.1${op.route.path.replace(/:(\w+)/g, () => encodeURIComponent(wellFormed(pathValues[index++])).slice(0, 2000) || '0')}`;
        const base = { kind: 'rest' as const, target: op.key, method: op.method };
        const search = new URLSearchParams();
        for (const [name, value] of params) for (const item of [value].flat()) search.append(name, item);
        if (place === 'query' || op.method === 'GET') return { ...base, path: `${path}?${search}`, headers };
        if (place === 'form') return { ...base, path, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: String(search) };
        const object = Object.fromEntries(params);
        const body = place === 'json' ? JSON.stringify(object) : JSON.stringify(object).slice(0, -1); // json-raw: cut short, malformed
        return { ...base, path, headers: { ...headers, 'content-type': 'application/json' }, body };
      });
  });
}

/** Bodies and envelopes no client should send. */
function rawRequest(apiKey: fc.Arbitrary<Record<string, string>>, restPaths: string[]): fc.Arbitrary<FuzzRequest> {
  const bodies = fc.oneof(
    fc.constantFrom('{', '{"query":', '[', '[]', 'null', '"text"', '{"query": 1}', '{"query": "{ application { id } }", "variables": "x"}', '{"query": "{", "variables": {}}', '\u0000', ''),
    fc.json(),
    hostileText,
  );
  const contentTypes = fc.constantFrom(
    'application/json',
    'text/plain',
    'application/xml',
    'multipart/form-data',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    'application/graphql',
    'application/json; charset=latin1',
    'garbage/!!',
  );
  return fc
    .tuple(
      fc.constantFrom('/graphql', ...restPaths, '/v1.0/members/active', '/v1.1/no/such/route', '/v1.1/member/1/../../app/info', '/%00', '/v1.1/%E0%A4%A'),
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
      bodies,
      contentTypes,
      apiKey,
    )
    .map(([path, method, body, type, headers]) => ({
      kind: 'raw' as const,
      target: `raw ${method} ${type}`,
      method,
      path,
      headers: { ...headers, 'content-type': type },
      body: method === 'GET' ? undefined : body,
    }));
}

export function fuzzRequests(schema: GraphQLSchema, routes: readonly RestRoute[], apiKeys: string[]): fc.Arbitrary<FuzzRequest> {
  const keys = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...apiKeys).map((key) => ({ 'x-api-key': key })) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: hostileText.map((key) => ({ 'x-api-key': key.slice(0, 200).replace(/[^\x21-\x7e]/g, '') || 'x' })) },
  );
  const restOps = restOperations(schema, routes);
  return fc.oneof(
    { weight: 5, arbitrary: restRequest(restOps, keys) },
    { weight: 4, arbitrary: graphqlRequest(graphqlOperations(schema), keys) },
    {
      weight: 1,
      arbitrary: rawRequest(
        keys,
        restOps.map((op) => `/v1.1${op.route.path.replace(/:\w+/g, '1')}`),
      ),
    },
  );
}

/** What may never appear in a message: a stack frame, a source file, SQL, the database's own words. */
const leaks =
  /\n\s+at |\bat [\w.<>]+ \(|\.(ts|js|mjs):\d+|node_modules|\bselect\b[^.]*\bfrom\b|\binsert into\b|\bupdate\b \w+ \bset\b|\bdelete from\b|syntax error at|relation "|column "|violates|duplicate key|postgres|drizzle|pglite|sqlstate/i;

const restErrorKeys = new Set(['code', 'type', 'message', 'param', 'requestId']);

/** No answer may take longer, hostile input or not; judgeAnswer's problem for one that did starts with `tookPrefix`. */
const slowMs = 2000;
const tookPrefix = 'took ';

/** Every rule an answer must keep; an empty list when it keeps them all. */
export function judgeAnswer(request: FuzzRequest, answer: FuzzAnswer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  if (answer.ms > slowMs) problems.push(`${tookPrefix}${Math.round(answer.ms)} ms`);
  let body: any;
  try {
    body = JSON.parse(answer.body);
  } catch {
    if (answer.status >= 400) problems.push(`a ${answer.status} without a JSON body: ${answer.body.slice(0, 200)}`);
    return problems;
  }
  const messages: string[] = [];
  const graphqlAnswer = request.path.startsWith('/graphql') && !body?.error;
  if (graphqlAnswer) {
    for (const result of [body].flat()) {
      for (const error of result?.errors ?? []) {
        messages.push(String(error.message));
        if (typeof error.extensions?.aeCode !== 'number') problems.push(`a GraphQL error without aeCode: ${JSON.stringify(error).slice(0, 200)}`);
        if (error.extensions?.code === 'INTERNAL' || error.extensions?.aeCode === 20) problems.push(`an internal error: ${error.message}`);
      }
      if (answer.status >= 400 && !result?.errors?.length) problems.push(`a ${answer.status} without errors`);
    }
  } else if (answer.status >= 400) {
    const error = body?.error;
    const shaped =
      error &&
      typeof error === 'object' &&
      Object.keys(body).length === 1 &&
      Object.keys(error).every((key) => restErrorKeys.has(key)) &&
      typeof error.code === 'number' &&
      typeof error.type === 'string' &&
      typeof error.message === 'string' &&
      (error.param === null || typeof error.param === 'string');
    if (!shaped) problems.push(`a ${answer.status} not in the error body: ${answer.body.slice(0, 200)}`);
    if (error?.message) messages.push(String(error.message));
  } else if (body && typeof body === 'object' && !Array.isArray(body) && 'error' in body) {
    problems.push(`a ${answer.status} with an error key`);
  }
  for (const message of messages) if (leaks.test(message)) problems.push(`a message showing internals: ${message.slice(0, 200)}`);
  return problems;
}

export interface FuzzFigures {
  requests: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  /** Answers from the database's own check of a value (SQLSTATE class 22), input the parameter rules missed. */
  databaseRefusals: number;
  slowestMs: number;
  slowest: string;
  p99Ms: number;
  /** Each failure with its request summarised, and whole in `full` (to send again). */
  failures: { request: string; problems: string[]; full: FuzzRequest }[];
  /** Answers slow in the run and fast when sent again alone (see retrySlowAlone). */
  slowRetried: number;
  targets: number;
}

/** Sends each request through `send`, a few at a time, judging every answer. */
export async function runFuzz(requests: FuzzRequest[], send: (request: FuzzRequest) => Promise<FuzzAnswer>, concurrency = 4): Promise<FuzzFigures> {
  const figures: FuzzFigures = {
    requests: 0,
    byKind: {},
    byStatus: {},
    databaseRefusals: 0,
    slowestMs: 0,
    slowest: '',
    p99Ms: 0,
    failures: [],
    slowRetried: 0,
    targets: new Set(requests.map((r) => r.target)).size,
  };
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++];
      const answer = await send(request);
      figures.requests += 1;
      figures.byKind[request.kind] = (figures.byKind[request.kind] ?? 0) + 1;
      figures.byStatus[answer.status] = (figures.byStatus[answer.status] ?? 0) + 1;
      if (/"A parameter is invalid: /.test(answer.body)) figures.databaseRefusals += 1;
      times.push(answer.ms);
      if (answer.ms > figures.slowestMs) {
        figures.slowestMs = Math.round(answer.ms);
        figures.slowest = `${request.method} ${request.path.slice(0, 80)} (${request.target})`;
      }
      const problems = judgeAnswer(request, answer);
      if (problems.length) {
        figures.failures.push({ request: `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers)} ${request.body?.slice(0, 300) ?? ''}`, problems, full: request });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await retrySlowAlone(figures, send);
  times.sort((a, b) => a - b);
  figures.p99Ms = Math.round(times[Math.floor(times.length * 0.99)] ?? 0);
  return figures;
}

/**
 * A request whose only fault was its time is sent again, alone: the suite runs beside files that
 * load both cores (the noisy-neighbour run), and a moment's contention there is not the input's
 * fault. An input that is slow in itself is slow again and stays a failure, with both times.
 */
async function retrySlowAlone(figures: FuzzFigures, send: (request: FuzzRequest) => Promise<FuzzAnswer>) {
  const kept: FuzzFigures['failures'] = [];
  for (const failure of figures.failures) {
    if (!failure.problems.every((problem) => problem.startsWith(tookPrefix))) {
      kept.push(failure);
      continue;
    }
    const again = await send(failure.full);
    if (again.ms > slowMs) kept.push({ ...failure, problems: [...failure.problems, `${tookPrefix}${Math.round(again.ms)} ms again, alone`] });
    else figures.slowRetried += 1;
  }
  figures.failures = kept;
}

/**
 * A sender over real HTTP to a listening gateway. Each request comes from another address (the
 * gateway must trust the proxy header), so the budget of unknown keys per address, which the
 * made-up keys spend in seconds, does not refuse the rest of the run.
 */
export function httpSender(base: string) {
  let sent = 0;
  return async (request: FuzzRequest): Promise<FuzzAnswer> => {
    sent += 1;
    const address = `10.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`;
    const started = performance.now();
    try {
      const response = await fetch(`${base}${request.path}`, { method: request.method, headers: { ...request.headers, 'x-forwarded-for': address }, body: request.body });
      const body = await response.text();
      return { status: response.status, body, ms: performance.now() - started };
    } catch (error) {
      // A refused or reset connection: no answer at all is a failure too.
      return { status: 599, body: `no answer: ${(error as Error).message}`, ms: performance.now() - started };
    }
  };
}
