import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../src/db/schema/index.js';
import { locate } from '../../src/lib/geoip.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok } from '../support/rest.js';

/**
 * 8.8.8.8 is a public address whose country in the shipped DB-IP data is the United States (city,
 * region and coordinates may move between releases of the data, so only their presence is checked);
 * 10.0.0.1, 192.168.1.20 and 203.0.113.9 are private or documentation addresses: no place.
 */
const publicIp = '8.8.8.8';
const somewhere = { country: 'US', city: expect.any(String), region: expect.any(String), lat: expect.stringMatching(/^-?\d+(\.\d+)?$/), long: expect.stringMatching(/^-?\d+(\.\d+)?$/) };
const nowhere = { GeoCountry: null, GeoCity: null, GeoRegion: null, GeoLat: null, GeoLong: null };

describe('locate', () => {
  it('finds a public address, written as IPv4 or as IPv4 in IPv6', async () => {
    expect(await locate(publicIp)).toEqual(somewhere);
    expect(await locate(` ::ffff:${publicIp} `)).toEqual(await locate(publicIp));
  });

  it('finds a public IPv6 address', async () => {
    expect((await locate('2a00:1450:4001:81b::200e'))?.country).toMatch(/^[A-Z]{2}$/);
  });

  it('answers nothing, without failing, for private, reserved and malformed addresses', async () => {
    for (const address of [
      '10.0.0.1',
      '192.168.1.20',
      '172.16.5.4',
      '127.0.0.1',
      '100.64.0.1',
      '169.254.1.1',
      '203.0.113.9',
      '224.0.0.1',
      '::1',
      'fe80::1%eth0',
      'fd00::1',
      '2001:db8::1',
      '::ffff:10.0.0.1',
      '999.1.1.1',
      'not an address',
      '',
      '   ',
      undefined,
      null,
      'x'.repeat(10_000),
    ]) {
      expect(await locate(address), String(address)).toBeUndefined();
    }
  });
});

let t: TestGateway;
let app: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
});
afterAll(() => t.close());

let counter = 0;
const uniqueEmail = () => `geo${++counter}-${Date.now()}@example.com`;

async function register(extra: Record<string, string> = {}) {
  const [envelope] = await ok(t.rest(app, 'POST', '/member/register', { service: 'email', email: uniqueEmail(), password: 'correct horse', ...extra }));
  return envelope;
}

async function stored(id: number) {
  const [row] = await t.database.db.select().from(members).where(eq(members.id, id));
  return row;
}

describe('registration', () => {
  it('fills the Geo fields from a public ip, and the country when the registration names none', async () => {
    const envelope = await register({ ip: publicIp });
    expect(envelope.data).toMatchObject({
      Country: 'US',
      CountryCode: 'US',
      GeoCountry: 'US',
      GeoCity: somewhere.city,
      GeoRegion: somewhere.region,
      GeoLat: somewhere.lat,
      GeoLong: somewhere.long,
    });
    expect(envelope.data.GeoCity).toBe((await locate(publicIp))!.city);
    // The profile's country makes the member count under the country filter.
    const listed = await ok(t.rest(app, 'GET', '/members/all', { country: 'US', members: envelope.data.ID }));
    expect(listed.items.map((item: { ID: string }) => Number(item.ID))).toEqual([envelope.data.ID]);
    expect(listed.items[0]).toMatchObject({ Country: 'US', GeoCountry: 'US', GeoCity: envelope.data.GeoCity });
  });

  it("keeps the country the member gave, whatever the address's", async () => {
    const envelope = await register({ ip: publicIp, country: 'gb' });
    expect(envelope.data).toMatchObject({ Country: 'GB', CountryCode: 'GB', GeoCountry: 'US' });
  });

  it('leaves everything empty for a private, a documentation or a malformed address, and still registers', async () => {
    for (const ip of ['10.0.0.1', '203.0.113.9', 'not-an-address']) {
      const envelope = await register({ ip });
      expect(envelope.data, ip).toMatchObject({ Country: null, ...nowhere });
    }
  });

  it('answers the Geo fields on member show and over GraphQL', async () => {
    const envelope = await register({ ip: publicIp });
    expect((await ok(t.rest(app, 'GET', `/member/${envelope.data.ID}`))).data).toMatchObject({ GeoCountry: 'US', GeoLat: envelope.data.GeoLat });
    const { body } = await t.graphql(
      app.apiKey,
      `mutation ($email: String!, $ip: String!) {
      registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" }, visit: { ip: $ip } }) {
        member { country geo { country city region lat long } }
      }
    }`,
      { email: uniqueEmail(), ip: publicIp },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.registerMember.member).toEqual({ country: 'US', geo: somewhere });
  });

  it('fills the Geo fields of a member attaching a service from a public ip, without touching the country', async () => {
    const envelope = await register({ country: 'FR' });
    const attached = await ok(t.rest(app, 'POST', `/member/${envelope.data.ID}/register`, { service: 'deezer', authtoken: 'dz', uid: `dz-${Date.now()}`, ip: publicIp }));
    expect(attached.data).toMatchObject({ Country: 'FR', GeoCountry: 'US' });
  });
});

describe('login', () => {
  it('moves the Geo fields to where the member signs in from, and keeps them for an address that is nowhere', async () => {
    const email = uniqueEmail();
    const [registered] = await ok(t.rest(app, 'POST', '/member/register', { service: 'email', email, password: 'correct horse' }));
    expect(registered.data).toMatchObject({ Country: null, ...nowhere });

    const fromPublic = await ok(t.rest(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse', ip: publicIp }));
    expect(fromPublic.data).toMatchObject({ GeoCountry: 'US', GeoCity: somewhere.city, GeoLat: somewhere.lat });
    // Login is where the member was seen, not what the profile says: the country stays the member's own.
    expect(fromPublic.data.Country).toBeNull();

    const fromPrivate = await ok(t.rest(app, 'POST', '/member/login', { service: 'email', email, password: 'correct horse', ip: '192.168.1.20' }));
    expect(fromPrivate.data).toMatchObject({ GeoCountry: 'US', GeoCity: fromPublic.data.GeoCity });
    expect(await stored(registered.data.ID)).toMatchObject({ country: null, geoCountry: 'US', geoCity: fromPublic.data.GeoCity });
  });
});
