import { z } from 'zod';
import { ConfigError } from '../../config.js';
import type { NetworkAdapter } from './adapter.js';
import { beatsmusic } from './adapters/beatsmusic/index.js';
import { deezer } from './adapters/deezer/index.js';
import { email } from './adapters/email/index.js';
import { facebook } from './adapters/facebook/index.js';
import { foursquare } from './adapters/foursquare/index.js';
import { google } from './adapters/google/index.js';
import { instagram } from './adapters/instagram/index.js';
import { itunes } from './adapters/itunes/index.js';
import { lastfm } from './adapters/lastfm/index.js';
import { rdio } from './adapters/rdio/index.js';
import { retiredAdapter } from './adapters/retired.js';
import { soundcloud } from './adapters/soundcloud/index.js';
import { spotify } from './adapters/spotify/index.js';
import { tumblr } from './adapters/tumblr/index.js';
import { twitter } from './adapters/twitter/index.js';
import { youtube } from './adapters/youtube/index.js';
import type { NetworkClient, NetworkDeclaration } from './declaration.js';
import type { Network } from './networks.js';
import { namedOperations } from './spans.js';

/**
 * Every network the gateway knows, one line each, each declared in its folder under adapters/
 * (docs/layout.md, "Adding a network"). The order is the order of the identifier sets and of the
 * network fields on a brand record (the seed's: social, video, photo, blogging, music, then
 * Google), so a new network goes where its brand fields belong, or before the retired ones.
 */
export const declaredNetworks = [email, facebook, twitter, youtube, instagram, tumblr, spotify, deezer, soundcloud, lastfm, itunes, google, foursquare, rdio, beatsmusic] as const;

/** The same list, for reading without each network's literal type. */
const declarations: readonly NetworkDeclaration[] = declaredNetworks;

export interface NetworkOptions {
  /** API roots, replacing the networks' own (tests point them at a local fake). */
  baseUrls?: Partial<Record<Network, string>>;
  /** Token endpoints, for networks that have one. */
  tokenUrls?: Partial<Record<Network, string>>;
  /** The gateway's client with each network: refresh calls, Last.fm signatures, Facebook's appsecret_proof. */
  clients?: Partial<Record<Network, NetworkClient>>;
}

/**
 * One adapter per network with an API, and one per retired network (which refuses every call);
 * email, and networks without identities, have none. A token URL override moves a network's
 * refresh grant; it cannot give a network one it lacks. Each adapter's methods name themselves to
 * the calls they make, for the calls' spans (spans.ts).
 */
export function createNetworkAdapters(options: NetworkOptions = {}): Map<Network, NetworkAdapter> {
  const adapters = new Map<Network, NetworkAdapter>();
  for (const declaration of declarations) {
    const network = { id: declaration.id as Network, name: declaration.name };
    if (declaration.api) {
      const { api } = declaration;
      adapters.set(
        network.id,
        namedOperations(
          api.create(network, {
            baseUrl: options.baseUrls?.[network.id] ?? api.baseUrl,
            tokenUrl: api.tokenUrl && (options.tokenUrls?.[network.id] ?? api.tokenUrl),
            client: options.clients?.[network.id],
          }),
        ),
      );
    } else if (declaration.identities === 'retired') {
      adapters.set(network.id, namedOperations(retiredAdapter(network)));
    }
  }
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
  const raw = new Map<Network, Record<string, string>>();
  for (const [name, value] of Object.entries(env)) {
    const match = variablePattern.exec(name);
    if (!match || value === undefined || value === '') continue;
    const network = match[1].toLowerCase();
    const declaration = declarations.find((candidate) => candidate.id === network);
    if (!declaration?.api) {
      problems.push(`${name}: ${declaration ? `${network} has no network API to configure` : `unknown network ${network}`}`);
      continue;
    }
    const entry = raw.get(declaration.id as Network) ?? {};
    entry[settings[match[2] as keyof typeof settings]] = value;
    raw.set(declaration.id as Network, entry);
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
