import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * What an integrator of the interface relies on without an error to warn them: custom brand fields
 * that can be switched on, listing shapes a typed client decodes, and answers that say what they did.
 */

let t: TestGateway;
let enterprise: Tenant;
let advanced: Tenant;
let other: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  enterprise = await t.tenant('enterprise');
  advanced = await t.tenant('advanced');
  other = await t.tenant('enterprise');
});
afterAll(() => t.close());

const errorBody = (code: number, type: string, param: string | null) => ({ error: { code, type, message: expect.any(String), param } });

describe('brand custom fields', () => {
  it('are refused until switched on, named by the parameter that carried them, and nothing is written', async () => {
    const refused = await t.rest(enterprise, 'POST', '/brand/create', { name: 'Label Band', label_id: 'L-77' });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual(errorBody(12, 'FEATURE_NOT_ENABLED', 'label_id'));
    const brands = await t.rest(enterprise, 'GET', '/brands');
    expect(brands.json.items.map((brand: { Name: string }) => brand.Name)).not.toContain('Label Band');
  });

  it('switch on with /app/brand-custom-fields (enterprise), then named parameters are stored and shown', async () => {
    const on = await t.rest(enterprise, 'POST', '/app/brand-custom-fields', { enabled: 1 });
    expect(on.status).toBe(200);
    expect(on.json).toEqual({ ID: String(enterprise.applicationId), BrandCustomFields: true });
    const created = await t.rest(enterprise, 'POST', '/brand/create', { name: 'Label Band', label_id: 'L-77', custom: '{"tier":"gold"}', turnoffdebug: 1 });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json.Custom).toEqual({ tier: 'gold', label_id: 'L-77' });
    const shown = await t.rest(enterprise, 'GET', `/brand/${created.json.ID}`);
    expect(shown.json.Custom).toEqual({ tier: 'gold', label_id: 'L-77' });
    const edited = await t.rest(enterprise, 'POST', `/brand/${created.json.ID}/edit`, { LabelName: 'Indie' });
    expect(edited.json.Custom).toEqual({ tier: 'gold', label_id: 'L-77', LabelName: 'Indie' });
    const graphql = await t.graphql(enterprise.apiKey, '{ application { brandCustomFields } }');
    expect(graphql.body.data.application.brandCustomFields).toBe(true);

    const off = await t.rest(enterprise, 'POST', '/app/brand-custom-fields', { enabled: 0 });
    expect(off.json).toEqual({ ID: String(enterprise.applicationId), BrandCustomFields: false });
    const refused = await t.rest(enterprise, 'POST', `/brand/${created.json.ID}/edit`, { label_id: 'L-78' });
    expect(refused.json).toEqual(errorBody(12, 'FEATURE_NOT_ENABLED', 'label_id'));
    expect((await t.rest(enterprise, 'GET', `/brand/${created.json.ID}`)).json.Custom.label_id).toBe('L-77');
  });

  it('the switch refuses bad input and plans below enterprise, and touches only the caller', async () => {
    expect((await t.rest(enterprise, 'POST', '/app/brand-custom-fields', {})).json).toEqual(errorBody(3, 'MISSING_PARAMETER', 'enabled'));
    expect((await t.rest(enterprise, 'POST', '/app/brand-custom-fields', { enabled: 'sometimes' })).json).toEqual(errorBody(4, 'INVALID_PARAMETER', 'enabled'));
    const basic = await t.rest(advanced, 'POST', '/app/brand-custom-fields', { enabled: 1 });
    expect(basic.status).toBe(403);
    expect(basic.json).toEqual(errorBody(9, 'PLAN_REQUIRED', null));
    await t.rest(other, 'POST', '/app/brand-custom-fields', { enabled: 1 });
    expect((await t.graphql(enterprise.apiKey, '{ application { brandCustomFields } }')).body.data.application.brandCustomFields).toBe(false);
  });
});

describe('listing shapes', () => {
  it("members/active and members/all answer paging {next, previous} on a single page; members/login keeps the sample's []", async () => {
    await t.rest(advanced, 'POST', '/member/register', { service: 'email', email: 'one-page@example.com', password: 'correct horse' });
    const active = await t.rest(advanced, 'GET', '/members/active', { totalmembercount: 1 });
    expect(active.json).toEqual([{ totalSize: expect.any(Number), items: expect.any(Array), paging: { next: null, previous: null }, totalmembercount: expect.any(Number) }]);
    const all = await t.rest(advanced, 'GET', '/members/all', { totalmembercount: 1 });
    expect(all.json).toEqual({ totalSize: 1, items: [expect.objectContaining({ Email: 'one-page@example.com' })], paging: { next: null, previous: null }, totalmembercount: 1 });
    const login = await t.rest(advanced, 'GET', '/members/login');
    expect(login.json.paging).toEqual([]);
  });

  it('a second page still has both links, null where there is none', async () => {
    await t.rest(advanced, 'POST', '/member/register', { service: 'email', email: 'two-pages@example.com', password: 'correct horse' });
    const first = await t.rest(advanced, 'GET', '/members/all', { limit: 1 });
    expect(first.json.paging).toEqual({ next: expect.stringContaining('after='), previous: null });
  });
});

describe('answers that say what they did', () => {
  it('login with strict_sso=1 and no domain is refused (it would check nothing), and records no login', async () => {
    const registered = await t.rest(advanced, 'POST', '/member/register', { service: 'email', email: 'strict@example.com', password: 'correct horse' });
    const memberId = registered.json[0].data.ID;
    const refused = await t.rest(advanced, 'POST', '/member/login', { service: 'email', email: 'strict@example.com', password: 'correct horse', strict_sso: 1 });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual(errorBody(3, 'MISSING_PARAMETER', 'domain'));
    const member = await t.rest(advanced, 'GET', `/member/${memberId}`);
    expect(member.json.services[0].LastLogin).toBeNull();
  });

  it('the website given to update is read back', async () => {
    const registered = await t.rest(advanced, 'POST', '/member/register', { service: 'email', email: 'site@example.com', password: 'correct horse' });
    const memberId = registered.json[0].data.ID;
    const updated = await t.rest(advanced, 'POST', `/member/${memberId}/update`, { website: 'https://site.example.com' });
    expect(updated.json.data.Website).toBe('https://site.example.com');
    expect((await t.rest(advanced, 'GET', `/member/${memberId}`)).json.data.Website).toBe('https://site.example.com');
    // Another account's key does not find the member.
    expect((await t.rest(other, 'GET', `/member/${memberId}`)).json).toEqual(errorBody(5, 'NOT_FOUND', 'id'));
  });

  it('the useragent given to register and login is read back per domain', async () => {
    const registered = await t.rest(advanced, 'POST', '/member/register', {
      service: 'email',
      email: 'agent@example.com',
      password: 'correct horse',
      domain: 'fans.example.com',
      useragent: 'Agent/1.0 (Phone)',
    });
    const memberId = registered.json[0].data.ID;
    await t.rest(advanced, 'POST', '/member/login', { service: 'email', email: 'agent@example.com', password: 'correct horse', domain: 'fans.example.com', useragent: 'Agent/2.0 (Desktop)' });
    const domains = await t.rest(advanced, 'GET', `/member/${memberId}/domains`);
    expect(domains.json).toEqual([{ Domain: 'fans.example.com', FirstVisit: expect.any(String), LastVisit: expect.any(String), UserAgent: 'Agent/2.0 (Desktop)' }]);
    expect((await t.rest(other, 'GET', `/member/${memberId}/domains`)).json).toEqual(errorBody(5, 'NOT_FOUND', 'id'));
  });

  it('unwhitelist of a host whose www twin is listed says so', async () => {
    await t.rest(advanced, 'POST', '/app/whitelist', { domain: 'https://www.twin.example.com/page' });
    const missed = await t.rest(advanced, 'POST', '/app/unwhitelist', { domain: 'twin.example.com' });
    expect(missed.status).toBe(404);
    expect(missed.json).toEqual(errorBody(5, 'NOT_FOUND', 'domain'));
    expect(missed.json.error.message).toContain('www.twin.example.com is');
    expect((await t.rest(advanced, 'GET', '/app/info')).json.Whitelist).toEqual(['www.twin.example.com']);
    // Another application's list is neither changed nor named.
    expect((await t.rest(other, 'POST', '/app/unwhitelist', { domain: 'twin.example.com' })).json.error.message).toBe('The domain twin.example.com is not whitelisted.');
  });

  it("the feed's keyword matches values of the content, never its key names", async () => {
    const brand = await t.rest(advanced, 'POST', '/brand/create', { name: 'Keyword Band' });
    const activity = await t.rest(advanced, 'POST', '/activity/create', { name: 'Listened', type: 'Listened', brandid: brand.json.ID });
    const member = await t.rest(advanced, 'POST', '/member/register', { service: 'email', email: 'keyword@example.com', password: 'correct horse' });
    const memberId = member.json[0].data.ID;
    for (const [marker, content] of [
      ['k1', { track: 'Blue', isrc: 'GBAYE0000001' }],
      ['k2', { track: 'Isrc Anthem' }],
    ] as const) {
      const recorded = await t.rest(advanced, 'POST', '/activity/record', { activityid: activity.json.ID, id: memberId, marker, content: JSON.stringify(content) });
      expect(recorded.status, JSON.stringify(recorded.json)).toBe(200);
    }
    const byKey = await t.rest(advanced, 'GET', '/activity/feed', { keyword: 'isrc', all_member_actions: 1 });
    expect(byKey.json[0].items.map((item: { Marker: string }) => item.Marker)).toEqual(['k2']);
    const byValue = await t.rest(advanced, 'GET', '/activity/feed', { keyword: 'gbaye', all_member_actions: 1 });
    expect(byValue.json[0].items.map((item: { Marker: string }) => item.Marker)).toEqual(['k1']);
    expect((await t.rest(other, 'GET', '/activity/feed', { keyword: 'gbaye', all_member_actions: 1 })).json).toEqual([{ totalSize: 0, items: [] }]);
  });

  it('showposition gives no AEPosition to a member the filter excludes', async () => {
    const brand = await t.rest(advanced, 'POST', '/brand/create', { name: 'Position Band' });
    const activity = await t.rest(advanced, 'POST', '/activity/create', { name: 'Listened', type: 'Listened', brandid: brand.json.ID, points: 5 });
    const member = await t.rest(advanced, 'POST', '/member/register', { service: 'email', email: 'position@example.com', password: 'correct horse', country: 'GB' });
    const memberId = member.json[0].data.ID;
    await t.rest(advanced, 'POST', '/activity/record', { activityid: activity.json.ID, id: memberId, marker: 'p1' });
    const kept = await t.rest(advanced, 'GET', `/member/${memberId}`, { showposition: 1, country: 'GB', brandID: brand.json.ID });
    expect(kept.json.data.AEPosition).toBe('1');
    const excluded = await t.rest(advanced, 'GET', `/member/${memberId}`, { showposition: 1, country: 'US', brandID: brand.json.ID });
    expect(excluded.status).toBe(200);
    expect(excluded.json.data.AEPosition).toBeNull();
  });

  it('brand statistics tell when the window was cut to six months', async () => {
    const brand = await t.rest(advanced, 'POST', '/brand/create', { name: 'Clamp Band' });
    const long = await t.rest(advanced, 'GET', `/brand/${brand.json.ID}/stats/activity`, { period: '9 Month' });
    expect(long.json[0]).toMatchObject({ clamped: true, notice: expect.stringContaining('6 months') });
    const short = await t.rest(advanced, 'GET', `/brand/${brand.json.ID}/stats/members`, { period: '2 Week' });
    expect(short.json).toMatchObject({ clamped: false, notice: null });
    const location = await t.rest(advanced, 'GET', `/brand/${brand.json.ID}/stats/location`, { start_date: '2020-01-01 00:00:00', end_date: '2021-01-01 00:00:00' });
    expect(location.json).toMatchObject({ clamped: true, notice: expect.stringContaining('2020-07-01 00:00:00') });
    const timeline = await t.rest(advanced, 'GET', `/brand/${brand.json.ID}/stats/timeline`, { period: '1 Month' });
    expect(timeline.json[0]).toMatchObject({ clamped: false, notice: null });
    expect((await t.rest(other, 'GET', `/brand/${brand.json.ID}/stats/activity`, { period: '9 Month' })).json).toEqual(errorBody(5, 'NOT_FOUND', 'brandID'));
  });
});

describe('create operations refuse what the document says they refuse', () => {
  it('brand, activity and segment create need a name; types are one of the listed values; nothing is written', async () => {
    expect((await t.rest(advanced, 'POST', '/brand/create', { type: 'Music' })).json).toEqual(errorBody(3, 'MISSING_PARAMETER', 'name'));
    expect((await t.rest(advanced, 'POST', '/brand/create', { name: 'Typed Band', type: 'Artist' })).json).toEqual(errorBody(4, 'INVALID_PARAMETER', 'type'));
    expect((await t.rest(advanced, 'POST', '/activity/create', { type: 'Listened' })).json).toEqual(errorBody(3, 'MISSING_PARAMETER', 'name'));
    expect((await t.rest(advanced, 'POST', '/activity/create', { name: 'Typed' })).json).toEqual(errorBody(3, 'MISSING_PARAMETER', 'type'));
    expect((await t.rest(advanced, 'POST', '/activity/create', { name: 'Typed', type: 'Danced' })).json).toEqual(errorBody(4, 'INVALID_PARAMETER', 'type'));
    expect((await t.rest(advanced, 'POST', '/segment/create', { type: 'list' })).json).toEqual(errorBody(3, 'MISSING_PARAMETER', 'name'));
    expect((await t.rest(advanced, 'GET', '/brands')).json.items.map((brand: { Name: string }) => brand.Name)).not.toContain('Typed Band');
    expect((await t.rest(advanced, 'GET', '/activities')).json.items.map((activity: { Name: string }) => activity.Name)).not.toContain('Typed');
  });
});
