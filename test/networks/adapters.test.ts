import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkError, type NetworkFailure } from '../../src/modules/networks/adapter.js';
import { externalNetworks, type ExternalNetwork } from '../../src/modules/networks/networks.js';
import { createNetworkAdapters } from '../../src/modules/networks/registry.js';
import { fakes, startFakeNetworks, type FakeNetworks, type FakeUser } from '../support/fake-networks.js';

let fake: FakeNetworks;
let closedUrl: string;
beforeAll(async () => {
  fake = await startFakeNetworks();
  // A port that was just free: connections to it are refused.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(() => fake.close());

const adapterFor = (network: ExternalNetwork) => createNetworkAdapters({ baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls, clients: fake.clients }).get(network)!;

async function failure(promise: Promise<unknown>): Promise<NetworkFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NetworkError);
  return (error as NetworkError).reason;
}

let next = 1000;
function user(network: ExternalNetwork, extra: Partial<FakeUser> = {}): FakeUser {
  const n = ++next;
  return fake.addUser({
    network,
    uid: String(n),
    token: `${network}-token-${n}`,
    refreshToken: `${network}-refresh-${n}`,
    username: 'fan',
    email: 'fan@example.com',
    paid: true,
    followers: 12,
    ...extra,
  });
}

/** How the network's tokens are refreshed, as its fake does it. */
function refreshOf(network: ExternalNetwork): 'rotates' | 'keeps' | 'not_supported' {
  const flavour = fakes[network].refresh;
  if (!flavour) return 'not_supported';
  return flavour.kind === 'oauth2' && flavour.rotates ? 'rotates' : 'keeps';
}

describe.each([...externalNetworks])('%s', (network) => {
  const { reading } = fakes[network];
  const refresh = refreshOf(network);

  it('verifies a token and reads the profile', async () => {
    const owner = user(network);
    expect(await adapterFor(network).verify({ token: owner.token, uid: owner.uid })).toEqual({ uid: owner.uid, ...reading(owner) });
  });

  it('reads a free account as one', async () => {
    const owner = user(network, { paid: false });
    const read = await adapterFor(network).verify({ token: owner.token, uid: owner.uid });
    if ('paidAccount' in reading(owner)) expect(read.paidAccount).toBe(false);
    else expect(read.paidAccount).toBeUndefined();
  });

  it('refuses an unknown token as invalid_credentials', async () => {
    const owner = user(network);
    expect(await failure(adapterFor(network).verify({ token: `${owner.token}-forged`, uid: owner.uid }))).toBe('invalid_credentials');
  });

  it("refuses another user's token as uid_mismatch", async () => {
    const owner = user(network);
    const error = await adapterFor(network)
      .verify({ token: owner.token, uid: 'someone-else' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ network, reason: 'uid_mismatch' });
  });

  it('says unreachable when nothing listens, when the network fails, and when it answers something other than JSON', async () => {
    const owner = user(network);
    const offline = createNetworkAdapters({ baseUrls: { [network]: closedUrl }, clients: fake.clients }).get(network)!;
    expect(await failure(offline.verify({ token: owner.token, uid: owner.uid }))).toBe('unreachable');
    for (const status of [503, 200]) {
      fake.failWith(network, status);
      try {
        expect(await failure(adapterFor(network).verify({ token: owner.token, uid: owner.uid }))).toBe('unreachable');
      } finally {
        fake.failWith(network, undefined);
      }
    }
  });

  if (refresh === 'not_supported') {
    it('has no refresh (not_supported), even with a token URL configured', async () => {
      const owner = user(network);
      expect(await failure(adapterFor(network).refresh({ token: owner.token, secret: owner.refreshToken, uid: owner.uid }))).toBe('not_supported');
    });
    return;
  }

  it(`refreshes the token (the refresh token ${refresh === 'rotates' ? 'rotates' : 'stays'})`, async () => {
    const owner = user(network);
    const [oldToken, oldSecret] = [owner.token, owner.refreshToken];
    const adapter = adapterFor(network);
    const refreshed = await adapter.refresh({ token: oldToken, secret: oldSecret, uid: owner.uid });
    expect(refreshed.token).toMatch(new RegExp(`^${network}-fresh-`));
    expect(refreshed.token).toBe(owner.token);
    expect(refreshed.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    if (refresh === 'rotates') expect(refreshed.secret).toBe(owner.refreshToken);
    expect(refreshed.secret === oldSecret).toBe(refresh === 'keeps');
    expect((await adapter.verify({ token: refreshed.token, uid: owner.uid })).uid).toBe(owner.uid);
    expect(await failure(adapter.verify({ token: oldToken, uid: owner.uid }))).toBe('invalid_credentials');
    // A rotated refresh token is single-use; Instagram refreshes with the (now replaced) token itself.
    if (refresh === 'rotates' || network === 'instagram') {
      expect(await failure(adapter.refresh({ token: oldToken, secret: oldSecret, uid: owner.uid }))).toBe('invalid_credentials');
    }
  });

  it('refuses a revoked refresh token as invalid_credentials', async () => {
    const owner = user(network);
    const token = network === 'instagram' ? 'revoked' : owner.token;
    expect(await failure(adapterFor(network).refresh({ token, secret: 'revoked', uid: owner.uid }))).toBe('invalid_credentials');
  });

  if (network !== 'instagram') {
    it("reports a refused gateway client as not_supported, not as the member's fault; without a client the grant is still tried", async () => {
      const owner = user(network);
      const misconfigured = createNetworkAdapters({
        baseUrls: fake.baseUrls,
        tokenUrls: fake.tokenUrls,
        clients: { [network]: { clientId: 'wrong', clientSecret: 'wrong' } },
      }).get(network)!;
      expect(await failure(misconfigured.refresh({ token: owner.token, secret: owner.refreshToken, uid: owner.uid }))).toBe('not_supported');
      const clientless = createNetworkAdapters({ baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls }).get(network)!;
      expect((await clientless.refresh({ token: owner.token, secret: owner.refreshToken, uid: owner.uid })).token).toBe(owner.token);
    });

    it('cannot refresh without a stored refresh token (not_supported)', async () => {
      const owner = user(network);
      expect(await failure(adapterFor(network).refresh({ token: owner.token, uid: owner.uid }))).toBe('not_supported');
    });
  }

  it('says unreachable when the token endpoint cannot be reached', async () => {
    const owner = user(network);
    const offline = createNetworkAdapters({ baseUrls: fake.baseUrls, tokenUrls: { [network]: `${closedUrl}/token` }, clients: fake.clients }).get(network)!;
    expect(await failure(offline.refresh({ token: owner.token, secret: owner.refreshToken, uid: owner.uid }))).toBe('unreachable');
  });
});

describe('network-specific rules', () => {
  it('Last.fm cannot verify without its API key and shared secret, and refuses a wrong signature', async () => {
    const owner = user('lastfm');
    const keyless = createNetworkAdapters({ baseUrls: fake.baseUrls }).get('lastfm')!;
    expect(await failure(keyless.verify({ token: owner.token, uid: owner.uid }))).toBe('not_supported');
    const wrongSecret = createNetworkAdapters({ baseUrls: fake.baseUrls, clients: { lastfm: { clientId: fake.clients.lastfm!.clientId, clientSecret: 'nope' } } }).get('lastfm')!;
    expect(await failure(wrongSecret.verify({ token: owner.token, uid: owner.uid }))).toBe('not_supported');
  });

  it.each([['lastfm'], ['tumblr']] as const)('%s user names match whatever their case', async (network) => {
    const owner = user(network, { uid: `Fan${++next}` });
    expect((await adapterFor(network).verify({ token: owner.token, uid: owner.uid.toLowerCase() })).uid).toBe(owner.uid);
    const spotify = user('spotify', { uid: `Fan${++next}` });
    expect(await failure(adapterFor('spotify').verify({ token: spotify.token, uid: spotify.uid.toLowerCase() }))).toBe('uid_mismatch');
  });

  it('Facebook sends appsecret_proof only with a client, and verifies either way', async () => {
    const owner = user('facebook');
    const clientless = createNetworkAdapters({ baseUrls: fake.baseUrls }).get('facebook')!;
    expect((await clientless.verify({ token: owner.token, uid: owner.uid })).uid).toBe(owner.uid);
    expect((await adapterFor('facebook').verify({ token: owner.token, uid: owner.uid })).uid).toBe(owner.uid);
  });

  it('Google marks the email verified only when Google says so; others never do', async () => {
    const owner = user('google', { email: undefined });
    expect((await adapterFor('google').verify({ token: owner.token, uid: owner.uid })).emailVerified).toBeUndefined();
    for (const network of externalNetworks.filter((n) => n !== 'google')) {
      const member = user(network);
      expect((await adapterFor(network).verify({ token: member.token, uid: member.uid })).emailVerified).toBeUndefined();
    }
  });

  it('network errors name the network for people and never contain the token', async () => {
    const error = (await adapterFor('lastfm')
      .verify({ token: 'secret-session-key', uid: 'x' })
      .catch((caught: unknown) => caught)) as NetworkError;
    expect(error.message).toMatch(/^Last\.fm refused the credentials \(HTTP 403: Invalid session key/);
    expect(error.message).not.toContain('secret-session-key');
  });
});
