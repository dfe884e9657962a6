import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/modules/networks/adapter.js';
import { loginNetworks, parseNetwork, registerNetworks, type Network } from '../../src/modules/networks/networks.js';
import { profileSpecs } from '../../src/modules/networks/profiles.js';
import { createNetworkAdapters, networkOptionsFromEnv } from '../../src/modules/networks/registry.js';
import { startFakeNetworks } from '../support/fake-networks.js';

let fake: Awaited<ReturnType<typeof startFakeNetworks>>;
beforeAll(async () => {
  fake = await startFakeNetworks();
});
afterAll(() => fake.close());

const reachable = Object.keys(profileSpecs) as Network[];
const refreshable = reachable.filter((network) => profileSpecs[network as keyof typeof profileSpecs].tokenUrl);

async function failure(promise: Promise<unknown>) {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(NetworkError);
  return (error as NetworkError).reason;
}

describe.each(reachable)('%s adapter', (network) => {
  const adapters = () => createNetworkAdapters({ baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls });

  it('names the owner of a valid token', async () => {
    const user = fake.addUser({ network, uid: `${network}-u1`, token: `${network}-t1`, username: 'fan', followers: 12, paid: true, email: 'fan@example.com' });
    const profile = await adapters().get(network)!.verify({ token: user.token, uid: user.uid });
    expect(profile.uid).toBe(user.uid);
  });

  it('refuses an unknown token, and a token of another user', async () => {
    expect(await failure(adapters().get(network)!.verify({ token: 'nope', uid: 'x' }))).toBe('invalid_credentials');
    const user = fake.addUser({ network, uid: `${network}-u2`, token: `${network}-t2` });
    expect(await failure(adapters().get(network)!.verify({ token: user.token, uid: 'someone-else' }))).toBe('uid_mismatch');
  });

  it('says when the network cannot be reached', async () => {
    const offline = createNetworkAdapters({ baseUrls: { [network]: 'http://127.0.0.1:9' } });
    expect(await failure(offline.get(network)!.verify({ token: 't', uid: 'u' }))).toBe('unreachable');
  });

  it('refreshes tokens through the refresh grant, where the network has one', async () => {
    const user = fake.addUser({ network, uid: `${network}-u3`, token: `${network}-t3`, refreshToken: `${network}-r3` });
    const adapter = adapters().get(network)!;
    if (!refreshable.includes(network)) {
      expect(await failure(adapter.refresh({ token: user.token, secret: user.refreshToken, uid: user.uid }))).toBe('not_supported');
      return;
    }
    const refreshed = await adapter.refresh({ token: user.token, secret: user.refreshToken, uid: user.uid });
    expect(refreshed.token).toMatch(new RegExp(`^${network}-fresh-`));
    expect(refreshed.secret).toBe(user.refreshToken);
    expect(refreshed.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    expect((await adapter.verify({ token: refreshed.token, uid: user.uid })).uid).toBe(user.uid);
    expect(await failure(adapter.refresh({ token: 'x', secret: 'wrong', uid: user.uid }))).toBe('invalid_credentials');
  });
});

describe('network identifiers', () => {
  it('has email and eleven networks to register, two more to sign in', () => {
    expect(registerNetworks).toHaveLength(12);
    expect(loginNetworks.filter((n) => !(registerNetworks as readonly string[]).includes(n))).toEqual(['rdio', 'beatsmusic']);
    expect(createNetworkAdapters().has('rdio')).toBe(false);
  });

  it.each([
    [' Spotify ', 'register', 'spotify'],
    ['LASTFM', 'login', 'lastfm'],
    ['rdio', 'register', undefined],
    ['rdio', 'login', 'rdio'],
    ['myspace', 'login', undefined],
  ] as const)('parses %s in the %s set as %s', (value, set, expected) => {
    expect(parseNetwork(value, set)).toBe(expected);
  });

  it('reads base URLs and clients from the environment, refusing non-http URLs', () => {
    expect(networkOptionsFromEnv({ NETWORK_SPOTIFY_BASE_URL: 'http://localhost:1/s', NETWORK_SPOTIFY_CLIENT_ID: 'id', NETWORK_SPOTIFY_CLIENT_SECRET: 's' })).toEqual({
      baseUrls: { spotify: 'http://localhost:1/s' },
      tokenUrls: {},
      clients: { spotify: { clientId: 'id', clientSecret: 's' } },
    });
    expect(() => networkOptionsFromEnv({ NETWORK_DEEZER_BASE_URL: 'ftp://x' })).toThrow(/NETWORK_DEEZER_BASE_URL/);
  });
});
