import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { brandNetworkNames, brandNetworks } from '../../src/modules/brands/brand-urls.js';
import { NetworkError } from '../../src/modules/networks/adapter.js';
import type { NetworkDeclaration } from '../../src/modules/networks/declaration.js';
import { displayName, externalNetworks, loginNetworks, registerNetworks, retiredNetworks } from '../../src/modules/networks/networks.js';
import { createNetworkAdapters, declaredNetworks, networkOptionsFromEnv } from '../../src/modules/networks/registry.js';
import { fakes } from '../support/fake-networks.js';

const declarations: readonly NetworkDeclaration[] = declaredNetworks;
const adaptersFolder = new URL('../../src/modules/networks/adapters/', import.meta.url);

describe('the registry', () => {
  it('lists every network folder under adapters/, each declaring the network it is named after', async () => {
    const folders = readdirSync(adaptersFolder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    for (const folder of folders) {
      const declared = Object.values(await import(`../../src/modules/networks/adapters/${folder}/index.ts`)).filter(
        (value): value is NetworkDeclaration => typeof value === 'object' && value !== null && 'id' in value && 'name' in value,
      );
      expect(
        declared.map((declaration) => declaration.id),
        `adapters/${folder}/index.ts declares one network, ${folder}`,
      ).toEqual([folder]);
      expect(declarations, `adapters/${folder} is listed in registry.ts`).toContain(declared[0]);
    }
    expect(declarations.map((declaration) => declaration.id).sort()).toEqual(folders.sort());
  });

  it('has one declaration per identifier and per name; identifiers are lower-case letters and digits', () => {
    const ids = declarations.map((declaration) => declaration.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9]*$/);
    const names = declarations.map((declaration) => declaration.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });

  it('gives every register network but email an API, and retired networks none', () => {
    for (const declaration of declarations) {
      if (declaration.identities === 'register' && declaration.id !== 'email') expect(declaration.api, declaration.id).toBeDefined();
      if (declaration.identities !== 'register') expect(declaration.api, declaration.id).toBeUndefined();
    }
    expect(registerNetworks).toContain('email');
  });

  it('has a fake for every network with an API (test/support/fake-networks.ts)', () => {
    expect(Object.keys(fakes).sort()).toEqual([...externalNetworks].sort());
  });
});

describe('names', () => {
  it("the brand record's fields and messages name each network as it names itself", () => {
    for (const network of brandNetworkNames) {
      expect(brandNetworks[network].name).toBe(displayName(network));
      expect(brandNetworks[network].field).toBe(displayName(network).replace(/[^A-Za-z0-9]/g, ''));
    }
  });

  it('keeps the brand record fields callers know, in their order', () => {
    const fields = brandNetworkNames.map((network) => {
      const { field, handle } = brandNetworks[network];
      return handle ? `${network}: ${field}URL ${field}ID ${field}${handle}` : `${network}: ${field}URL ${field}ID`;
    });
    const released = [
      'facebook: FacebookURL FacebookID FacebookName',
      'twitter: TwitterURL TwitterID TwitterScreenName',
      'youtube: YouTubeURL YouTubeID YouTubeUsername',
      'instagram: InstagramURL InstagramID InstagramUsername',
      'tumblr: TumblrURL TumblrID TumblrUsername',
      'spotify: SpotifyURL SpotifyID',
      'deezer: DeezerURL DeezerID',
      'soundcloud: SoundCloudURL SoundCloudID SoundCloudUsername',
      'lastfm: LastfmURL LastfmID LastfmName',
      'itunes: iTunesURL iTunesID',
      'google: GoogleURL GoogleID GoogleName',
    ];
    // Networks added later bring their own fields; these stay as they are.
    const releasedNetworks = new Set(released.map((line) => line.split(':')[0]));
    expect(fields.filter((line) => releasedNetworks.has(line.split(':')[0]))).toEqual(released);
  });

  it('every adapter names its network as the network names itself', async () => {
    const offline = Object.fromEntries(externalNetworks.map((network) => [network, 'http://127.0.0.1:9']));
    const adapters = createNetworkAdapters({ baseUrls: offline, clients: { lastfm: { clientId: 'key', clientSecret: 'secret' } } });
    for (const [network, adapter] of adapters) {
      const error = (await adapter.verify({ token: 't', uid: 'u' }).catch((caught: unknown) => caught)) as NetworkError;
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.network).toBe(network);
      expect(error.message.slice(0, displayName(network).length + 1)).toBe(`${displayName(network)} `);
    }
  });
});

describe('createNetworkAdapters', () => {
  it('has an adapter for every login network but email', () => {
    const adapters = createNetworkAdapters();
    expect([...adapters.keys()].sort()).toEqual(loginNetworks.filter((n) => n !== 'email').sort());
    for (const [network, adapter] of adapters) expect(adapter.network).toBe(network);
  });

  it.each([...retiredNetworks])('%s is retired: verify and refresh fail without calling out', async (network) => {
    const adapter = createNetworkAdapters({ baseUrls: { [network]: 'http://127.0.0.1:9' } }).get(network)!;
    for (const call of [adapter.verify({ token: 't', uid: 'u' }), adapter.refresh({ token: 't', secret: 's', uid: 'u' })]) {
      const error = await call.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NetworkError);
      expect(error).toMatchObject({ network, reason: 'retired', message: expect.stringMatching(/retired network/) });
    }
  });

  it('a token URL cannot give a refresh grant to a network without one', async () => {
    const adapter = createNetworkAdapters({ tokenUrls: { deezer: 'http://127.0.0.1:9/token' } }).get('deezer')!;
    await expect(adapter.refresh({ token: 't', secret: 's', uid: 'u' })).rejects.toMatchObject({ reason: 'not_supported' });
  });
});

describe('networkOptionsFromEnv', () => {
  it('reads base URLs, token URLs and clients per network', () => {
    expect(
      networkOptionsFromEnv({
        PATH: '/usr/bin',
        NETWORK_SPOTIFY_BASE_URL: 'http://localhost:1/spotify',
        NETWORK_SPOTIFY_TOKEN_URL: 'https://accounts.example/api/token',
        NETWORK_SPOTIFY_CLIENT_ID: 'id',
        NETWORK_SPOTIFY_CLIENT_SECRET: 'secret',
        NETWORK_LASTFM_CLIENT_ID: ' key ',
        NETWORK_LASTFM_CLIENT_SECRET: 'shared',
        NETWORK_DEEZER_BASE_URL: '',
      }),
    ).toEqual({
      baseUrls: { spotify: 'http://localhost:1/spotify' },
      tokenUrls: { spotify: 'https://accounts.example/api/token' },
      clients: { spotify: { clientId: 'id', clientSecret: 'secret' }, lastfm: { clientId: 'key', clientSecret: 'shared' } },
    });
  });

  it('has nothing to say for an empty environment', () => {
    expect(networkOptionsFromEnv({})).toEqual({ baseUrls: {}, tokenUrls: {}, clients: {} });
  });

  it.each([
    ['NETWORK_DEEZER_BASE_URL', 'ftp://api.deezer.com', /NETWORK_DEEZER_BASE_URL: must be an http/],
    ['NETWORK_GOOGLE_TOKEN_URL', 'not a url', /NETWORK_GOOGLE_TOKEN_URL: must be an http/],
    ['NETWORK_SPOTIFY_CLIENT_ID', 'only-the-id', /NETWORK_SPOTIFY_CLIENT_SECRET: required with NETWORK_SPOTIFY_CLIENT_ID/],
    ['NETWORK_TWITTER_CLIENT_SECRET', 'only-the-secret', /NETWORK_TWITTER_CLIENT_ID: required with NETWORK_TWITTER_CLIENT_SECRET/],
    ['NETWORK_MYSPACE_BASE_URL', 'https://myspace.example', /NETWORK_MYSPACE_BASE_URL: unknown network myspace/],
    ['NETWORK_RDIO_BASE_URL', 'https://rdio.example', /NETWORK_RDIO_BASE_URL: rdio has no network API/],
    ['NETWORK_EMAIL_CLIENT_ID', 'x', /NETWORK_EMAIL_CLIENT_ID: email has no network API/],
  ])('refuses %s=%j', (name, value, message) => {
    expect(() => networkOptionsFromEnv({ [name]: value })).toThrow(ConfigError);
    expect(() => networkOptionsFromEnv({ [name]: value })).toThrow(message);
  });

  it('lists every problem at once', () => {
    const error = (() => {
      try {
        networkOptionsFromEnv({ NETWORK_YOUTUBE_BASE_URL: 'javascript:alert(1)', NETWORK_TUMBLR_TOKEN_URL: 'file:///etc/passwd', NETWORK_FOO_CLIENT_ID: 'x' });
      } catch (caught) {
        return caught as ConfigError;
      }
    })();
    expect(error?.problems).toEqual([
      'NETWORK_FOO_CLIENT_ID: unknown network foo',
      'NETWORK_TUMBLR_TOKEN_URL: must be an http:// or https:// URL',
      'NETWORK_YOUTUBE_BASE_URL: must be an http:// or https:// URL',
    ]);
  });

  it('leaves other NETWORK_ variables alone', () => {
    expect(networkOptionsFromEnv({ NETWORK_MODE: 'bridge', NETWORK_SPOTIFY_TIMEOUT: '3' })).toEqual({ baseUrls: {}, tokenUrls: {}, clients: {} });
  });

  it('names every external network', () => {
    for (const network of externalNetworks) {
      const name = `NETWORK_${network.toUpperCase()}_BASE_URL`;
      expect(networkOptionsFromEnv({ [name]: `https://${network}.example` }).baseUrls).toEqual({ [network]: `https://${network}.example` });
    }
  });
});
