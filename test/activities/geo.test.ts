import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityRecords } from '../../src/db/schema/index.js';
import { locate } from '../../src/lib/geoip.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok } from '../support/rest.js';
import { createActivity, insertMembers } from '../support/activity-data.js';

/** 8.8.8.8 is in the United States in the shipped DB-IP data; 10.0.0.1 is private: no place. */
const publicIp = '8.8.8.8';

let t: TestGateway;
let app: Tenant;
let activity: number;
let member: number;
let us: { Country: string; City: string | null; Region: string | null; Lat: string | null; Long: string | null };

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  activity = await createActivity(t, app, { name: 'Listen', type: 'Listened', service: 'spotify', points: 2 });
  [member] = await insertMembers(t, app, [{ country: 'GB' }]);
  const place = (await locate(publicIp))!;
  us = { Country: place.country, City: place.city, Region: place.region, Lat: place.lat, Long: place.long };
});
afterAll(() => t.close());

/** GeoData of the member's feed items by marker. */
async function geoDataByMarker() {
  const [body] = await ok(t.rest(app, 'GET', '/activity/feed', { all_member_actions: 1, members: member, limit: 100 }));
  return Object.fromEntries(body.items.map((item: { Marker: string; GeoData: unknown }) => [item.Marker, item.GeoData]));
}

describe('ip on activity/record', () => {
  it('places the record where a public address is, and shows it as GeoData in the feed and member show', async () => {
    expect(us).toMatchObject({ Country: 'US', City: expect.any(String), Lat: expect.any(String), Long: expect.any(String) });
    await ok(t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, marker: 'from-public', ip: publicIp }));
    await ok(t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, marker: 'from-private', ip: '10.0.0.1' }));
    await ok(t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, marker: 'from-garbage', ip: 'not-an-address' }));
    await ok(t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, marker: 'without-ip' }));
    expect(await geoDataByMarker()).toEqual({ 'from-public': us, 'from-private': null, 'from-garbage': null, 'without-ip': null });

    const shown = await ok(t.rest(app, 'GET', `/member/${member}`, { showactions: 1, limit: 10 }));
    const action = shown.actions.find((item: { Marker: string }) => item.Marker === 'from-public');
    expect(action.GeoData).toEqual(us);
    // The member's own Geo fields stay where they registered or signed in: a record does not move them.
    expect(shown.data).toMatchObject({ Country: 'GB', GeoCountry: null });
    // The address itself is not kept.
    const [row] = await t.database.db.select().from(activityRecords).where(eq(activityRecords.marker, 'from-public'));
    expect(row).toMatchObject({ geoCountry: 'US', geoCity: us.City, geoRegion: us.Region, geoLat: us.Lat, geoLong: us.Long });
    expect(JSON.stringify(row)).not.toContain(publicIp);
  });

  it('places queued records too', async () => {
    const answer = await ok(t.rest(app, 'POST', '/activity/record', { activityid: activity, id: member, marker: 'queued', ip: publicIp, async: 1 }));
    expect(answer).toMatchObject({ Queued: true });
    await t.gateway.activityQueue.drain();
    expect((await geoDataByMarker()).queued).toEqual(us);
  });

  it('reads ip in a GraphQL batch and answers geo on the record', async () => {
    const { body } = await t.graphql(app.apiKey, `mutation ($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }`, {
      input: [
        { activityId: String(activity), memberId: String(member), marker: 'batch-public', ip: publicIp },
        { activityId: String(activity), memberId: String(member), marker: 'batch-private', ip: '192.168.0.7' },
      ],
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.recordActivities.created).toBe(2);
    const feed = await t.graphql(app.apiKey, `{ activityFeed(first: 100, allMemberActions: true) { edges { node { marker geo { country city region lat long } } } } }`);
    const geoOf = Object.fromEntries(feed.body.data.activityFeed.edges.map((edge: { node: { marker: string; geo: unknown } }) => [edge.node.marker, edge.node.geo]));
    expect(geoOf['batch-public']).toEqual({ country: 'US', city: us.City, region: us.Region, lat: us.Lat, long: us.Long });
    expect(geoOf['batch-private']).toBeNull();
  });
});
