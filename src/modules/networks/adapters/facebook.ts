import { createHmac } from 'node:crypto';
import { at, text } from '../http.js';
import { defineProfileAdapter } from './define.js';
import { graphFailure } from './meta-graph.js';

/**
 * Graph API `/me`. With the app's secret configured, each call carries `appsecret_proof`, which apps
 * set to "Require App Secret" need. Long-lived user tokens are not refreshed through the API.
 */
export const facebook = defineProfileAdapter({
  network: 'facebook',
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
});
