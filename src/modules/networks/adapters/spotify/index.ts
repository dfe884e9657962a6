import { parse as parseSpotifyUri } from 'spotify-uri';
import { declareNetwork } from '../../declaration.js';
import { at, count, text } from '../../http.js';
import { profileApi } from '../define.js';
import { refreshTokenGrant } from '../oauth2.js';

/** What a Spotify URL or URI (`spotify:artist:…`) names: its kind and its 22-character id; undefined when it names nothing. */
export function spotifyUri(value: string): { type: string; id: string } | undefined {
  try {
    const parsed = parseSpotifyUri(value) as { type: string; id?: string };
    return parsed.id && /^[A-Za-z0-9]{22}$/.test(parsed.id) ? { type: parsed.type, id: parsed.id } : undefined;
  } catch {
    return undefined;
  }
}

/** Spotify Web API `/v1/me`; Spotify does not verify email addresses, so none is marked verified. Saves to the library. */
export const spotify = declareNetwork({
  id: 'spotify',
  name: 'Spotify',
  identities: 'register',
  api: profileApi({
    baseUrl: 'https://api.spotify.com',
    profilePath: '/v1/me',
    auth: 'bearer',
    read: (body) => ({
      uid: text(body.id),
      username: text(body.display_name),
      userUrl: text(at(body, 'external_urls.spotify')),
      email: text(body.email),
      paidAccount: body.product === undefined ? undefined : body.product === 'premium',
      followers: count(at(body, 'followers.total')),
      avatarUrl: text(at(body, 'images.0.url')),
    }),
    refresh: { tokenUrl: 'https://accounts.spotify.com/api/token', grant: refreshTokenGrant('basic') },
    // "Save Tracks / Albums for Current User" (scope user-library-modify).
    library: (item) => ({ method: 'PUT', path: `/v1/me/${item.kind}s?ids=${encodeURIComponent(item.id)}` }),
  }),
  brand: {
    read(host, _path, url) {
      if (url.protocol !== 'spotify:' && host !== 'open.spotify.com' && host !== 'play.spotify.com') return undefined;
      const parsed = spotifyUri(url.href);
      return parsed?.type === 'artist' ? { id: parsed.id } : undefined;
    },
  },
});
