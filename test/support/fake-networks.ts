import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Network } from '../../src/modules/networks/networks.js';
import { profileSpecs } from '../../src/modules/networks/profiles.js';

export interface FakeUser {
  network: Network;
  uid: string;
  token: string;
  refreshToken?: string;
  username?: string;
  email?: string;
  paid?: boolean;
  followers?: number;
}

/** What each network's profile endpoint answers, in that network's own JSON shape. */
const bodies: Record<keyof typeof profileSpecs, (user: FakeUser) => unknown> = {
  twitter: (u) => ({ data: { id: u.uid, username: u.username, public_metrics: { followers_count: u.followers } } }),
  facebook: (u) => ({ id: u.uid, name: u.username, email: u.email }),
  google: (u) => ({ sub: u.uid, name: u.username, email: u.email, email_verified: Boolean(u.email) }),
  youtube: (u) => ({ items: [{ id: u.uid, snippet: { customUrl: u.username }, statistics: { subscriberCount: String(u.followers ?? 0) } }] }),
  instagram: (u) => ({ id: u.uid, username: u.username }),
  lastfm: (u) => ({ user: { name: u.uid, url: `https://www.last.fm/user/${u.uid}`, subscriber: u.paid ? '1' : '0' } }),
  spotify: (u) => ({ id: u.uid, display_name: u.username, email: u.email, product: u.paid ? 'premium' : 'free', followers: { total: u.followers ?? 0 } }),
  tumblr: (u) => ({ response: { user: { name: u.uid } } }),
  soundcloud: (u) => ({ id: u.uid, username: u.username, permalink_url: `https://soundcloud.com/${u.username}`, followers_count: u.followers, plan: u.paid ? 'Pro' : 'Free' }),
  foursquare: (u) => ({ response: { user: { id: u.uid, firstName: u.username } } }),
  deezer: (u) => ({ id: u.uid, name: u.username, link: `https://www.deezer.com/profile/${u.uid}`, status: u.paid ? 1 : 0 }),
};

function tokenOf(request: IncomingMessage, url: URL): string | undefined {
  const header = request.headers.authorization?.match(/^(?:Bearer|OAuth)\s+(.+)$/)?.[1];
  return header ?? url.searchParams.get('access_token') ?? url.searchParams.get('oauth_token') ?? url.searchParams.get('sk') ?? undefined;
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return new URLSearchParams(text);
}

/**
 * A stand-in for every network on 127.0.0.1: `/<network>/…` answers that network's profile for a
 * known token (401 otherwise), and `/<network>/token` runs the refresh grant, issuing a new token.
 */
export async function startFakeNetworks() {
  const users: FakeUser[] = [];
  let issued = 0;
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const network = url.pathname.split('/')[1] as keyof typeof bodies;
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (!(network in bodies)) return reply(404, { error: 'no such network' });
    if (url.pathname === `/${network}/token` && request.method === 'POST') {
      const form = await formOf(request);
      const user = users.find((u) => u.network === network && u.refreshToken && u.refreshToken === form.get('refresh_token'));
      if (form.get('grant_type') !== 'refresh_token' || !user) return reply(400, { error: 'invalid_grant' });
      user.token = `${network}-fresh-${++issued}`;
      return reply(200, { access_token: user.token, token_type: 'Bearer', expires_in: 3600 });
    }
    const token = tokenOf(request, url);
    const user = users.find((u) => u.network === network && u.token === token);
    if (!user) return reply(401, { error: 'invalid token' });
    return reply(200, bodies[network](user));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const networks = Object.keys(bodies) as (keyof typeof bodies)[];
  return {
    baseUrls: Object.fromEntries(networks.map((n) => [n, `${base}/${n}`])) as Partial<Record<Network, string>>,
    tokenUrls: Object.fromEntries(networks.map((n) => [n, `${base}/${n}/token`])) as Partial<Record<Network, string>>,
    addUser(user: FakeUser) {
      users.push(user);
      return user;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
