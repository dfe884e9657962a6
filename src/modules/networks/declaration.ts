import type { NetworkAdapter } from './adapter.js';
import type { BrandPages } from './brand-pages.js';
import type { Network } from './networks.js';

/** The gateway's client with a network: its API key and secret, or OAuth client id and secret. */
export interface NetworkClient {
  clientId: string;
  clientSecret: string;
}

/** Where one adapter calls, after configuration: the API root, the token endpoint, and the gateway's client. */
export interface Endpoints {
  baseUrl: string;
  /** Absent when the network has no way to refresh tokens. */
  tokenUrl?: string;
  client?: NetworkClient;
}

/** A network as its adapter carries it into calls and messages: its identifier and the name people know. */
export interface NamedNetwork {
  id: Network;
  name: string;
}

/** A network's API, before configuration: its real endpoints, and how its adapter is built for others. */
export interface NetworkApi {
  baseUrl: string;
  /** Absent when the network has no way to refresh tokens. */
  tokenUrl?: string;
  create(network: NamedNetwork, endpoints: Endpoints): NetworkAdapter;
}

/**
 * Everything the gateway knows of one network, declared once in the network's folder
 * (`adapters/<id>/index.ts`) and listed once in registry.ts. The identifier sets, display names,
 * adapters and brand record fields are all read from these declarations.
 */
export interface NetworkDeclaration {
  /**
   * The identifier: lower-case letters and digits, the folder's name. It is what REST `service`
   * parameters and GraphQL `network` fields carry, and NAME in `NETWORK_<NAME>_*`; once released it
   * never changes.
   */
  id: string;
  /** How the network names itself, for people: 'Last.fm', 'YouTube'. Its letters and digits name the brand record's fields (`LastfmURL`). */
  name: string;
  /**
   * Members' identities on the network. `register`: members register, log in and are verified with
   * it. `retired`: the network closed its API; old identities still log in and are verified, but its
   * adapter refuses every call. Absent: no identities (a network only brands have pages on).
   */
  identities?: 'register' | 'retired';
  /** How a token is verified and refreshed; absent when there is nothing to call (email, retired networks). */
  api?: NetworkApi;
  /** The network's pages on a brand record: what their URLs say, and the record's name field. */
  brand?: BrandPages;
}

/** Keeps the declaration's literal types (identifier, identities), from which registry.ts derives the identifier types. */
export function declareNetwork<const D extends NetworkDeclaration>(declaration: D): D {
  return declaration;
}
