import { text, count } from '../http.js';
import { defineProfileAdapter } from './define.js';
import { refreshTokenGrant } from './oauth2.js';

/** SoundCloud `/me` with `Authorization: OAuth <token>`; refresh tokens are single-use (rotated). */
export const soundcloud = defineProfileAdapter({
  network: 'soundcloud',
  baseUrl: 'https://api.soundcloud.com',
  profilePath: '/me',
  auth: 'oauth',
  read: (body) => ({
    uid: text(body.id),
    username: text(body.username),
    userUrl: text(body.permalink_url),
    firstName: text(body.first_name),
    surname: text(body.last_name),
    avatarUrl: text(body.avatar_url),
    followers: count(body.followers_count),
    paidAccount: typeof body.plan === 'string' ? body.plan.toLowerCase() !== 'free' : undefined,
  }),
  refresh: { tokenUrl: 'https://secure.soundcloud.com/oauth/token', grant: refreshTokenGrant('basic') },
});
