import { Writable } from 'node:stream';
import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { members, memberServices } from '../../src/db/schema/index.js';
import { buildGateway, type Gateway } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { createApplicationKey, createGlobalKey } from '../../src/modules/tenancy/tenancy.service.js';
import { issueSignInToken } from '../../src/modules/widget/widget.service.js';
import { startFakeNetworks, type FakeNetworks } from '../support/fake-networks.js';
import { startTestGateway, testMetricsToken, testSecretKey, type Tenant, type TestGateway } from '../support/gateway.js';
import * as calls from '../support/rest.js';

/**
 * A full run of what handles secrets (registration and login with passwords, network links with
 * tokens and their refresh, API keys, sign-in tokens and their exchange, a sign-in network's client
 * secret, failures on the way), with every response body, every log line at the most verbose level
 * and /metrics kept. Then each secret is searched for everywhere it must not be: 0 found.
 *
 * Where the interface hands a secret to the application that owns it (a member's access token, a
 * network link's token and refresh token, the member JWT), it is allowed in exactly those fields of
 * that application's answers, and the scan removes those fields first; nowhere else, and never in
 * the log or the metrics.
 */
let t: TestGateway;
let fake: FakeNetworks;
let gateway: Gateway;
let tenant: Tenant;
const lines: string[] = [];
const responses: string[] = [];
/** Secrets that may appear nowhere; and those an owner's answer may carry in its own fields. */
const forbidden = new Map<string, string>();
const ownersOnly = new Map<string, string>();

/** Fields in which an answer hands the owner a secret on purpose. */
const ownerFields = new Set(['accessToken', 'AccessToken', 'token', 'Token', 'tokenSecret', 'TokenSecret', 'jwt', 'Jwt', 'JWT']);

beforeAll(async () => {
  fake = await startFakeNetworks();
  t = await startTestGateway();
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'trace', USAGE_FLUSH_SECONDS: '3600', SECRET_KEY: testSecretKey, METRICS_TOKEN: testMetricsToken });
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  gateway = await buildGateway({ config, database: t.database, logger: createLogger(config, sink), networks: { baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls } });
  tenant = await t.tenant('enterprise');
  forbidden.set(tenant.apiKey, 'API key');
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await t?.close();
  await fake?.close();
});

/** A /v1.1 call to the production gateway with the tenant's key in the header; its answer is kept for the scan. */
async function call(method: calls.RestMethod, path: string, params: calls.RestParams = {}, options: calls.RestOptions = {}) {
  const answer = await calls.rest(gateway, tenant, method, path, params, { key: 'header', ...options });
  responses.push(answer.body);
  return answer;
}
/** A GraphQL operation to the production gateway with the tenant's key; its answer is kept for the scan. */
async function graphql(query: string, variables: Record<string, unknown> = {}) {
  const answer = await calls.graphql(gateway, tenant.apiKey, query, variables);
  responses.push(answer.text);
  return answer.body;
}

/** Adds what an answer hands the owner to the owner-only secrets. */
function collectOwned(body: unknown) {
  const walk = (node: unknown, key?: string) => {
    if (typeof node === 'string' && key && ownerFields.has(key) && node.length >= 8) ownersOnly.set(node, key);
    else if (Array.isArray(node)) node.forEach((item) => walk(item, key));
    else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, k);
  };
  walk(body);
}

/** The answer with the owner's own secret fields taken out. */
function withoutOwnerFields(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), (key, value) => (ownerFields.has(key) ? '[owner field]' : value));
  } catch {
    return body;
  }
}

describe('secrets in a full run', () => {
  it('runs the scenario', async () => {
    const passwords = ['first-Pa55word-secret', 'second-Pa55word-secret', 'wrong-Pa55word-secret', 'reset-Pa55word-secret'];
    passwords.forEach((password) => forbidden.set(password, 'password'));

    // Registration and login, over both interfaces, with failures on the way.
    const registered = (await call('POST', '/member/register', { service: 'email', email: 'secret-one@example.com', password: passwords[0] })).json;
    collectOwned(registered);
    const memberId = registered[0].data.ID as string;
    const overGraphql = await graphql('mutation ($input: RegisterMemberInput!) { registerMember(input: $input) { jwt member { id accessToken services { id token } } } }', {
      input: { credentials: { network: 'email', email: 'secret-two@example.com', password: passwords[1] } },
    });
    collectOwned(overGraphql);
    await call('POST', '/member/login', {}, { payload: { service: 'email', email: 'secret-one@example.com', password: passwords[0] } }).then((r) => collectOwned(r.json));
    expect((await call('POST', '/member/login', {}, { payload: { service: 'email', email: 'secret-one@example.com', password: passwords[2] } })).status).toBe(401);
    await call('POST', '/member/register', { service: 'email', email: 'secret-one@example.com', password: passwords[2] });
    // A value the database refuses, in a call carrying a password: the failed statement must not reach the log with it.
    await graphql('mutation ($input: RegisterMemberInput!) { registerMember(input: $input) { member { id } } }', {
      input: { credentials: { network: 'email', email: 'secret-three@example.com', password: passwords[1] }, profile: { firstName: 'nul\u0000name' } },
    });
    const emailService = registered[0].services[0].ID ?? registered[0].services[0].Id;
    await call('POST', `/member/${memberId}/reset`, {}, { payload: { email: 'secret-one@example.com', password: passwords[3], member_service_id: String(emailService) } }).then((r) => collectOwned(r.json));

    // A network link with its tokens, then a refresh through the network.
    fake.addUser({ network: 'spotify', uid: 'secret-uid', token: 'spotify-access-token-secret-1', refreshToken: 'spotify-refresh-token-secret-1' });
    ['spotify-access-token-secret-1', 'spotify-refresh-token-secret-1'].forEach((token) => ownersOnly.set(token, 'network token'));
    const linked = await call(
      'POST',
      `/member/${memberId}/register`,
      {},
      { payload: { service: 'spotify', authtoken: 'spotify-access-token-secret-1', authsecret: 'spotify-refresh-token-secret-1', uid: 'secret-uid' } },
    );
    expect(linked.status, linked.body).toBe(200);
    collectOwned(linked.json);
    const refreshed = await call('POST', `/member/${memberId}/refresh`, {}, { payload: { service: 'spotify' } });
    expect(refreshed.status, refreshed.body).toBe(200);
    collectOwned(refreshed.json);
    await call('GET', `/member/${memberId}`).then((r) => collectOwned(r.json));
    await graphql('query ($id: ID!) { member(lookup: { id: $id }) { id email services { network username } } }', { id: memberId });

    // API keys: another application key and a global key, used once each; a made-up key refused.
    const second = await createApplicationKey(t.database.db, tenant.applicationId);
    const global = await createGlobalKey(t.database.db, tenant.accountId);
    forbidden.set(second.apiKey, 'API key');
    forbidden.set(global.apiKey, 'API key');
    await call('GET', '/app/info', {}, { headers: { 'x-api-key': second.apiKey } });
    await call('GET', `/account/usage?interval=day&start_date=2026-01-01&period=1%20day&apikey=${global.apiKey}`, {}, { headers: { 'x-api-key': '' } });
    await call('GET', '/app/info', {}, { headers: { 'x-api-key': 'mq_made-up-key-secret-0000' } });

    // Sign-in tokens: one exchanged by REST, one by GraphQL, one spent twice, one from the query string.
    const app = { accountId: tenant.accountId, applicationId: tenant.applicationId };
    // Under the member's generation now (the reset above raised it).
    const [signedIn] = await t.database.db
      .select({ id: members.id, sessionGeneration: members.sessionGeneration })
      .from(members)
      .where(eq(members.id, Number(memberId)));
    const tokens = await Promise.all([1, 2, 3].map(() => issueSignInToken(t.database.db, app, signedIn)));
    tokens.forEach((token) => forbidden.set(token, 'sign-in token'));
    await call('POST', '/auth', {}, { payload: { accessToken: tokens[0] } }).then((r) => collectOwned(r.json));
    await graphql('mutation ($token: String!) { exchangeSignInToken(accessToken: $token) { id } }', { token: tokens[1] });
    await graphql('mutation ($token: String!) { exchangeSignInToken(accessToken: $token) { id } }', { token: tokens[1] });
    await call('GET', '/auth', { accesstoken: tokens[2] }).then((r) => collectOwned(r.json));

    // A sign-in network's client secret.
    forbidden.set('provider-client-secret-value', 'client secret');
    await graphql('mutation ($input: SignInNetworkInput!) { configureSignInNetwork(input: $input) { id } }', {
      input: {
        network: 'google',
        clientId: 'client-1',
        clientSecret: 'provider-client-secret-value',
        issuer: 'https://accounts.example.test',
        authorizationEndpoint: 'https://accounts.example.test/authorize',
        tokenEndpoint: 'https://accounts.example.test/token',
        userinfoEndpoint: 'https://accounts.example.test/userinfo',
      },
    });
    await graphql('{ application { id name signInLinks { network url } } }');

    // The password hashes as stored, and the usage flushed, then the metrics.
    const hashes = await t.database.db
      .select({ hash: memberServices.passwordHash })
      .from(memberServices)
      .where(and(eq(memberServices.accountId, tenant.accountId), isNotNull(memberServices.passwordHash)));
    expect(hashes.length).toBeGreaterThanOrEqual(2);
    hashes.forEach(({ hash }) => forbidden.set(hash!, 'password hash'));
    await gateway.meter.flush();
    const metricsText = (await gateway.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${testMetricsToken}` } })).body;
    expect(metricsText).toContain('marquee_');
    responses.push(metricsText);
    expect(responses.length).toBeGreaterThan(20);
    expect(lines.length).toBeGreaterThan(20);
  }, 60_000);

  it('finds no secret in any answer outside the owner fields, and none at all in the log or the metrics', () => {
    const found: string[] = [];
    const log = lines.join('\n');
    const answers = responses.map(withoutOwnerFields).join('\n');
    for (const [secret, what] of forbidden) {
      if (log.includes(secret)) found.push(`${what} in the log`);
      if (answers.includes(secret)) found.push(`${what} in an answer`);
    }
    for (const [secret, what] of ownersOnly) {
      if (log.includes(secret)) found.push(`${what} in the log`);
      if (answers.includes(secret)) found.push(`${what} in an answer outside its field`);
    }
    // Anything shaped like a hash or a key, even one this run did not make.
    if (/\$argon2(id|i|d)\$/.test(log + answers)) found.push('an argon2 hash');
    if (/mq_[A-Za-z0-9_-]{20,}/.test(log + answers)) found.push('an API key');
    console.info(
      `secrets scan: ${forbidden.size + ownersOnly.size} secrets searched in ${responses.length} answers (${Math.round(answers.length / 1024)} KB) and ${lines.length} log lines (${Math.round(log.length / 1024)} KB); found ${found.length}`,
    );
    expect(found).toEqual([]);
  });
});
