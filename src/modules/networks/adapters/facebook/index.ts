import { createHmac } from 'node:crypto';
import { declareNetwork } from '../../declaration.js';
import { digits, pathNames } from '../../brand-pages.js';
import { at, text } from '../../http.js';
import { profileApi } from '../define.js';
import { graphFailure } from '../meta-graph.js';

/** Facebook's own pages, not pages of an account. */
const reserved = pathNames('sharer', 'sharer.php', 'share', 'groups', 'events', 'watch', 'login', 'home.php', 'marketplace', 'gaming', 'hashtag', 'search');

/**
 * Graph API `/me`. With the app's secret configured, each call carries `appsecret_proof`, which apps
 * set to "Require App Secret" need. Long-lived user tokens are not refreshed through the API.
 */
export const facebook = declareNetwork({
  id: 'facebook',
  name: 'Facebook',
  identities: 'register',
  api: profileApi({
    baseUrl: 'https://graph.facebook.com',
    profilePath: '/me?fields=id,name,first_name,last_name,email,picture',
    auth: ({ url }, { token }, { client }) => {
      url.searchParams.set('access_token', token);
      if (client) url.searchParams.set('appsecret_proof', createHmac('sha256', client.clientSecret).update(token).digest('hex'));
    },
    classify: graphFailure,
    // Facebook does not say whether the member confirmed the address, so it is not marked verified.
    read: (body) => ({
      uid: text(body.id),
      username: text(body.name),
      firstName: text(body.first_name),
      surname: text(body.last_name),
      email: text(body.email),
      avatarUrl: at(body, 'picture.data.is_silhouette') === true ? undefined : text(at(body, 'picture.data.url')),
    }),
  }),
  brand: {
    handle: 'Name',
    read(host, path, url) {
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
      if (reserved.has(first.toLowerCase())) return undefined;
      if (digits.test(first)) return { id: first };
      return /^[A-Za-z0-9.-]{1,50}$/.test(first) ? { handle: first } : undefined;
    },
  },
});
