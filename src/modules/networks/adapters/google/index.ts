import { declareNetwork } from '../../declaration.js';
import { digits } from '../../brand-pages.js';
import { text } from '../../http.js';
import { profileApi } from '../define.js';
import { refreshTokenGrant } from '../oauth2.js';

/** Google's token endpoint, which YouTube's tokens refresh at too. */
export const googleTokenUrl = 'https://oauth2.googleapis.com/token';

/** Google's OpenID Connect userinfo; the only network here that vouches for the member's email. Brand pages: Google+. */
export const google = declareNetwork({
  id: 'google',
  name: 'Google',
  identities: 'register',
  api: profileApi({
    baseUrl: 'https://www.googleapis.com',
    profilePath: '/oauth2/v3/userinfo',
    auth: 'bearer',
    read: (body) => ({
      uid: text(body.sub),
      username: text(body.name),
      firstName: text(body.given_name),
      surname: text(body.family_name),
      email: text(body.email),
      emailVerified: text(body.email) ? body.email_verified === true || body.email_verified === 'true' : undefined,
      avatarUrl: text(body.picture),
    }),
    refresh: { tokenUrl: googleTokenUrl, grant: refreshTokenGrant('form') },
  }),
  brand: {
    handle: 'Name',
    read(host, path) {
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
  },
});
