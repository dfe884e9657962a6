import { NetworkError, type LibraryItem, type NetworkCredentials, type NetworkProfile, type RefreshedTokens } from '../adapter.js';
import type { Endpoints, NamedNetwork, NetworkApi, NetworkClient } from '../declaration.js';
import { callNetwork, endpoint, sendToNetwork, type Classifier } from '../http.js';

export interface RefreshCall {
  network: NamedNetwork;
  tokenUrl: string;
  client?: NetworkClient;
  credentials: NetworkCredentials;
}

export type RefreshGrant = (call: RefreshCall) => Promise<RefreshedTokens>;

/** Adds the token (and anything else the network wants) to the profile request. */
export type Authorise = (request: { url: URL; headers: Record<string, string> }, credentials: NetworkCredentials, endpoints: Endpoints, network: NamedNetwork) => void;

/** A profile as read from an answer: the id may be missing when the answer is not what was expected. */
export type ProfileReading = Partial<NetworkProfile>;

/**
 * A network whose `verify` is one GET of the token owner's profile. `auth` says where the token
 * goes: an `Authorization: Bearer` header, SoundCloud's `Authorization: OAuth`, a query parameter,
 * or a function for networks that sign requests.
 */
export interface ProfileSpec {
  baseUrl: string;
  /** Path and fixed query below the API root. */
  profilePath: string;
  auth: 'bearer' | 'oauth' | { query: string } | Authorise;
  /** Failures the network reports in its own way; 401 and 403 always refuse the credentials. */
  classify?: Classifier;
  /** The token owner's profile from the answer; may throw a NetworkError for the network. */
  read(body: Record<string, unknown>, network: NamedNetwork): ProfileReading;
  /** User names that differ only in case are the same user (the network's spelling is returned). */
  caseInsensitiveUid?: boolean;
  /** The network's token endpoint and grant; absent: its tokens are not refreshed. */
  refresh?: { tokenUrl: string; grant: RefreshGrant };
  /** How a track or album is saved to the token owner's library (path and query below the API root); absent: it cannot be. */
  library?: (item: LibraryItem) => { method: 'POST' | 'PUT'; path: string };
}

/** The API of a network whose `verify` reads the token owner's profile (every network with an API here). */
export function profileApi(spec: ProfileSpec): NetworkApi {
  return {
    baseUrl: spec.baseUrl,
    tokenUrl: spec.refresh?.tokenUrl,
    create: (network, endpoints) => ({
      network: network.id,
      async verify(credentials) {
        const request = { url: endpoint(endpoints.baseUrl, spec.profilePath), headers: {} as Record<string, string> };
        authorise(spec.auth, request, credentials, endpoints, network);
        const reading = spec.read(await callNetwork(network, request.url, { headers: request.headers, classify: spec.classify }), network);
        if (!reading.uid) throw new NetworkError(network.id, 'unreachable', `${network.name} answered without a user id.`);
        const same = spec.caseInsensitiveUid ? reading.uid.toLowerCase() === credentials.uid.toLowerCase() : reading.uid === credentials.uid;
        if (!same) {
          throw new NetworkError(network.id, 'uid_mismatch', `The ${network.name} token belongs to user ${reading.uid}, not ${credentials.uid}.`);
        }
        return withoutUndefined({ ...reading, uid: reading.uid });
      },
      async refresh(credentials) {
        if (!spec.refresh || !endpoints.tokenUrl) throw new NetworkError(network.id, 'not_supported', `${network.name} tokens cannot be refreshed.`);
        return spec.refresh.grant({ network, tokenUrl: endpoints.tokenUrl, client: endpoints.client, credentials });
      },
      ...(spec.library ? { saveToLibrary: saver(spec, spec.library, endpoints, network) } : {}),
    }),
  };
}

function saver(spec: ProfileSpec, library: NonNullable<ProfileSpec['library']>, endpoints: Endpoints, network: NamedNetwork) {
  return async (credentials: NetworkCredentials, item: LibraryItem): Promise<void> => {
    const call = library(item);
    const request = { url: endpoint(endpoints.baseUrl, call.path), headers: {} as Record<string, string> };
    authorise(spec.auth, request, credentials, endpoints, network);
    await sendToNetwork(network, request.url, { method: call.method, headers: request.headers, classify: spec.classify });
  };
}

function authorise(auth: ProfileSpec['auth'], request: { url: URL; headers: Record<string, string> }, credentials: NetworkCredentials, endpoints: Endpoints, network: NamedNetwork) {
  if (typeof auth === 'function') auth(request, credentials, endpoints, network);
  else if (auth === 'bearer') request.headers.authorization = `Bearer ${credentials.token}`;
  else if (auth === 'oauth') request.headers.authorization = `OAuth ${credentials.token}`;
  else request.url.searchParams.set(auth.query, credentials.token);
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
