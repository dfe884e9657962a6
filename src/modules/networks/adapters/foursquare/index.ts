import { declareNetwork } from '../../declaration.js';
import { at, text } from '../../http.js';
import { profileApi } from '../define.js';

/** The API version date Foursquare requires on every v2 call. */
const apiVersion = '20240101';

/** Foursquare `/v2/users/self` with `oauth_token`; its tokens do not expire. Brand records have no Foursquare fields. */
export const foursquare = declareNetwork({
  id: 'foursquare',
  name: 'Foursquare',
  identities: 'register',
  api: profileApi({
    baseUrl: 'https://api.foursquare.com',
    profilePath: `/v2/users/self?v=${apiVersion}`,
    auth: { query: 'oauth_token' },
    read: (body) => {
      const user = at(body, 'response.user');
      const prefix = text(at(user, 'photo.prefix'));
      const suffix = text(at(user, 'photo.suffix'));
      return {
        uid: text(at(user, 'id')),
        username: text(at(user, 'handle')) ?? text(at(user, 'firstName')),
        userUrl: text(at(user, 'canonicalUrl')),
        firstName: text(at(user, 'firstName')),
        surname: text(at(user, 'lastName')),
        email: text(at(user, 'contact.email')),
        avatarUrl: prefix && suffix ? `${prefix}original${suffix}` : undefined,
      };
    },
  }),
});
