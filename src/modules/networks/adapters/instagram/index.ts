import { declareNetwork } from '../../declaration.js';
import { pathNames } from '../../brand-pages.js';
import { callNetwork, text } from '../../http.js';
import { profileApi } from '../define.js';
import { graphFailure } from '../meta-graph.js';
import { issuedTokens } from '../oauth2.js';

/** Instagram's own pages, not pages of an account. */
const reserved = pathNames('p', 'reel', 'reels', 'explore', 'stories', 'tv', 'accounts', 'direct');

/**
 * Instagram Graph `/me`. Instagram has no refresh tokens: a long-lived token (60 days) is exchanged
 * for a new one with `grant_type=ig_refresh_token`, using the token itself.
 */
export const instagram = declareNetwork({
  id: 'instagram',
  name: 'Instagram',
  identities: 'register',
  api: profileApi({
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
  }),
  brand: {
    handle: 'Username',
    read(host, [first]) {
      if (host !== 'instagram.com' && host !== 'instagr.am') return undefined;
      if (!first || reserved.has(first.toLowerCase())) return undefined;
      return /^[A-Za-z0-9_.]{1,30}$/.test(first) ? { handle: first } : undefined;
    },
  },
});
