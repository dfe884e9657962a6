import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NetworkProfile } from '../../src/modules/networks/adapter.js';
import { externalNetworks, type ExternalNetwork, type Network } from '../../src/modules/networks/networks.js';

export interface FakeUser {
  network: ExternalNetwork;
  uid: string;
  token: string;
  refreshToken?: string;
  username?: string;
  email?: string;
  paid?: boolean;
  followers?: number;
}

export interface FakeClient {
  clientId: string;
  clientSecret: string;
}

interface Answer {
  status: number;
  body: unknown;
}

/**
 * How one network is imitated: its profile path (below `/<network>`), where it reads the token,
 * what it answers for a known user and what the adapter must read from that answer, how it refuses
 * an unknown token, and its refresh flavour. Every network with an API has one (test/networks
 * runs each adapter against it).
 */
export interface FakeNetwork {
  profilePath: string;
  /** Extra query parameters the real endpoint requires. */
  requires?: Record<string, string>;
  token(request: IncomingMessage, url: URL): string | undefined;
  /** Checks beyond the token (signatures, proofs); an answer refuses the call. */
  check?(url: URL, client: FakeClient): Answer | undefined;
  profile(user: FakeUser): unknown;
  /** What the adapter reads from `profile(user)`, besides the uid; a network that tells whether an account is paid has `paidAccount`. */
  reading: (user: FakeUser) => Omit<NetworkProfile, 'uid'>;
  refused: Answer;
  /** Absent: the network's tokens are not refreshed. `rotates`: each refresh token is single-use. */
  refresh?: { kind: 'oauth2'; rotates: boolean } | { kind: 'instagram' };
  /** Saving to the token owner's library: the method, the item (`track:<id>`) a request names, and the answer. */
  library?: { method: string; item(path: string, url: URL): string | undefined; saved: Answer };
}

const bearer = (request: IncomingMessage) => request.headers.authorization?.match(/^Bearer (.+)$/)?.[1];
const query = (name: string) => (_request: IncomingMessage, url: URL) => url.searchParams.get(name) ?? undefined;
const graphRefusal: Answer = { status: 400, body: { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } } };

export const fakes: Readonly<Record<ExternalNetwork, FakeNetwork>> = {
  twitter: {
    profilePath: '/2/users/me',
    token: bearer,
    profile: (u) => ({
      data: {
        id: u.uid,
        name: u.username,
        username: u.username,
        profile_image_url: `https://pbs.twimg.com/profile_images/${u.uid}.jpg`,
        public_metrics: { followers_count: u.followers ?? 0, following_count: 0 },
      },
    }),
    reading: (u) => ({
      username: u.username,
      userUrl: `https://twitter.com/${u.username}`,
      avatarUrl: `https://pbs.twimg.com/profile_images/${u.uid}.jpg`,
      followers: u.followers ?? 0,
    }),
    refused: { status: 401, body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' } },
    refresh: { kind: 'oauth2', rotates: true },
  },
  facebook: {
    profilePath: '/me',
    token: query('access_token'),
    check: (url, client) => {
      const proof = url.searchParams.get('appsecret_proof');
      const expected = createHmac('sha256', client.clientSecret)
        .update(url.searchParams.get('access_token') ?? '')
        .digest('hex');
      if (proof !== null && proof !== expected) {
        return { status: 400, body: { error: { message: 'Invalid appsecret_proof provided in the API argument', type: 'GraphMethodException', code: 100 } } };
      }
      return undefined;
    },
    profile: (u) => ({
      id: u.uid,
      name: u.username,
      first_name: u.username?.split(' ')[0],
      last_name: u.username?.split(' ')[1],
      email: u.email,
      picture: { data: { url: `https://graph.facebook.com/${u.uid}/picture`, is_silhouette: false } },
    }),
    reading: (u) => ({
      username: u.username,
      firstName: u.username?.split(' ')[0],
      surname: u.username?.split(' ')[1],
      email: u.email,
      avatarUrl: `https://graph.facebook.com/${u.uid}/picture`,
    }),
    refused: graphRefusal,
  },
  google: {
    profilePath: '/oauth2/v3/userinfo',
    token: bearer,
    profile: (u) => ({ sub: u.uid, name: u.username, given_name: u.username, email: u.email, email_verified: Boolean(u.email) }),
    reading: (u) => ({ username: u.username, firstName: u.username, email: u.email, emailVerified: u.email ? true : undefined }),
    refused: { status: 401, body: { error: 'invalid_request', error_description: 'Invalid Credentials' } },
    refresh: { kind: 'oauth2', rotates: false },
  },
  youtube: {
    profilePath: '/youtube/v3/channels',
    requires: { mine: 'true', part: 'snippet,statistics' },
    token: bearer,
    profile: (u) => ({
      kind: 'youtube#channelListResponse',
      items: [
        {
          kind: 'youtube#channel',
          id: u.uid,
          snippet: { title: u.username ?? u.uid, customUrl: u.username && `@${u.username}`, thumbnails: { default: { url: `https://yt3.ggpht.com/${u.uid}` } } },
          statistics: { subscriberCount: String(u.followers ?? 0), hiddenSubscriberCount: false },
        },
      ],
    }),
    reading: (u) => ({
      username: u.username ? `@${u.username}` : u.uid,
      userUrl: u.username ? `https://www.youtube.com/@${u.username}` : `https://www.youtube.com/channel/${u.uid}`,
      avatarUrl: `https://yt3.ggpht.com/${u.uid}`,
      followers: u.followers ?? 0,
    }),
    refused: { status: 401, body: { error: { code: 401, message: 'Request had invalid authentication credentials.', errors: [{ reason: 'authError' }] } } },
    refresh: { kind: 'oauth2', rotates: false },
  },
  instagram: {
    profilePath: '/me',
    requires: { fields: 'id,username' },
    token: query('access_token'),
    profile: (u) => ({ id: u.uid, username: u.username }),
    reading: (u) => ({ username: u.username, userUrl: u.username && `https://www.instagram.com/${u.username}` }),
    refused: graphRefusal,
    refresh: { kind: 'instagram' },
  },
  lastfm: {
    profilePath: '/2.0/',
    requires: { method: 'user.getInfo', format: 'json' },
    token: query('sk'),
    check: (url, client) => {
      if (url.searchParams.get('api_key') !== client.clientId) return { status: 403, body: { error: 10, message: 'Invalid API key - You must be granted a valid key by last.fm' } };
      const signed = [...url.searchParams].filter(([name]) => name !== 'format' && name !== 'api_sig').sort(([a], [b]) => (a < b ? -1 : 1));
      const signature = createHash('md5')
        .update(signed.map(([name, value]) => name + value).join('') + client.clientSecret)
        .digest('hex');
      if (url.searchParams.get('api_sig') !== signature) return { status: 403, body: { error: 13, message: 'Invalid method signature supplied' } };
      return undefined;
    },
    profile: (u) => ({
      user: {
        name: u.uid,
        realname: u.username ?? '',
        url: `https://www.last.fm/user/${u.uid}`,
        subscriber: u.paid ? '1' : '0',
        playcount: '42',
        image: [
          { size: 'small', '#text': `https://lastfm.freetls.fastly.net/i/u/34s/${u.uid}.png` },
          { size: 'large', '#text': `https://lastfm.freetls.fastly.net/i/u/174s/${u.uid}.png` },
        ],
      },
    }),
    reading: (u) => ({
      username: u.uid,
      userUrl: `https://www.last.fm/user/${u.uid}`,
      avatarUrl: `https://lastfm.freetls.fastly.net/i/u/174s/${u.uid}.png`,
      paidAccount: Boolean(u.paid),
    }),
    refused: { status: 403, body: { error: 9, message: 'Invalid session key - Please re-authenticate' } },
  },
  spotify: {
    profilePath: '/v1/me',
    token: bearer,
    profile: (u) => ({
      id: u.uid,
      display_name: u.username,
      email: u.email,
      product: u.paid ? 'premium' : 'free',
      followers: { href: null, total: u.followers ?? 0 },
      external_urls: { spotify: `https://open.spotify.com/user/${u.uid}` },
      images: [{ url: `https://i.scdn.co/image/${u.uid}`, height: 300, width: 300 }],
    }),
    reading: (u) => ({
      username: u.username,
      userUrl: `https://open.spotify.com/user/${u.uid}`,
      email: u.email,
      paidAccount: Boolean(u.paid),
      followers: u.followers ?? 0,
      avatarUrl: `https://i.scdn.co/image/${u.uid}`,
    }),
    refused: { status: 401, body: { error: { status: 401, message: 'Invalid access token' } } },
    refresh: { kind: 'oauth2', rotates: false },
    library: {
      method: 'PUT',
      item: (path, url) => {
        const kind = { '/v1/me/tracks': 'track', '/v1/me/albums': 'album' }[path];
        const id = url.searchParams.get('ids');
        return kind && id ? `${kind}:${id}` : undefined;
      },
      // Spotify answers a save with an empty body.
      saved: { status: 200, body: '' },
    },
  },
  tumblr: {
    profilePath: '/v2/user/info',
    token: bearer,
    profile: (u) => ({
      meta: { status: 200, msg: 'OK' },
      response: { user: { name: u.uid, likes: 0, following: 0, blogs: [{ name: u.uid, url: `https://${u.uid}.tumblr.com/`, primary: true, followers: u.followers ?? 0 }] } },
    }),
    reading: (u) => ({ username: u.uid, userUrl: `https://${u.uid}.tumblr.com/`, followers: u.followers ?? 0 }),
    refused: { status: 401, body: { meta: { status: 401, msg: 'Unauthorized' }, response: [] } },
    refresh: { kind: 'oauth2', rotates: true },
  },
  soundcloud: {
    profilePath: '/me',
    token: (request) => request.headers.authorization?.match(/^OAuth (.+)$/)?.[1],
    profile: (u) => ({
      id: Number(u.uid) || u.uid,
      kind: 'user',
      username: u.username,
      permalink_url: `https://soundcloud.com/${u.username ?? u.uid}`,
      avatar_url: `https://i1.sndcdn.com/avatars-${u.uid}-large.jpg`,
      followers_count: u.followers ?? 0,
      plan: u.paid ? 'Pro Unlimited' : 'Free',
    }),
    reading: (u) => ({
      username: u.username,
      userUrl: `https://soundcloud.com/${u.username ?? u.uid}`,
      avatarUrl: `https://i1.sndcdn.com/avatars-${u.uid}-large.jpg`,
      followers: u.followers ?? 0,
      paidAccount: Boolean(u.paid),
    }),
    refused: { status: 401, body: { code: 401, message: '' } },
    refresh: { kind: 'oauth2', rotates: true },
  },
  foursquare: {
    profilePath: '/v2/users/self',
    token: query('oauth_token'),
    check: (url) => (url.searchParams.get('v') ? undefined : { status: 400, body: { meta: { code: 400, errorType: 'param_error', errorDetail: 'Missing version' } } }),
    profile: (u) => ({
      meta: { code: 200 },
      response: {
        user: {
          id: u.uid,
          firstName: u.username,
          contact: { email: u.email },
          photo: { prefix: 'https://fastly.4sqi.net/img/user/', suffix: `/${u.uid}.jpg` },
          canonicalUrl: `https://foursquare.com/user/${u.uid}`,
        },
      },
    }),
    reading: (u) => ({
      username: u.username,
      firstName: u.username,
      email: u.email,
      userUrl: `https://foursquare.com/user/${u.uid}`,
      avatarUrl: `https://fastly.4sqi.net/img/user/original/${u.uid}.jpg`,
    }),
    refused: { status: 401, body: { meta: { code: 401, errorType: 'invalid_auth', errorDetail: 'OAuth token invalid or revoked.' }, response: {} } },
  },
  deezer: {
    profilePath: '/user/me',
    token: query('access_token'),
    profile: (u) => ({
      id: Number(u.uid) || u.uid,
      name: u.username,
      firstname: u.username,
      email: u.email,
      status: u.paid ? 1 : 0,
      link: `https://www.deezer.com/profile/${u.uid}`,
      picture_medium: `https://e-cdns-images.dzcdn.net/images/user/${u.uid}/250x250.jpg`,
      type: 'user',
    }),
    reading: (u) => ({
      username: u.username,
      firstName: u.username,
      email: u.email,
      userUrl: `https://www.deezer.com/profile/${u.uid}`,
      paidAccount: Boolean(u.paid),
      avatarUrl: `https://e-cdns-images.dzcdn.net/images/user/${u.uid}/250x250.jpg`,
    }),
    // Deezer reports errors with HTTP 200.
    refused: { status: 200, body: { error: { type: 'OAuthException', message: 'Invalid OAuth access token.', code: 300 } } },
    library: {
      method: 'POST',
      item: (path, url) => {
        const kind = { '/user/me/tracks': 'track', '/user/me/albums': 'album' }[path];
        const id = kind && url.searchParams.get(`${kind}_id`);
        return kind && id ? `${kind}:${id}` : undefined;
      },
      saved: { status: 200, body: true },
    },
  },
};

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return new URLSearchParams(body);
}

/** The client a token request presents (HTTP Basic or form fields); undefined when it presents none. */
function presentedClient(request: IncomingMessage, form: URLSearchParams): FakeClient | undefined {
  const basic = request.headers.authorization?.match(/^Basic (.+)$/)?.[1];
  if (basic) {
    const [clientId, clientSecret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    return { clientId: clientId ?? '', clientSecret: clientSecret ?? '' };
  }
  const clientId = form.get('client_id');
  return clientId === null ? undefined : { clientId, clientSecret: form.get('client_secret') ?? '' };
}

export type FakeNetworks = Awaited<ReturnType<typeof startFakeNetworks>>;

/**
 * A stand-in for every network with an API, on 127.0.0.1 at a random port. `/<network>/<real path>`
 * answers that network's profile for a known token (and refuses others as the network does), and
 * `/<network>/token` runs its refresh, issuing a new token. A token request that presents a client
 * must present the one in `clients`; one that presents none is accepted.
 */
export async function startFakeNetworks() {
  const users: FakeUser[] = [];
  const outages = new Map<ExternalNetwork, number>();
  /** Every save to a library, in order, repeats included: tests count them. */
  const saves: { network: ExternalNetwork; uid: string; item: string }[] = [];
  const clients = Object.fromEntries(externalNetworks.map((n) => [n, { clientId: `${n}-client-id`, clientSecret: `${n}-client-secret` }])) as Record<ExternalNetwork, FakeClient>;
  let issued = 0;

  async function answer(request: IncomingMessage, network: ExternalNetwork, path: string, url: URL): Promise<Answer> {
    const fake = fakes[network];
    const outage = outages.get(network);
    if (outage) return { status: outage, body: 'Service Unavailable' };
    if (path === '/token') return refresh(request, network, url);
    const item = fake.library?.item(path, url);
    if (fake.library && item) return save(request, network, fake.library, item, url);
    if (path !== fake.profilePath || request.method !== 'GET') return { status: 404, body: { error: 'not found' } };
    for (const [name, value] of Object.entries(fake.requires ?? {})) {
      if (url.searchParams.get(name) !== value) return { status: 400, body: { error: `${name} must be ${value}` } };
    }
    const refusal = fake.check?.(url, clients[network]);
    if (refusal) return refusal;
    const token = fake.token(request, url);
    const user = users.find((u) => u.network === network && u.token === token);
    return user ? { status: 200, body: fake.profile(user) } : fake.refused;
  }

  function save(request: IncomingMessage, network: ExternalNetwork, library: NonNullable<FakeNetwork['library']>, item: string, url: URL): Answer {
    if (request.method !== library.method) return { status: 405, body: { error: 'method not allowed' } };
    const token = fakes[network].token(request, url);
    const user = users.find((u) => u.network === network && u.token === token);
    if (!user) return fakes[network].refused;
    saves.push({ network, uid: user.uid, item });
    return library.saved;
  }

  async function refresh(request: IncomingMessage, network: ExternalNetwork, url: URL): Promise<Answer> {
    const flavour = fakes[network].refresh;
    if (!flavour) return { status: 404, body: { error: 'not found' } };
    if (flavour.kind === 'instagram') {
      const user = users.find((u) => u.network === network && u.token === url.searchParams.get('access_token'));
      if (request.method !== 'GET' || url.searchParams.get('grant_type') !== 'ig_refresh_token')
        return { status: 400, body: { error: { message: 'Unsupported request', type: 'IGApiException', code: 100 } } };
      if (!user) return graphRefusal;
      user.token = `${network}-fresh-${++issued}`;
      return { status: 200, body: { access_token: user.token, token_type: 'bearer', expires_in: 5184000 } };
    }
    if (request.method !== 'POST') return { status: 405, body: { error: 'invalid_request' } };
    const form = await formOf(request);
    const client = presentedClient(request, form);
    const expected = clients[network];
    if (client && (client.clientId !== expected.clientId || client.clientSecret !== expected.clientSecret)) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
    }
    if (form.get('grant_type') !== 'refresh_token') return { status: 400, body: { error: 'unsupported_grant_type' } };
    const user = users.find((u) => u.network === network && u.refreshToken !== undefined && u.refreshToken === form.get('refresh_token'));
    if (!user) return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid refresh token' } };
    user.token = `${network}-fresh-${++issued}`;
    if (flavour.rotates) user.refreshToken = `${network}-refresh-${issued}`;
    return {
      status: 200,
      body: { access_token: user.token, token_type: 'bearer', expires_in: 3600, ...(flavour.rotates ? { refresh_token: user.refreshToken } : {}) },
    };
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const [, network = '', ...rest] = url.pathname.split('/');
    const reply = ({ status, body }: Answer) => {
      response.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (!Object.hasOwn(fakes, network)) return reply({ status: 404, body: { error: 'no such network' } });
    answer(request, network as ExternalNetwork, `/${rest.join('/')}`, url).then(reply, (error: unknown) => reply({ status: 500, body: { error: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    baseUrls: Object.fromEntries(externalNetworks.map((n) => [n, `${base}/${n}`])) as Partial<Record<Network, string>>,
    tokenUrls: Object.fromEntries(externalNetworks.map((n) => [n, `${base}/${n}/token`])) as Partial<Record<Network, string>>,
    /** The clients the fake expects; pass them as `clients` (Last.fm needs its one to sign calls). */
    clients: clients as Partial<Record<Network, FakeClient>>,
    /** Registers a user; the returned object follows refreshes (its token and refresh token change). */
    addUser(user: FakeUser): FakeUser {
      const stored = { ...user };
      users.push(stored);
      return stored;
    },
    /** The saves to libraries so far (`item` is `track:<id>` or `album:<id>`). */
    saves,
    /** Makes a network answer every call with this HTTP status and a plain-text body; undefined restores it. */
    failWith(network: ExternalNetwork, status: number | undefined) {
      if (status === undefined) outages.delete(network);
      else outages.set(network, status);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
