import { text } from '../http.js';
import { defineProfileAdapter } from './define.js';
import { refreshTokenGrant } from './oauth2.js';

export const googleTokenUrl = 'https://oauth2.googleapis.com/token';

/** Google's OpenID Connect userinfo; the only network here that vouches for the member's email. */
export const google = defineProfileAdapter({
  network: 'google',
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
});
