import { callNetwork, text } from '../http.js';
import { defineProfileAdapter } from './define.js';
import { graphFailure } from './meta-graph.js';
import { issuedTokens } from './oauth2.js';

/**
 * Instagram Graph `/me`. Instagram has no refresh tokens: a long-lived token (60 days) is exchanged
 * for a new one with `grant_type=ig_refresh_token`, using the token itself.
 */
export const instagram = defineProfileAdapter({
  network: 'instagram',
  baseUrl: 'https://graph.instagram.com',
  profilePath: '/me?fields=id,username',
  auth: { query: 'access_token' },
  classify: graphFailure,
  read: (body) => {
    const username = text(body.username);
    return { uid: text(body.id), username, userUrl: username && `https://www.instagram.com/${username}` };
  },
  refresh: {
    tokenUrl: 'https://graph.instagram.com/refresh_access_token',
    grant: async ({ network, tokenUrl, credentials }) => {
      const url = new URL(tokenUrl);
      url.searchParams.set('grant_type', 'ig_refresh_token');
      url.searchParams.set('access_token', credentials.token);
      return issuedTokens(network, await callNetwork(network, url, { classify: graphFailure }), credentials.secret);
    },
  },
});
