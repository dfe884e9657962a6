import { parse as parseSpotifyUri } from 'spotify-uri';
import type { BrandNetworkRef } from '../../db/schema/index.js';

/**
 * The networks a brand record carries, with the name its REST fields use (`<Name>URL`, `<Name>ID`)
 * and, where the network has one, the field that holds the name on it (`TwitterScreenName`).
 */
export const brandNetworks = {
  facebook: { name: 'Facebook', handle: 'Name' },
  twitter: { name: 'Twitter', handle: 'ScreenName' },
  youtube: { name: 'YouTube', handle: 'Username' },
  instagram: { name: 'Instagram', handle: 'Username' },
  tumblr: { name: 'Tumblr', handle: 'Username' },
  spotify: { name: 'Spotify', handle: undefined },
  deezer: { name: 'Deezer', handle: undefined },
  soundcloud: { name: 'SoundCloud', handle: 'Username' },
  lastfm: { name: 'Lastfm', handle: 'Name' },
  itunes: { name: 'iTunes', handle: undefined },
  google: { name: 'Google', handle: 'Name' },
} as const;

export type BrandNetworkName = keyof typeof brandNetworks;
export const brandNetworkNames = Object.keys(brandNetworks) as BrandNetworkName[];

interface Reading {
  id?: string;
  handle?: string;
}

/** Reads one network's URL: the host (lower case, without www./m./mobile.) and the path segments. */
type Reader = (host: string, path: string[], url: URL) => Reading | undefined;

const pathNames = (...names: string[]) => new Set(names);

/** Paths on a network that are pages of the network itself, not of an account. */
const reserved = {
  twitter: pathNames('i', 'home', 'intent', 'search', 'hashtag', 'share', 'explore', 'settings', 'login', 'messages', 'notifications'),
  instagram: pathNames('p', 'reel', 'reels', 'explore', 'stories', 'tv', 'accounts', 'direct'),
  facebook: pathNames('sharer', 'sharer.php', 'share', 'groups', 'events', 'watch', 'login', 'home.php', 'marketplace', 'gaming', 'hashtag', 'search'),
  tumblr: pathNames('blog', 'dashboard', 'explore', 'tagged', 'search', 'login', 'register', 'settings'),
  soundcloud: pathNames('discover', 'stream', 'search', 'you', 'upload', 'pages', 'charts', 'tags', 'feed', 'messages', 'settings'),
};

const twitterName = /^[A-Za-z0-9_]{1,15}$/;
const digits = /^\d+$/;

const readers: Record<BrandNetworkName, Reader> = {
  twitter(host, path, url) {
    if (host !== 'twitter.com' && host !== 'x.com') return undefined;
    // Old links carry the name in the fragment: twitter.com/#!/name
    const segments = url.hash.startsWith('#!/') ? url.hash.slice(3).split('/').filter(Boolean) : path;
    const [first, second, third] = segments;
    if (first === 'i' && second === 'user' && third && digits.test(third)) return { id: third };
    if (first === 'intent' && (second === 'user' || second === 'follow')) {
      const id = url.searchParams.get('user_id');
      const name = url.searchParams.get('screen_name');
      if (id && digits.test(id)) return { id };
      if (name && twitterName.test(name)) return { handle: name };
      return undefined;
    }
    if (!first || reserved.twitter.has(first.toLowerCase())) return undefined;
    const name = first.replace(/^@/, '');
    return twitterName.test(name) ? { handle: name } : undefined;
  },
  instagram(host, [first]) {
    if (host !== 'instagram.com' && host !== 'instagr.am') return undefined;
    if (!first || reserved.instagram.has(first.toLowerCase())) return undefined;
    return /^[A-Za-z0-9_.]{1,30}$/.test(first) ? { handle: first } : undefined;
  },
  facebook(host, path, url) {
    if (!['facebook.com', 'fb.com', 'web.facebook.com', 'mbasic.facebook.com'].includes(host)) return undefined;
    const [first, second, third] = path;
    if (!first) return undefined;
    if (first === 'profile.php') {
      const id = url.searchParams.get('id');
      return id && digits.test(id) ? { id } : undefined;
    }
    // facebook.com/pages/Name/123 and facebook.com/people/Name/123
    if ((first === 'pages' || first === 'people') && second) {
      return third && digits.test(third) ? { id: third, handle: second } : undefined;
    }
    if (first === 'pg' && second) return { handle: second };
    if (reserved.facebook.has(first.toLowerCase())) return undefined;
    if (digits.test(first)) return { id: first };
    return /^[A-Za-z0-9.\-]{1,50}$/.test(first) ? { handle: first } : undefined;
  },
  youtube(host, [first, second]) {
    if (host !== 'youtube.com' && host !== 'music.youtube.com') return undefined;
    if (first === 'channel' && second && /^UC[A-Za-z0-9_-]{22}$/.test(second)) return { id: second };
    // Handles keep their @: they are another namespace than the legacy /user/ and /c/ names.
    if (first?.startsWith('@') && /^@[A-Za-z0-9._-]{3,30}$/.test(first)) return { handle: first };
    if ((first === 'user' || first === 'c') && second && /^[A-Za-z0-9._-]{1,100}$/.test(second)) return { handle: second };
    return undefined;
  },
  tumblr(host, path) {
    const blog = /^([a-z0-9-]+)\.tumblr\.com$/.exec(host)?.[1];
    if (blog && blog !== 'www' && blog !== 'api') return { handle: blog };
    if (host !== 'tumblr.com') return undefined;
    const [first, second, third] = path;
    if (first === 'blog' && second === 'view' && third) return { handle: third };
    if (!first || reserved.tumblr.has(first.toLowerCase())) return undefined;
    return /^[A-Za-z0-9-]{1,32}$/.test(first) ? { handle: first } : undefined;
  },
  spotify(host, _path, url) {
    if (url.protocol !== 'spotify:' && host !== 'open.spotify.com' && host !== 'play.spotify.com') return undefined;
    const parsed = spotifyUri(url.href);
    return parsed?.type === 'artist' ? { id: parsed.id } : undefined;
  },
  deezer(host, path) {
    if (host !== 'deezer.com') return undefined;
    // deezer.com/artist/27 or with a language: deezer.com/en/artist/27
    const at = path.indexOf('artist');
    const id = at >= 0 && at <= 1 ? path[at + 1] : undefined;
    return id && digits.test(id) ? { id } : undefined;
  },
  soundcloud(host, [first, second]) {
    if (host === 'api.soundcloud.com') return first === 'users' && second && digits.test(second) ? { id: second } : undefined;
    if (host !== 'soundcloud.com') return undefined;
    if (!first || reserved.soundcloud.has(first.toLowerCase())) return undefined;
    return /^[A-Za-z0-9_-]{1,50}$/.test(first) ? { handle: first } : undefined;
  },
  lastfm(host, _path, url) {
    if (!/^(?:[a-z]{2}\.)?last\.fm$/.test(host) && !/^lastfm\.[a-z]{2,3}(?:\.[a-z]{2})?$/.test(host)) return undefined;
    // last.fm/music/Name or with a language: last.fm/de/music/Name. '+' stands for a space and
    // '%2B' for a plus, so the raw segment is read before decoding.
    const raw = url.pathname.split('/').filter(Boolean);
    const at = raw.indexOf('music');
    const name = at >= 0 && at <= 1 ? raw[at + 1] : undefined;
    return name && !name.startsWith('+') ? { handle: decode(name.replace(/\+/g, ' ')) } : undefined;
  },
  itunes(host, path) {
    if (!['itunes.apple.com', 'music.apple.com', 'geo.music.apple.com'].includes(host)) return undefined;
    // itunes.apple.com/us/artist/adele/id262836961, music.apple.com/gb/artist/adele/262836961
    if (!path.includes('artist')) return undefined;
    const id = /^(?:id)?(\d+)$/.exec(path[path.length - 1] ?? '')?.[1];
    return id ? { id } : undefined;
  },
  google(host, path) {
    if (host !== 'plus.google.com' && host !== 'google.com') return undefined;
    // plus.google.com/u/0/+Name: the account switcher prefix is not part of the page.
    const rest = path[0] === 'u' && path[1] && digits.test(path[1]) ? path.slice(2) : path;
    const [first] = rest;
    if (!first) return undefined;
    if (/^\d{10,25}$/.test(first)) return { id: first };
    if (host === 'plus.google.com' || first.startsWith('+')) {
      return first.startsWith('+') && first.length > 1 ? { handle: first.slice(1) } : undefined;
    }
    return undefined;
  },
};

function spotifyUri(value: string): { type: string; id: string } | undefined {
  try {
    const parsed = parseSpotifyUri(value) as { type: string; id?: string };
    return parsed.id && /^[A-Za-z0-9]{22}$/.test(parsed.id) ? { type: parsed.type, id: parsed.id } : undefined;
  } catch {
    return undefined;
  }
}

/** A URL as typed by people: `twitter.com/x` without a scheme is read as https. */
function toUrl(value: string): URL | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
  try {
    return new URL(withScheme);
  } catch {
    return undefined;
  }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

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
  const path = url ? url.pathname.split('/').filter(Boolean).map(decode) : [];
  const reading = url ? readers[network](host, path, url) : undefined;
  return {
    ref: { url: given, id: reading?.id ?? null, handle: reading?.handle ?? null },
    recognised: Boolean(reading?.id || reading?.handle),
  };
}

/** A Spotify or Deezer track or album, from its URL, URI (`spotify:track:…`) or bare id. */
export function parseMusicItem(
  network: 'spotify' | 'deezer',
  value: string,
  bareKind: 'track' | 'album' = 'track',
): { kind: 'track' | 'album'; id: string } | undefined {
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
