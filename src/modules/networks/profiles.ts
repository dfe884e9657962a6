import type { NetworkProfile } from './adapter.js';
import { at } from './http.js';
import type { Network } from './networks.js';

/**
 * How each network's profile endpoint is called and read. `auth` says where the token goes;
 * `read` turns the network's JSON into a profile; `refreshPath` names the OAuth 2.0 token endpoint
 * for the refresh grant (absent: the network has none, or its tokens do not expire).
 */
export interface ProfileSpec {
  baseUrl: string;
  profilePath: string;
  auth: 'bearer' | 'oauth-header' | { query: string };
  read(body: Record<string, unknown>): NetworkProfile;
  tokenUrl?: string;
}

const text = (value: unknown) => (value === undefined || value === null ? undefined : String(value));
const number = (value: unknown) => (typeof value === 'number' ? value : value === undefined ? undefined : Number(value) || undefined);

export const profileSpecs: Record<Exclude<Network, 'email' | 'rdio' | 'beatsmusic'>, ProfileSpec> = {
  twitter: {
    baseUrl: 'https://api.twitter.com',
    profilePath: '/2/users/me?user.fields=public_metrics',
    auth: 'bearer',
    tokenUrl: 'https://api.twitter.com/2/oauth2/token',
    read: (body) => ({
      uid: String(at(body, 'data.id')),
      username: text(at(body, 'data.username')),
      userUrl: at(body, 'data.username') ? `https://twitter.com/${String(at(body, 'data.username'))}` : undefined,
      followers: number(at(body, 'data.public_metrics.followers_count')),
    }),
  },
  facebook: {
    baseUrl: 'https://graph.facebook.com',
    profilePath: '/me?fields=id,name,email,link',
    auth: { query: 'access_token' },
    read: (body) => ({ uid: String(body.id), username: text(body.name), userUrl: text(body.link), email: text(body.email), emailVerified: Boolean(body.email) }),
  },
  google: {
    baseUrl: 'https://openidconnect.googleapis.com',
    profilePath: '/v1/userinfo',
    auth: 'bearer',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    read: (body) => ({ uid: String(body.sub), username: text(body.name), email: text(body.email), emailVerified: body.email_verified === true }),
  },
  youtube: {
    baseUrl: 'https://www.googleapis.com',
    profilePath: '/youtube/v3/channels?part=snippet,statistics&mine=true',
    auth: 'bearer',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    read: (body) => ({
      uid: String(at(body, 'items.0.id')),
      username: text(at(body, 'items.0.snippet.customUrl')) ?? text(at(body, 'items.0.snippet.title')),
      userUrl: at(body, 'items.0.id') ? `https://www.youtube.com/channel/${String(at(body, 'items.0.id'))}` : undefined,
      followers: number(at(body, 'items.0.statistics.subscriberCount')),
    }),
  },
  instagram: {
    baseUrl: 'https://graph.instagram.com',
    profilePath: '/me?fields=id,username',
    auth: { query: 'access_token' },
    read: (body) => ({ uid: String(body.id), username: text(body.username), userUrl: body.username ? `https://www.instagram.com/${String(body.username)}` : undefined }),
  },
  lastfm: {
    baseUrl: 'https://ws.audioscrobbler.com',
    profilePath: '/2.0/?method=user.getInfo&format=json',
    auth: { query: 'sk' },
    read: (body) => ({ uid: String(at(body, 'user.name')), username: text(at(body, 'user.name')), userUrl: text(at(body, 'user.url')), paidAccount: at(body, 'user.subscriber') === '1' }),
  },
  spotify: {
    baseUrl: 'https://api.spotify.com',
    profilePath: '/v1/me',
    auth: 'bearer',
    tokenUrl: 'https://accounts.spotify.com/api/token',
    read: (body) => ({
      uid: String(body.id),
      username: text(body.display_name),
      userUrl: text(at(body, 'external_urls.spotify')),
      email: text(body.email),
      paidAccount: body.product === 'premium',
      followers: number(at(body, 'followers.total')),
    }),
  },
  tumblr: {
    baseUrl: 'https://api.tumblr.com',
    profilePath: '/v2/user/info',
    auth: 'bearer',
    tokenUrl: 'https://api.tumblr.com/v2/oauth2/token',
    read: (body) => ({ uid: String(at(body, 'response.user.name')), username: text(at(body, 'response.user.name')) }),
  },
  soundcloud: {
    baseUrl: 'https://api.soundcloud.com',
    profilePath: '/me',
    auth: 'oauth-header',
    tokenUrl: 'https://secure.soundcloud.com/oauth/token',
    read: (body) => ({
      uid: String(body.id),
      username: text(body.username),
      userUrl: text(body.permalink_url),
      followers: number(body.followers_count),
      paidAccount: typeof body.plan === 'string' && body.plan.toLowerCase() !== 'free',
    }),
  },
  foursquare: {
    baseUrl: 'https://api.foursquare.com',
    profilePath: '/v2/users/self?v=20240101',
    auth: { query: 'oauth_token' },
    read: (body) => ({ uid: String(at(body, 'response.user.id')), username: text(at(body, 'response.user.firstName')) }),
  },
  deezer: {
    baseUrl: 'https://api.deezer.com',
    profilePath: '/user/me',
    auth: { query: 'access_token' },
    read: (body) => ({ uid: String(body.id), username: text(body.name), userUrl: text(body.link), paidAccount: Number(body.status) > 0 }),
  },
};
