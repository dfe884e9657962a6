import { z } from 'zod';
import { NetworkError, type NetworkAdapter, type NetworkCredentials, type RefreshedTokens } from './adapter.js';
import { callNetwork } from './http.js';
import { loginNetworks, type Network } from './networks.js';
import { profileSpecs, type ProfileSpec } from './profiles.js';

export interface NetworkOptions {
  baseUrls?: Partial<Record<Network, string>>;
  tokenUrls?: Partial<Record<Network, string>>;
  clients?: Partial<Record<Network, { clientId: string; clientSecret: string }>>;
}

/** One adapter per reachable network; retired networks (rdio, beatsmusic) have none. */
export function createNetworkAdapters(options: NetworkOptions = {}): Map<Network, NetworkAdapter> {
  const adapters = new Map<Network, NetworkAdapter>();
  for (const [network, spec] of Object.entries(profileSpecs) as [Network, ProfileSpec][]) {
    adapters.set(network, profileAdapter(network, {
      ...spec,
      baseUrl: options.baseUrls?.[network] ?? spec.baseUrl,
      // An override moves a refresh grant elsewhere; it cannot give a network one it lacks.
      tokenUrl: spec.tokenUrl && (options.tokenUrls?.[network] ?? spec.tokenUrl),
    }, options.clients?.[network]));
  }
  return adapters;
}

function profileAdapter(network: Network, spec: ProfileSpec, client?: { clientId: string; clientSecret: string }): NetworkAdapter {
  return {
    network,
    async verify(credentials: NetworkCredentials) {
      const url = new URL(spec.baseUrl.replace(/\/$/, '') + spec.profilePath);
      const headers: Record<string, string> = {};
      if (spec.auth === 'bearer') headers.authorization = `Bearer ${credentials.token}`;
      else if (spec.auth === 'oauth-header') headers.authorization = `OAuth ${credentials.token}`;
      else url.searchParams.set(spec.auth.query, credentials.token);
      if (network === 'lastfm' && client) url.searchParams.set('api_key', client.clientId);
      const profile = spec.read(await callNetwork(network, url.toString(), { headers }));
      if (profile.uid !== credentials.uid) {
        throw new NetworkError(network, 'uid_mismatch', `The ${network} token belongs to user ${profile.uid}, not ${credentials.uid}.`);
      }
      return profile;
    },
    async refresh(credentials: NetworkCredentials): Promise<RefreshedTokens> {
      if (!spec.tokenUrl) throw new NetworkError(network, 'not_supported', `${network} tokens are not refreshed.`);
      if (!credentials.secret) throw new NetworkError(network, 'invalid_credentials', `No ${network} refresh token is stored.`);
      const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: credentials.secret });
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (client) headers.authorization = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
      const body = await callNetwork(network, spec.tokenUrl, { method: 'POST', headers, body: form.toString() });
      if (typeof body.access_token !== 'string') throw new NetworkError(network, 'unreachable', `${network} returned no access token.`);
      return {
        token: body.access_token,
        // Some networks rotate the refresh token; others keep the one we have.
        secret: typeof body.refresh_token === 'string' ? body.refresh_token : credentials.secret,
        expiresAt: typeof body.expires_in === 'number' ? new Date(Date.now() + body.expires_in * 1000) : undefined,
      };
    },
  };
}

const url = z.url({ protocol: /^https?$/ });

/** `NETWORK_<NAME>_BASE_URL`, `_TOKEN_URL`, `_CLIENT_ID`, `_CLIENT_SECRET` for each network. */
export function networkOptionsFromEnv(env: NodeJS.ProcessEnv): NetworkOptions {
  const options: Required<NetworkOptions> = { baseUrls: {}, tokenUrls: {}, clients: {} };
  for (const network of loginNetworks) {
    const prefix = `NETWORK_${network.toUpperCase()}_`;
    const read = (name: string, schema: z.ZodType<string> = z.string().min(1)) => {
      const value = env[prefix + name];
      if (!value) return undefined;
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw new Error(`${prefix}${name}: must be an http(s) URL`);
      return parsed.data;
    };
    const baseUrl = read('BASE_URL', url);
    const tokenUrl = read('TOKEN_URL', url);
    const clientId = read('CLIENT_ID');
    const clientSecret = read('CLIENT_SECRET');
    if (baseUrl) options.baseUrls[network] = baseUrl;
    if (tokenUrl) options.tokenUrls[network] = tokenUrl;
    if (clientId && clientSecret) options.clients[network] = { clientId, clientSecret };
  }
  return options;
}
