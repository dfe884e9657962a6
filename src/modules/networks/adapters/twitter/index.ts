import { declareNetwork } from '../../declaration.js';
import { digits, pathNames } from '../../brand-pages.js';
import { at, count, text } from '../../http.js';
import { profileApi } from '../define.js';
import { refreshTokenGrant } from '../oauth2.js';

/** Twitter's own pages, not pages of an account. */
const reserved = pathNames('i', 'home', 'intent', 'search', 'hashtag', 'share', 'explore', 'settings', 'login', 'messages', 'notifications');
const screenName = /^[A-Za-z0-9_]{1,15}$/;

/** Twitter API v2 with an OAuth 2.0 user token; refresh tokens are single-use (rotated). */
export const twitter = declareNetwork({
  id: 'twitter',
  name: 'Twitter',
  identities: 'register',
  api: profileApi({
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
  }),
  brand: {
    handle: 'ScreenName',
    read(host, path, url) {
      if (host !== 'twitter.com' && host !== 'x.com') return undefined;
      // Old links carry the name in the fragment: twitter.com/#!/name
      const segments = url.hash.startsWith('#!/') ? url.hash.slice(3).split('/').filter(Boolean) : path;
      const [first, second, third] = segments;
      if (first === 'i' && second === 'user' && third && digits.test(third)) return { id: third };
      if (first === 'intent' && (second === 'user' || second === 'follow')) {
        const id = url.searchParams.get('user_id');
        const name = url.searchParams.get('screen_name');
        if (id && digits.test(id)) return { id };
        if (name && screenName.test(name)) return { handle: name };
        return undefined;
      }
      if (!first || reserved.has(first.toLowerCase())) return undefined;
      const name = first.replace(/^@/, '');
      return screenName.test(name) ? { handle: name } : undefined;
    },
  },
});
