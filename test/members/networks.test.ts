import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applications } from '../../src/db/schema/index.js';
import { clearKeyCache } from '../../src/modules/tenancy/tenancy.service.js';
import { startFakeNetworks } from '../support/fake-networks.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
let fake: Awaited<ReturnType<typeof startFakeNetworks>>;
let verifying: Tenant;
let trusting: Tenant;

beforeAll(async () => {
  fake = await startFakeNetworks();
  t = await startTestGateway({}, undefined, { networks: { baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls } });
  verifying = await t.tenant('advanced');
  trusting = await t.tenant('advanced');
  await t.database.db
    .update(applications)
    .set({ settings: { networkVerification: 'verify' } })
    .where(eq(applications.id, verifying.applicationId));
  clearKeyCache();
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

describe('network verification per application', () => {
  it('with verify, checks the token with the network and keeps what it says', async () => {
    fake.addUser({ network: 'spotify', uid: 'sp-verified', token: 'good', refreshToken: 'r1', username: 'DJ Fan', paid: true, followers: 7 });
    const ok = await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: 'good', authsecret: 'r1', uid: 'sp-verified' });
    expect(ok.status).toBe(200);
    expect(ok.json[0].services[0]).toMatchObject({ Username: 'DJ Fan', PaidAccount: '1', Followers: '7' });

    const forged = await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: 'forged', uid: 'sp-other' });
    expect(forged.json.error).toMatchObject({ code: 4, param: 'authtoken' });
    const stolen = await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: 'good', uid: 'sp-other' });
    expect(stolen.json.error).toMatchObject({ code: 4, param: 'uid' });

    const badLogin = await t.rest(verifying, 'POST', '/member/login', { service: 'spotify', authtoken: 'forged', uid: 'sp-verified' });
    expect(badLogin.json.error).toMatchObject({ code: 18 });
    expect((await t.rest(verifying, 'POST', '/member/login', { service: 'spotify', authtoken: 'good', uid: 'sp-verified' })).status).toBe(200);
  });

  it('by default, trusts the calling application', async () => {
    const response = await t.rest(trusting, 'POST', '/member/register', { service: 'spotify', authtoken: 'anything', uid: 'sp-trusted' });
    expect(response.status).toBe(200);
  });

  it('with verify, a repeat registration proving a new token renews the stored one; under trust it never does', async () => {
    fake.addUser({ network: 'spotify', uid: 'sp-renewed', token: 'first-good', refreshToken: 'r1' });
    fake.addUser({ network: 'spotify', uid: 'sp-renewed', token: 'second-good', refreshToken: 'r2' });
    const first = await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: 'first-good', authsecret: 'r1', uid: 'sp-renewed' });
    expect(first.json[0].services[0]).toMatchObject({ Token: 'first-good' });
    const forged = await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: 'forged', uid: 'sp-renewed' });
    expect(forged.json.error).toMatchObject({ code: 4, param: 'authtoken' });
    const renewed = await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: 'second-good', authsecret: 'r2', uid: 'sp-renewed' });
    expect(renewed.json[0].data.ID).toBe(first.json[0].data.ID);
    expect(renewed.json[0].services[0]).toMatchObject({ Token: 'second-good', TokenSecret: 'r2' });
  });

  it('switches an application to verify through GraphQL and back through REST, effective on the next call', async () => {
    const tenant = await t.tenant('basic');
    const uid = 'sp-switched';
    const switched = await t.graphql(tenant.apiKey, 'mutation { setNetworkVerification(mode: VERIFY) { networkVerification } }');
    expect(switched.body.data.setNetworkVerification).toEqual({ networkVerification: 'VERIFY' });
    const refused = await t.rest(tenant, 'POST', '/member/register', { service: 'spotify', authtoken: 'forged', uid });
    expect(refused.json.error).toMatchObject({ code: 4, param: 'authtoken' });
    expect((await t.rest(tenant, 'POST', '/app/network-verification', { mode: 'trust' })).json).toEqual({ ID: String(tenant.applicationId), NetworkVerification: 'trust' });
    expect((await t.rest(tenant, 'POST', '/member/register', { service: 'spotify', authtoken: 'forged', uid })).status).toBe(200);
  });
});

describe('POST /v1.1/member/[id]/refresh', () => {
  it('refreshes the stored tokens through the network', async () => {
    fake.addUser({ network: 'spotify', uid: 'sp-refresh', token: 'old-token', refreshToken: 'refresh-me' });
    const [envelope] = (await t.rest(verifying, 'POST', '/member/register', { service: 'spotify', authtoken: 'old-token', authsecret: 'refresh-me', uid: 'sp-refresh' })).json;
    const refreshed = await t.rest(verifying, 'POST', `/member/${envelope.data.ID}/refresh`, { service: 'spotify' });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json).toMatchObject({ Service: 'spotify', Token: expect.stringMatching(/^spotify-fresh-/), TokenSecret: 'refresh-me', Valid: '1' });
  });

  it('marks the link invalid when the network refuses, and explains', async () => {
    const [envelope] = (await t.rest(trusting, 'POST', '/member/register', { service: 'youtube', authtoken: 'x', authsecret: 'revoked', uid: 'yt-gone' })).json;
    const response = await t.rest(trusting, 'POST', `/member/${envelope.data.ID}/refresh`, { service: 'youtube' });
    expect(response.json.error).toMatchObject({ code: 15, param: 'service' });
    const show = (await t.rest(trusting, 'GET', `/member/${envelope.data.ID}`)).json;
    expect(show.services[0].Valid).toBe('0');
  });

  it('refuses networks without a refresh grant, and unknown services', async () => {
    const [envelope] = (await t.rest(trusting, 'POST', '/member/register', { service: 'deezer', authtoken: 'x', uid: 'dz-1' })).json;
    expect((await t.rest(trusting, 'POST', `/member/${envelope.data.ID}/refresh`, { service: 'deezer' })).json.error).toMatchObject({ code: 4, param: 'service' });
    expect((await t.rest(trusting, 'POST', `/member/${envelope.data.ID}/refresh`, { service: 'spotify' })).json.error).toMatchObject({ code: 5 });
    expect((await t.rest(trusting, 'POST', `/member/${envelope.data.ID}/refresh`, { service: 'myspace' })).json.error).toMatchObject({ code: 4 });
  });
});
