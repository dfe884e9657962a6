import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWhitelist } from '../../src/modules/tenancy/tenancy.service.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
let tenant: Tenant;
let other: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('advanced');
  other = await t.tenant('advanced');
});
afterAll(() => t.close());

/** A POST with the key in the x-api-key header and the parameters in a JSON body. */
const post = (caller: Tenant, path: string, payload: Record<string, string>) => t.rest(caller, 'POST', path, {}, { key: 'header', payload });

describe('GET /v1.1/app/info', () => {
  it('describes the calling application', async () => {
    const response = await t.rest(tenant, 'GET', '/app/info', {}, { key: 'header' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      ID: String(tenant.applicationId),
      AccountID: String(tenant.accountId),
      Name: expect.any(String),
      Plan: 'advanced',
      Created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      Whitelist: [],
      LoginURL: expect.stringMatching(new RegExp(`/framework/flow/${tenant.applicationId}/login$`)),
      RegisterURL: expect.stringMatching(new RegExp(`/framework/flow/${tenant.applicationId}/register$`)),
      LogoutURL: expect.stringMatching(new RegExp(`/framework/flow/${tenant.applicationId}/logout$`)),
      Widget: { URL: expect.stringMatching(new RegExp(`/framework/js/${tenant.applicationId}$`)) },
      Urls: [{ Name: 'Email', URL: expect.stringMatching(/\/login$/) }],
    });
  });
});

describe('POST /v1.1/app/whitelist and /unwhitelist', () => {
  it('adds a domain once, normalised from a URL, and removes it', async () => {
    const added = await post(tenant, '/app/whitelist', { domain: 'https://Fans.Example.com/landing' });
    expect(added.status).toBe(200);
    expect(added.json).toEqual({ ID: String(tenant.applicationId), Whitelist: ['fans.example.com'] });
    expect((await post(tenant, '/app/whitelist', { domain: 'fans.example.com' })).json.Whitelist).toEqual(['fans.example.com']);

    const removed = await post(tenant, '/app/unwhitelist', { domain: 'fans.example.com' });
    expect(removed.json).toEqual({ ID: String(tenant.applicationId), Whitelist: [] });
  });

  it('refuses a value that is not a domain, writing nothing', async () => {
    for (const domain of ['not a domain', 'http://', '']) {
      const response = await post(tenant, '/app/whitelist', { domain });
      expect(response.status, domain).toBe(400);
      expect(response.json.error).toMatchObject({ param: 'domain' });
    }
    expect(await listWhitelist(t.database.db, tenant.accountId, tenant.applicationId)).toEqual([]);
  });

  it('is not found for a domain that is not whitelisted', async () => {
    const response = await post(tenant, '/app/unwhitelist', { domain: 'never.example.com' });
    expect(response.status).toBe(404);
    expect(response.json.error).toMatchObject({ code: 5, param: 'domain' });
  });

  it('never touches another application: its domains stay, and are invisible', async () => {
    await post(other, '/app/whitelist', { domain: 'theirs.example.com' });
    const attempt = await post(tenant, '/app/unwhitelist', { domain: 'theirs.example.com' });
    expect(attempt.json.error.code).toBe(5);
    expect((await t.rest(tenant, 'GET', '/app/info', {}, { key: 'header' })).json.Whitelist).toEqual([]);
    expect(await listWhitelist(t.database.db, other.accountId, other.applicationId)).toEqual(['theirs.example.com']);
  });

  it('has GraphQL equivalents', async () => {
    const { body } = await t.graphql(tenant.apiKey, 'mutation { whitelistDomain(domain: "shop.example.org") { id whitelist } }');
    expect(body).toEqual({ data: { whitelistDomain: { id: String(tenant.applicationId), whitelist: ['shop.example.org'] } } });
    const removed = await t.graphql(tenant.apiKey, 'mutation { unwhitelistDomain(domain: "shop.example.org") { whitelist } }');
    expect(removed.body.data.unwhitelistDomain.whitelist).toEqual([]);
  });
});
