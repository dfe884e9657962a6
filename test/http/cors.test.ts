import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { listWhitelist } from '../../src/modules/tenancy/tenancy.queries.js';
import { insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { whitelist } from '../widget/support.js';

/**
 * Cross-origin calls to /graphql and /v1.1: preflights answered, the request that follows allowed
 * for the application's whitelisted domains or CORS_ORIGINS, refused (code 16) otherwise.
 */
const fansSite = 'https://fans.example.com';
const otherSite = 'https://elsewhere.example.org';
const globalSite = 'https://console.example.net';

let t: TestGateway;
let tenant: Tenant;
let other: Tenant;
let jwt: string;

const whitelistOf = (target: Tenant) => listWhitelist(t.database.db, target.accountId, target.applicationId);

function viewer(origin: string | undefined, token = jwt) {
  return t.request({
    method: 'POST',
    url: '/graphql',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    payload: { query: '{ viewer { id } }' },
  });
}

describe('CORS on the API', () => {
  beforeAll(async () => {
    t = await startTestGateway({ CORS_ORIGINS: `${globalSite}, https://*.partners.example.net` });
    tenant = await t.tenant();
    other = await t.tenant();
    await whitelist(t, tenant, 'fans.example.com');
    // Another tenant trusting a site does not let that site call with this tenant's credentials.
    await whitelist(t, other, 'elsewhere.example.org');
    const [memberId] = await insertMembers(t, tenant, [{}]);
    const shown = await t.rest(tenant, 'GET', `/member/${memberId}`);
    expect(shown.status, shown.body).toBe(200);
    jwt = shown.json.jwt;
  });
  afterAll(async () => t?.close());

  it('answers the preflight of /graphql and /v1.1 for another origin, before Apollo', async () => {
    for (const url of ['/graphql', '/v1.1/app/info']) {
      const response = await t.request({
        method: 'OPTIONS',
        url,
        headers: { origin: fansSite, 'access-control-request-method': 'POST', 'access-control-request-headers': 'Authorization, Content-Type, x-api-key' },
      });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(fansSite);
      expect(response.headers['access-control-allow-methods']).toContain('POST');
      expect(response.headers['access-control-allow-headers']).toBe('authorization, content-type, x-api-key');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(response.headers.vary)).toContain('Origin');
    }
  });

  it("lets a member's front end on a whitelisted domain query viewer, and refuses another origin before running it", async () => {
    const allowed = await viewer(fansSite);
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.json().data.viewer.id).toBeTruthy();
    expect(allowed.headers['access-control-allow-origin']).toBe(fansSite);
    expect(allowed.headers['access-control-expose-headers']).toContain('x-request-id');

    // Whitelisted by another tenant only: refused for this one.
    const refused = await viewer(otherSite);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().errors[0].extensions).toMatchObject({ code: 'DOMAIN_NOT_WHITELISTED', aeCode: 16 });
    expect(refused.json().errors[0].message).toContain('CORS_ORIGINS');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a REST write from an origin not allowed, and writes nothing', async () => {
    const before = await whitelistOf(tenant);
    const refused = await t.request({
      method: 'POST',
      url: '/v1.1/app/whitelist',
      headers: { 'x-api-key': tenant.apiKey, origin: 'https://attacker.example.com' },
      payload: { domain: 'attacker.example.com' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe(16);
    expect(refused.json().error.param).toBe('origin');
    expect(await whitelistOf(tenant)).toEqual(before);
    // A made-up origin string is refused the same way.
    const garbage = await t.request({ url: '/v1.1/app/info', headers: { 'x-api-key': tenant.apiKey, origin: 'null' } });
    expect(garbage.statusCode).toBe(403);
  });

  it('allows CORS_ORIGINS for every application, errors included, and its subdomain patterns', async () => {
    const answer = await t.rest(tenant, 'GET', '/app/info', {}, { key: 'header', headers: { origin: globalSite } });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(globalSite);
    const otherTenant = await t.rest(other, 'GET', '/app/info', {}, { key: 'header', headers: { origin: 'https://a.partners.example.net' } });
    expect(otherTenant.status, otherTenant.body).toBe(200);
    expect(otherTenant.headers['access-control-allow-origin']).toBe('https://a.partners.example.net');
    // The pattern is for subdomains only, not the domain itself nor a look-alike.
    for (const origin of ['https://partners.example.net', 'https://apartners.example.net', 'http://a.partners.example.net']) {
      const refused = await t.rest(tenant, 'GET', '/app/info', {}, { key: 'header', headers: { origin } });
      expect(refused.status, origin).toBe(403);
    }
    // A page allowed globally can read why its call failed.
    const unknownKey = await t.rest({ apiKey: 'not-a-key' }, 'GET', '/app/info', {}, { key: 'header', headers: { origin: globalSite } });
    expect(unknownKey.status).toBe(401);
    expect(unknownKey.headers['access-control-allow-origin']).toBe(globalSite);
  });

  it('leaves calls without an Origin and same-origin calls as they were', async () => {
    const serverToServer = await viewer(undefined);
    expect(serverToServer.statusCode).toBe(200);
    expect(serverToServer.headers['access-control-allow-origin']).toBeUndefined();
    const sameOrigin = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: { host: 'gateway.example.com', origin: 'https://gateway.example.com', 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      payload: { query: '{ application { name } }' },
    });
    expect(sameOrigin.statusCode, sameOrigin.body).toBe(200);
    expect(sameOrigin.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("keeps Apollo's CSRF prevention for simple requests, from an allowed origin too", async () => {
    const simple = await t.request({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('{ application { name } }')}`,
      headers: { 'x-api-key': tenant.apiKey, origin: globalSite },
    });
    expect(simple.statusCode).toBe(400);
    expect(simple.body).toContain('CSRF');
  });

  it('refuses a malformed CORS_ORIGINS at start, naming the variable', () => {
    for (const value of ['fans.example.com', 'https://fans.example.com/path', 'ftp://fans.example.com']) {
      expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS/);
    }
    expect(loadConfig({ CORS_ORIGINS: 'https://Fans.example.com/, *' }).corsOrigins).toEqual(['https://fans.example.com', '*']);
  });
});
