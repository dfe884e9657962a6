import { z } from 'zod';
import { ConfigError } from '../../config.js';
import type { NetworkAdapter } from './adapter.js';
import { deezer } from './adapters/deezer.js';
import type { AdapterDefinition, NetworkClient } from './adapters/define.js';
import { facebook } from './adapters/facebook.js';
import { foursquare } from './adapters/foursquare.js';
import { google } from './adapters/google.js';
import { instagram } from './adapters/instagram.js';
import { lastfm } from './adapters/lastfm.js';
import { retiredAdapter } from './adapters/retired.js';
import { soundcloud } from './adapters/soundcloud.js';
import { spotify } from './adapters/spotify.js';
import { tumblr } from './adapters/tumblr.js';
import { twitter } from './adapters/twitter.js';
import { youtube } from './adapters/youtube.js';
import { externalNetworks, isLoginNetwork, retiredNetworks, type ExternalNetwork, type Network } from './networks.js';

export interface NetworkOptions {
  /** API roots, replacing the networks' own (tests point them at a local fake). */
  baseUrls?: Partial<Record<Network, string>>;
  /** Token endpoints, for networks that have one. */
  tokenUrls?: Partial<Record<Network, string>>;
  /** The gateway's client with each network: refresh calls, Last.fm signatures, Facebook's appsecret_proof. */
  clients?: Partial<Record<Network, NetworkClient>>;
}

const definitions: Record<ExternalNetwork, AdapterDefinition> = {
  twitter, facebook, google, instagram, lastfm, youtube, spotify, tumblr, soundcloud, foursquare, deezer,
};

/**
 * One adapter per network with an API, and one per retired network (which refuses every call);
 * email has none. A token URL override moves a network's refresh grant; it cannot give a network
 * one it lacks.
 */
export function createNetworkAdapters(options: NetworkOptions = {}): Map<Network, NetworkAdapter> {
  const adapters = new Map<Network, NetworkAdapter>();
  for (const network of externalNetworks) {
    const definition = definitions[network];
    adapters.set(network, definition.create({
      baseUrl: options.baseUrls?.[network] ?? definition.baseUrl,
      tokenUrl: definition.tokenUrl && (options.tokenUrls?.[network] ?? definition.tokenUrl),
      client: options.clients?.[network],
    }));
  }
  for (const network of retiredNetworks) adapters.set(network, retiredAdapter(network));
  return adapters;
}

const settings = { BASE_URL: 'baseUrl', TOKEN_URL: 'tokenUrl', CLIENT_ID: 'clientId', CLIENT_SECRET: 'clientSecret' } as const;
const variablePattern = /^NETWORK_([A-Z0-9]+)_(BASE_URL|TOKEN_URL|CLIENT_ID|CLIENT_SECRET)$/;

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
const networkSettingsSchema = z.object({
  baseUrl: httpUrl.optional(),
  tokenUrl: httpUrl.optional(),
  clientId: z.string().trim().min(1).optional(),
  clientSecret: z.string().trim().min(1).optional(),
});

/**
 * `NETWORK_<NAME>_BASE_URL`, `_TOKEN_URL`, `_CLIENT_ID` and `_CLIENT_SECRET` (NAME upper case),
 * validated like the rest of the configuration: a typo stops the start with a ConfigError naming
 * the variable. Empty values count as unset.
 */
export function networkOptionsFromEnv(env: NodeJS.ProcessEnv): NetworkOptions {
  const problems: string[] = [];
  const raw = new Map<ExternalNetwork, Record<string, string>>();
  for (const [name, value] of Object.entries(env)) {
    const match = variablePattern.exec(name);
    if (!match || value === undefined || value === '') continue;
    const network = match[1].toLowerCase();
    if (!(externalNetworks as readonly string[]).includes(network)) {
      problems.push(`${name}: ${isLoginNetwork(network) ? `${network} has no network API to configure` : `unknown network ${network}`}`);
      continue;
    }
    const entry = raw.get(network as ExternalNetwork) ?? {};
    entry[settings[match[2] as keyof typeof settings]] = value;
    raw.set(network as ExternalNetwork, entry);
  }
  const options: Required<NetworkOptions> = { baseUrls: {}, tokenUrls: {}, clients: {} };
  for (const [network, entry] of raw) {
    const prefix = `NETWORK_${network.toUpperCase()}_`;
    const parsed = networkSettingsSchema.safeParse(entry);
    if (!parsed.success) {
      const names = Object.fromEntries(Object.entries(settings).map(([suffix, key]) => [key, prefix + suffix]));
      problems.push(...parsed.error.issues.map((issue) => `${names[String(issue.path[0])] ?? prefix}: ${issue.message}`));
      continue;
    }
    const { baseUrl, tokenUrl, clientId, clientSecret } = parsed.data;
    if (baseUrl) options.baseUrls[network] = baseUrl;
    if (tokenUrl) options.tokenUrls[network] = tokenUrl;
    if (clientId && clientSecret) options.clients[network] = { clientId, clientSecret };
    else if (clientId || clientSecret) problems.push(`${prefix}${clientId ? 'CLIENT_SECRET' : 'CLIENT_ID'}: required with ${prefix}${clientId ? 'CLIENT_ID' : 'CLIENT_SECRET'}`);
  }
  if (problems.length > 0) throw new ConfigError(problems.sort());
  return options;
}
