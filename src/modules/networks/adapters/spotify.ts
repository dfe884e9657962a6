import { at, count, text } from '../http.js';
import { defineProfileAdapter } from './define.js';
import { refreshTokenGrant } from './oauth2.js';

/** Spotify Web API `/v1/me`; Spotify does not verify email addresses, so none is marked verified. Saves to the library. */
export const spotify = defineProfileAdapter({
  network: 'spotify',
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
});
