import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildGateway } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { createNetworkAdapters } from '../../src/modules/networks/registry.js';
import { startTracing, type StartedTracing } from '../../src/tracing.js';
import { startFakeNetworks, type FakeNetworks } from '../support/fake-networks.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * Tracing (docs/observability.md): the spans one request makes, HTTP → operation → SQL and calls
 * to networks (the fake ones of test/support), with an in-memory exporter, on the test database
 * (PGlite, or PostgreSQL with TEST_DATABASE_URL).
 */
const exporter = new InMemorySpanExporter();
const tracingEnv = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
let tracing: StartedTracing;
let t: TestGateway;
let tenant: Tenant;
let fake: FakeNetworks;

const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** The finished spans of the request with this id: its HTTP span, and every span beneath it. */
async function spansOfRequest(requestId: string): Promise<{ http: ReadableSpan; all: ReadableSpan[] }> {
  const http = await vi.waitFor(() => {
    // The server span: the spans of calls to networks name the request too.
    const found = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER && span.attributes['marquee.request_id'] === requestId);
    if (!found) throw new Error(`no span of request ${requestId} yet`);
    return found;
  });
  const all = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === http.spanContext().traceId);
  return { http, all };
}

function childrenOf(parent: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  return spans.filter((span) => parentOf(span) === idOf(parent));
}

beforeAll(async () => {
  const settings = loadConfig(tracingEnv).tracing;
  expect(settings).toBeDefined();
  // Before the database opens: the embedded client is wrapped only when tracing is on.
  tracing = startTracing(settings!, { spanProcessors: [new SimpleSpanProcessor(exporter)] });
  fake = await startFakeNetworks();
  t = await startTestGateway(tracingEnv, undefined, { networks: { baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls, clients: fake.clients } });
  tenant = await t.tenant();
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
  await tracing?.shutdown();
});

describe('tracing on', () => {
  it('a GraphQL request is an HTTP span, its operation beneath, the statements beneath that', async () => {
    const requestId = 'trace-graphql-1';
    const answer = await t.graphql(tenant.apiKey, 'query AppName { application { id name } }', undefined, { headers: { 'x-request-id': requestId } });
    expect(answer.body.errors).toBeUndefined();
    const { http, all } = await spansOfRequest(requestId);
    expect(http.kind).toBe(SpanKind.SERVER);
    expect(http.name).toBe('POST /graphql');
    expect(parentOf(http)).toBeUndefined();
    expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/graphql', 'http.response.status_code': 200, 'url.path': '/graphql' });
    expect(http.attributes['marquee.account_id']).toBe(tenant.accountId);
    expect(http.resource.attributes['service.name']).toBe('marquee');

    const [operation] = childrenOf(http, all).filter((span) => span.attributes['marquee.surface'] === 'graphql');
    expect(operation?.name).toBe('query AppName');
    expect(operation.attributes).toMatchObject({ 'graphql.operation.name': 'AppName', 'graphql.operation.type': 'query' });
    const statements = childrenOf(operation, all);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.kind).toBe(SpanKind.CLIENT);
      expect(statement.attributes['db.system']).toBe('postgresql');
      expect(statement.attributes['db.query.text']).toMatch(/^\s*\(?\s*(select|with|insert|update)/i);
      expect(statement.endTime[0] * 1e9 + statement.endTime[1]).toBeGreaterThanOrEqual(statement.startTime[0] * 1e9 + statement.startTime[1]);
    }
    // Every span of the trace hangs from the request's: nothing escaped into a trace of its own.
    for (const span of all) if (span !== http) expect(all.map(idOf)).toContain(parentOf(span));
  });

  it('the statements of DataLoader batches are children of the operation', async () => {
    const registered = await t.graphql(
      tenant.apiKey,
      'mutation { registerMember(input: { credentials: { network: "email", email: "loaded@tracing.example.com", password: "correct horse" } }) { member { id } } }',
    );
    const memberId = registered.body.data.registerMember.member.id;
    const requestId = 'trace-loaders-1';
    // A window of its own: under their defaults, score and lastActivity are read with the member.
    const answer = await t.graphql(
      tenant.apiKey,
      'query Loaded($id: ID!) { member(lookup: { id: $id }) { id services { network valid } score(window: { period: { amount: 2, unit: WEEK } }) { points activityCount } lastActivity(window: { period: { amount: 2, unit: WEEK } }) { id } } }',
      { id: memberId },
      { headers: { 'x-request-id': requestId } },
    );
    expect(answer.body.errors).toBeUndefined();
    const { http, all } = await spansOfRequest(requestId);
    const [operation] = childrenOf(http, all);
    expect(operation.name).toBe('query Loaded');
    const statements = all.filter((span) => span.attributes['db.system'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(1);
    for (const statement of statements) expect(parentOf(statement)).toBe(idOf(operation));
  });

  it('a REST request is an HTTP span with the route’s operation beneath it, and its statements beneath that', async () => {
    const requestId = 'trace-rest-1';
    const answer = await t.rest(tenant, 'GET', '/app/info', {}, { headers: { 'x-request-id': requestId } });
    expect(answer.status).toBe(200);
    const { http, all } = await spansOfRequest(requestId);
    expect(http.name).toBe('GET /v1.1/app/info');
    expect(http.attributes['http.route']).toBe('/v1.1/app/info');
    // The key in the query string stays out of the span.
    expect(JSON.stringify(http.attributes)).not.toContain(tenant.apiKey);
    const operations = childrenOf(http, all).filter((span) => span.attributes['marquee.surface'] === 'rest');
    expect(operations).toHaveLength(1);
    expect(operations[0].attributes['graphql.operation.type']).toBe('query');
    const statements = childrenOf(operations[0], all);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every((span) => span.attributes['db.system'] === 'postgresql')).toBe(true);
  });

  it('an error answered by a REST route is on its operation span by code', async () => {
    const requestId = 'trace-rest-404';
    const answer = await t.rest(tenant, 'GET', '/member/999999999', {}, { headers: { 'x-request-id': requestId } });
    expect(answer.status).toBe(404);
    const { http, all } = await spansOfRequest(requestId);
    expect(http.attributes['http.response.status_code']).toBe(404);
    const [operation] = childrenOf(http, all).filter((span) => span.attributes['marquee.surface'] === 'rest');
    expect(operation.attributes['marquee.error_codes']).toEqual(['NOT_FOUND']);
  });

  it('GraphQL errors are on the operation span by code', async () => {
    const requestId = 'trace-graphql-invalid';
    await t.graphql(tenant.apiKey, 'query Broken { nope }', undefined, { headers: { 'x-request-id': requestId } });
    const { http, all } = await spansOfRequest(requestId);
    const [operation] = childrenOf(http, all);
    expect(operation.attributes['marquee.error_codes']).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(operation.status.code).toBe(2);
  });

  it('leaves the probes and the scrape untraced', async () => {
    const before = exporter.getFinishedSpans().length;
    for (const url of ['/healthz', '/readyz', '/metrics']) expect((await t.request({ url, headers: { 'x-request-id': `probe-${url.slice(1)}` } })).statusCode).toBe(200);
    await t.rest(tenant, 'GET', '/app/info', {}, { headers: { 'x-request-id': 'after-probes' } });
    await spansOfRequest('after-probes');
    const spans = exporter.getFinishedSpans().slice(before);
    expect(spans.some((span) => String(span.attributes['marquee.request_id']).startsWith('probe-'))).toBe(false);
    // /readyz pings the database: no statement span either, as no trace is current.
    expect(spans.filter((span) => span.attributes['db.query.text'] === 'select 1')).toHaveLength(0);
  });

  it('continues the trace of an incoming traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const requestId = 'trace-parent-1';
    await t.graphql(tenant.apiKey, '{ application { id } }', undefined, { headers: { 'x-request-id': requestId, traceparent: `00-${traceId}-${parentId}-01` } });
    const { http, all } = await spansOfRequest(requestId);
    expect(http.spanContext().traceId).toBe(traceId);
    expect(parentOf(http)).toBe(parentId);
    expect(all.length).toBeGreaterThan(2);
  });

  it('records no parameter values: a password and an email sent through mutations appear in no span', async () => {
    const email = 'secret.fan@tracing.example.com';
    const password = 'hunter2-very-secret-password';
    const graphqlId = 'trace-secret-graphql';
    const registered = await t.graphql(
      tenant.apiKey,
      'mutation Register($email: String!, $password: String!) { registerMember(input: { credentials: { network: "email", email: $email, password: $password } }) { created } }',
      { email, password },
      { headers: { 'x-request-id': graphqlId } },
    );
    expect(registered.body.errors).toBeUndefined();
    // Literals in the document too, and the REST form, where they arrive as parameters.
    const literalId = 'trace-secret-literal';
    await t.graphql(tenant.apiKey, `mutation { registerMember(input: { credentials: { network: "email", email: "literal-${email}", password: "${password}" } }) { created } }`, undefined, {
      headers: { 'x-request-id': literalId },
    });
    const restId = 'trace-secret-rest';
    const rest = await t.rest(tenant, 'POST', '/member/register', { service: 'email', email: `rest-${email}`, password }, { headers: { 'x-request-id': restId } });
    expect(rest.status).toBe(200);
    for (const id of [graphqlId, literalId, restId]) {
      const { all } = await spansOfRequest(id);
      expect(
        all.some((span) => span.attributes['db.operation.name'] === 'INSERT'),
        id,
      ).toBe(true);
      const recorded = JSON.stringify(all.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })));
      expect(recorded).not.toContain(password);
      expect(recorded).not.toContain('secret.fan');
    }
  });

  it('log lines written inside a request carry its trace and span ids', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    const logger = createLogger({ logLevel: 'info', tracing: loadConfig(tracingEnv).tracing }, destination);
    const span = trace.getTracer('test').startSpan('work');
    context.with(trace.setSpan(context.active(), span), () => logger.info('inside'));
    span.end();
    logger.info('outside');
    const [inside, outside] = lines.map((line) => JSON.parse(line));
    expect(inside).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    expect(outside.trace_id).toBeUndefined();
  });

  it('the log lines of a request carry the trace of its span, the completed request’s line too (not the incoming one)', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(JSON.parse(String(chunk)));
        callback();
      },
    });
    const logger = createLogger({ logLevel: 'info', tracing: t.config.tracing }, destination);
    const logged = await buildGateway({ config: t.config, database: t.database, logger, networks: {} });
    try {
      const requestId = 'trace-logged-1';
      const answer = await logged.app.inject({ method: 'GET', url: `/v1.1/app/info?apiKey=${tenant.apiKey}`, headers: { 'x-request-id': requestId } });
      expect(answer.statusCode).toBe(200);
      const { http } = await spansOfRequest(requestId);
      const ofRequest = await vi.waitFor(() => {
        const found = lines.filter((line) => line.reqId === requestId);
        if (!found.some((line) => line.msg === 'request completed')) throw new Error('not completed yet');
        return found;
      });
      // Fastify logs `incoming request` before the first hook, so before the span: its reqId is the span's marquee.request_id.
      const traced = ofRequest.filter((line) => line.msg !== 'incoming request');
      expect(traced.map((line) => line.msg)).toContain('request completed');
      for (const line of traced) expect(line, String(line.msg)).toMatchObject({ trace_id: http.spanContext().traceId });
    } finally {
      await logged.close();
    }
  });

  it('a call to a network is a client span beneath the request’s, with no token, secret or address in it', async () => {
    // An application that has each network token checked with its network.
    const verifying = await t.tenant();
    const switched = await t.graphql(verifying.apiKey, 'mutation { setNetworkVerification(mode: VERIFY) { networkVerification } }');
    expect(switched.body.errors).toBeUndefined();
    const secrets = ['deezer-access-token-1', 'spotify-access-token-1', 'spotify-refresh-token-1', 'forged-spotify-token', 'forged-deezer-token'];
    const email = 'network.fan@tracing.example.com';
    fake.addUser({ network: 'deezer', uid: '7001', token: secrets[0], username: 'Deezer Fan', email });
    fake.addUser({ network: 'spotify', uid: 'sp-traced', token: secrets[1], refreshToken: secrets[2], email });

    // Verify: Deezer takes the token in the query string.
    const registered = await t.rest(verifying, 'POST', '/member/register', { service: 'deezer', authtoken: secrets[0], uid: '7001' }, { headers: { 'x-request-id': 'trace-network-verify' } });
    expect(registered.status).toBe(200);
    const verify = await spansOfRequest('trace-network-verify');
    const [operation] = childrenOf(verify.http, verify.all).filter((span) => span.attributes['marquee.surface'] === 'rest');
    const calls = verify.all.filter((span) => span.attributes['marquee.network.id'] !== undefined);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    // Beneath the route's operation, which is beneath the request's span.
    expect(parentOf(call)).toBe(idOf(operation));
    expect(parentOf(operation)).toBe(idOf(verify.http));
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(call.name).toBe('GET');
    const port = Number(new URL(fake.url).port);
    expect(call.attributes).toEqual({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': port,
      'url.full': `${fake.url}/deezer/user/me`,
      'http.response.status_code': 200,
      'marquee.network.id': 'deezer',
      'marquee.network.operation': 'verify',
      'marquee.request_id': 'trace-network-verify',
    });
    expect(call.status.code).toBe(0);

    // Refresh: a POST to the token endpoint, the refresh token in its form.
    const [envelope] = (await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: secrets[1], authsecret: secrets[2], uid: 'sp-traced' })).json;
    const refreshed = await t.rest(verifying, 'POST', `/member/${envelope.data.ID}/refresh`, { service: 'spotify' }, { headers: { 'x-request-id': 'trace-network-refresh' } });
    expect(refreshed.status).toBe(200);
    const refresh = await spansOfRequest('trace-network-refresh');
    const [refreshCall] = refresh.all.filter((span) => span.attributes['marquee.network.id'] === 'spotify');
    expect(refreshCall.name).toBe('POST');
    expect(refreshCall.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.full': `${fake.url}/spotify/token`,
      'http.response.status_code': 200,
      'marquee.network.operation': 'refresh',
      'marquee.request_id': 'trace-network-refresh',
    });
    expect(refresh.all.map(idOf)).toContain(parentOf(refreshCall));

    // Refused: by status (Spotify's 401), and in a 200 (Deezer's way).
    await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: secrets[3], uid: 'sp-traced' }, { headers: { 'x-request-id': 'trace-network-refused' } });
    const refused = await spansOfRequest('trace-network-refused');
    const [refusedCall] = refused.all.filter((span) => span.attributes['marquee.network.id'] === 'spotify');
    expect(refusedCall.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': '401', 'marquee.network.failure': 'invalid_credentials' });
    expect(refusedCall.status.code).toBe(2);
    await t.rest(verifying, 'POST', '/member/register', { service: 'deezer', authtoken: secrets[4], uid: '7001' }, { headers: { 'x-request-id': 'trace-network-refused-200' } });
    const refused200 = await spansOfRequest('trace-network-refused-200');
    const [refused200Call] = refused200.all.filter((span) => span.attributes['marquee.network.id'] === 'deezer');
    expect(refused200Call.attributes).toMatchObject({ 'http.response.status_code': 200, 'error.type': 'invalid_credentials', 'marquee.network.failure': 'invalid_credentials' });
    expect(refused200Call.status.code).toBe(2);

    // Unreachable: an answer of 503, and no answer at all.
    fake.failWith('spotify', 503);
    try {
      await t.rest(verifying, 'POST', `/member/${envelope.data.ID}/refresh`, { service: 'spotify' }, { headers: { 'x-request-id': 'trace-network-503' } });
    } finally {
      fake.failWith('spotify', undefined);
    }
    const outage = await spansOfRequest('trace-network-503');
    const [outageCall] = outage.all.filter((span) => span.attributes['marquee.network.id'] === 'spotify');
    expect(outageCall.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503', 'marquee.network.failure': 'unreachable' });

    for (const { all } of [verify, refresh, refused, refused200, outage]) {
      const recorded = JSON.stringify(all.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })));
      for (const secret of secrets) expect(recorded).not.toContain(secret);
      expect(recorded).not.toContain('network.fan');
      expect(recorded).not.toContain('client-secret');
    }
  });

  it('a network that does not answer: the span says why, with no status; outside a request, it has no request id', async () => {
    // A port nothing listens on (not one fetch refuses to call, like 9).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const adapter = createNetworkAdapters({ baseUrls: { deezer: `http://127.0.0.1:${port}` } }).get('deezer')!;
    const error = await adapter.verify({ token: 'unsent-token', uid: '7002' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'unreachable' });
    const [call] = exporter.getFinishedSpans().filter((span) => span.attributes['url.full'] === `http://127.0.0.1:${port}/user/me`);
    expect(call.attributes['http.response.status_code']).toBeUndefined();
    expect(call.attributes['marquee.request_id']).toBeUndefined();
    expect(call.attributes).toMatchObject({
      'server.port': port,
      'error.type': 'ECONNREFUSED',
      'marquee.network.id': 'deezer',
      'marquee.network.operation': 'verify',
      'marquee.network.failure': 'unreachable',
    });
    expect(call.status.code).toBe(2);
    expect(JSON.stringify(call.attributes)).not.toContain('unsent-token');
  });
});

describe('tracing off', () => {
  it('makes no span, even with a tracer provider registered in the process', async () => {
    await tracing.shutdown();
    const other = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(other)] });
    provider.register();
    const off = await startTestGateway();
    try {
      expect(off.config.tracing).toBeUndefined();
      const offTenant = await off.tenant();
      await off.graphql(offTenant.apiKey, 'query AppName { application { id name } }');
      await off.rest(offTenant, 'GET', '/app/info');
      await off.rest(offTenant, 'POST', '/member/register', { service: 'email', email: 'off@tracing.example.com', password: 'correct horse' });
      expect(other.getFinishedSpans()).toHaveLength(0);
      expect(exporter.getFinishedSpans().filter((span) => span.attributes['marquee.request_id'] === undefined && span.name === 'POST /graphql')).toHaveLength(0);
    } finally {
      await off.close();
      await provider.shutdown();
    }
  });
});
