import { at, count, text } from '../http.js';
import { defineProfileAdapter } from './define.js';
import { refreshTokenGrant } from './oauth2.js';

/** Twitter API v2 with an OAuth 2.0 user token; refresh tokens are single-use (rotated). */
export const twitter = defineProfileAdapter({
  network: 'twitter',
  baseUrl: 'https://api.twitter.com',
  profilePath: '/2/users/me?user.fields=profile_image_url,public_metrics',
  auth: 'bearer',
  read: (body) => {
    const username = text(at(body, 'data.username'));
    return {
      uid: text(at(body, 'data.id')),
      username,
      userUrl: username && `https://twitter.com/${username}`,
      avatarUrl: text(at(body, 'data.profile_image_url')),
      followers: count(at(body, 'data.public_metrics.followers_count')),
    };
  },
  refresh: { tokenUrl: 'https://api.twitter.com/2/oauth2/token', grant: refreshTokenGrant('basic') },
});
