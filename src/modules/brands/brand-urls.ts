import type { BrandNetworkRef } from '../../db/schema/index.js';
import { decodeSegment, digits, toUrl, type BrandPages } from '../networks/brand-pages.js';
import { spotifyUri } from '../networks/adapters/spotify/index.js';
import { brandPagesOf, brandRecordNetworks, displayName, type BrandNetwork } from '../networks/networks.js';

/** A network a brand record has fields for (facebook, twitter, …), each declared in its network's folder. */
export type BrandNetworkName = BrandNetwork;

/** The networks a brand record carries, in the record's order. */
export const brandNetworkNames: BrandNetworkName[] = [...brandRecordNetworks];

/**
 * The name of a network's fields on the brand record: the letters and digits of the network's own
 * name (`Last.fm`: `LastfmURL`, `LastfmID`, `LastfmName`), so record fields and messages agree.
 */
export function brandFieldName(network: BrandNetworkName): string {
  return displayName(network).replace(/[^A-Za-z0-9]/g, '');
}

/**
 * Each network's brand record fields: `field` (`<field>URL`, `<field>ID`) and, where the network
 * has one, the field that holds the name on it (`TwitterScreenName`); `name` is how people know the
 * network, for messages.
 */
export const brandNetworks = Object.fromEntries(
  brandNetworkNames.map((network) => [network, { name: displayName(network), field: brandFieldName(network), handle: brandPagesOf(network)!.handle }]),
) as Record<BrandNetworkName, { name: string; field: string; handle: BrandPages['handle'] }>;

export interface ParsedNetworkUrl {
  ref: BrandNetworkRef;
  /** False when nothing could be read from the URL: it is kept as given, and the caller warns. */
  recognised: boolean;
}

/**
 * What a network URL says about the brand: the network's id, or the name on it, or both. The URL
 * is kept as given either way; one the reader does not recognise yields neither.
 */
export function parseNetworkUrl(network: BrandNetworkName, value: string): ParsedNetworkUrl {
  const given = value.trim();
  const url = toUrl(given);
  const host = url?.hostname.toLowerCase().replace(/^(?:www\.|m\.|mobile\.)/, '') ?? '';
  const path = url ? url.pathname.split('/').filter(Boolean).map(decodeSegment) : [];
  const reading = url ? brandPagesOf(network)!.read(host, path, url) : undefined;
  return {
    ref: { url: given, id: reading?.id ?? null, handle: reading?.handle ?? null },
    recognised: Boolean(reading?.id || reading?.handle),
  };
}

/** A Spotify or Deezer track or album, from its URL, URI (`spotify:track:…`) or bare id. */
export function parseMusicItem(network: 'spotify' | 'deezer', value: string, bareKind: 'track' | 'album' = 'track'): { kind: 'track' | 'album'; id: string } | undefined {
  const given = value.trim();
  if (network === 'spotify') {
    if (/^[A-Za-z0-9]{22}$/.test(given)) return { kind: bareKind, id: given };
    const parsed = spotifyUri(given.startsWith('spotify:') ? given : (toUrl(given)?.href ?? ''));
    const host = toUrl(given)?.hostname.toLowerCase();
    if (!given.startsWith('spotify:') && host !== 'open.spotify.com' && host !== 'play.spotify.com') return undefined;
    return parsed && (parsed.type === 'track' || parsed.type === 'album') ? { kind: parsed.type, id: parsed.id } : undefined;
  }
  if (digits.test(given)) return { kind: bareKind, id: given };
  const url = toUrl(given);
  if (url?.hostname.toLowerCase().replace(/^www\./, '') !== 'deezer.com') return undefined;
  const path = url.pathname.split('/').filter(Boolean);
  const at = path.findIndex((segment) => segment === 'track' || segment === 'album');
  const id = at >= 0 && at <= 1 ? path[at + 1] : undefined;
  return id && digits.test(id) ? { kind: path[at] as 'track' | 'album', id } : undefined;
}
