import { declareNetwork } from '../../declaration.js';
import { digits, pathNames } from '../../brand-pages.js';
import { count, text } from '../../http.js';
import { profileApi } from '../define.js';
import { refreshTokenGrant } from '../oauth2.js';

/** SoundCloud's own pages, not pages of an account. */
const reserved = pathNames('discover', 'stream', 'search', 'you', 'upload', 'pages', 'charts', 'tags', 'feed', 'messages', 'settings');

/** SoundCloud `/me` with `Authorization: OAuth <token>`; refresh tokens are single-use (rotated). */
export const soundcloud = declareNetwork({
  id: 'soundcloud',
  name: 'SoundCloud',
  identities: 'register',
  api: profileApi({
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
  }),
  brand: {
    handle: 'Username',
    read(host, [first, second]) {
      if (host === 'api.soundcloud.com') return first === 'users' && second && digits.test(second) ? { id: second } : undefined;
      if (host !== 'soundcloud.com') return undefined;
      if (!first || reserved.has(first.toLowerCase())) return undefined;
      return /^[A-Za-z0-9_-]{1,50}$/.test(first) ? { handle: first } : undefined;
    },
  },
});
