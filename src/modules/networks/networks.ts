/** The networks a member may register with: email and eleven external networks. */
export const registerNetworks = [
  'email', 'twitter', 'facebook', 'google', 'instagram', 'lastfm', 'youtube', 'spotify', 'tumblr', 'soundcloud', 'foursquare', 'deezer',
] as const;

/** Login and verify also accept two retired networks, whose old identities still sign in. */
export const loginNetworks = [...registerNetworks, 'rdio', 'beatsmusic'] as const;

export type Network = (typeof loginNetworks)[number];

const names: Record<Network, string> = {
  email: 'Email', twitter: 'Twitter', facebook: 'Facebook', google: 'Google', instagram: 'Instagram', lastfm: 'Last.fm',
  youtube: 'YouTube', spotify: 'Spotify', tumblr: 'Tumblr', soundcloud: 'SoundCloud', foursquare: 'Foursquare',
  deezer: 'Deezer', rdio: 'Rdio', beatsmusic: 'Beats Music',
};

export function displayName(network: Network): string {
  return names[network];
}

/** A network identifier of the set, case-insensitive; undefined when unknown. */
export function parseNetwork(value: string, set: 'register' | 'login'): Network | undefined {
  const candidate = value.trim().toLowerCase();
  const allowed: readonly string[] = set === 'register' ? registerNetworks : loginNetworks;
  return allowed.includes(candidate) ? (candidate as Network) : undefined;
}
