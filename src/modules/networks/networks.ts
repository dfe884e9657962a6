/** The networks a member may register with: email and eleven external networks. */
export const registerNetworks = [
  'email', 'twitter', 'facebook', 'google', 'instagram', 'lastfm', 'youtube', 'spotify', 'tumblr', 'soundcloud', 'foursquare', 'deezer',
] as const;

/** Networks that closed their APIs: their identities still sign in, but nothing can be checked with them. */
export const retiredNetworks = ['rdio', 'beatsmusic'] as const;

/** Login and verify accept every register network and the retired ones, whose old identities still sign in. */
export const loginNetworks = [...registerNetworks, ...retiredNetworks] as const;

export type Network = (typeof loginNetworks)[number];
export type RegisterNetwork = (typeof registerNetworks)[number];
export type RetiredNetwork = (typeof retiredNetworks)[number];
/** The networks with an API to call: every register network but email. */
export type ExternalNetwork = Exclude<RegisterNetwork, 'email'>;

export const externalNetworks: readonly ExternalNetwork[] = registerNetworks.filter((network): network is ExternalNetwork => network !== 'email');

const names: Record<Network, string> = {
  email: 'Email', twitter: 'Twitter', facebook: 'Facebook', google: 'Google', instagram: 'Instagram', lastfm: 'Last.fm',
  youtube: 'YouTube', spotify: 'Spotify', tumblr: 'Tumblr', soundcloud: 'SoundCloud', foursquare: 'Foursquare',
  deezer: 'Deezer', rdio: 'Rdio', beatsmusic: 'Beats Music',
};

const registerSet: ReadonlySet<string> = new Set(registerNetworks);
const loginSet: ReadonlySet<string> = new Set(loginNetworks);
const retiredSet: ReadonlySet<string> = new Set(retiredNetworks);

export function isRegisterNetwork(value: string): value is RegisterNetwork {
  return registerSet.has(value);
}

export function isLoginNetwork(value: string): value is Network {
  return loginSet.has(value);
}

export function isRetiredNetwork(value: string): value is RetiredNetwork {
  return retiredSet.has(value);
}

/** How the network names itself, for people ('Last.fm', 'YouTube', 'SoundCloud'). */
export function displayName(network: Network): string {
  return names[network];
}

/** A network identifier of the set, case-insensitive and trimmed; undefined when unknown. */
export function parseNetwork(value: string, set: 'register' | 'login'): Network | undefined {
  const candidate = value.trim().toLowerCase();
  return (set === 'register' ? isRegisterNetwork : isLoginNetwork)(candidate) ? candidate : undefined;
}
