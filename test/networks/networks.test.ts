import { describe, expect, it } from 'vitest';
import {
  displayName,
  externalNetworks,
  isLoginNetwork,
  isRegisterNetwork,
  loginNetworks,
  parseNetwork,
  registerNetworks,
  type Network,
} from '../../src/modules/networks/networks.js';

const external = ['twitter', 'facebook', 'google', 'instagram', 'lastfm', 'youtube', 'spotify', 'tumblr', 'soundcloud', 'foursquare', 'deezer'];

describe('network sets', () => {
  it('registers with email and eleven networks, and signs in with two retired ones as well', () => {
    expect([...registerNetworks]).toEqual(['email', ...external]);
    expect([...loginNetworks]).toEqual(['email', ...external, 'rdio', 'beatsmusic']);
    expect([...externalNetworks]).toEqual(external);
  });

  it.each([
    ['email', true, true],
    ['deezer', true, true],
    ['rdio', false, true],
    ['beatsmusic', false, true],
    ['Spotify', false, false],
    ['myspace', false, false],
    ['', false, false],
  ])('%j: register %s, login %s', (value, register, login) => {
    expect(isRegisterNetwork(value)).toBe(register);
    expect(isLoginNetwork(value)).toBe(login);
  });
});

describe('parseNetwork', () => {
  it.each(registerNetworks.map((network) => [network]))('reads %s in both sets, whatever its case and spacing', (network) => {
    for (const written of [network, network.toUpperCase(), ` ${network[0]!.toUpperCase()}${network.slice(1)}\t`]) {
      expect(parseNetwork(written, 'register')).toBe(network);
      expect(parseNetwork(written, 'login')).toBe(network);
    }
  });

  it.each([['rdio'], [' BeatsMusic ']])('reads retired %j only for login', (value) => {
    expect(parseNetwork(value, 'register')).toBeUndefined();
    expect(parseNetwork(value, 'login')).toBe(value.trim().toLowerCase());
  });

  it.each([['myspace'], [''], ['   '], ['last.fm'], ['beats music'], ['e mail'], ['toString'], ['__proto__']])('does not know %j', (value) => {
    expect(parseNetwork(value, 'register')).toBeUndefined();
    expect(parseNetwork(value, 'login')).toBeUndefined();
  });
});

describe('displayName', () => {
  it.each([
    ['email', 'Email'], ['twitter', 'Twitter'], ['facebook', 'Facebook'], ['google', 'Google'], ['instagram', 'Instagram'],
    ['lastfm', 'Last.fm'], ['youtube', 'YouTube'], ['spotify', 'Spotify'], ['tumblr', 'Tumblr'], ['soundcloud', 'SoundCloud'],
    ['foursquare', 'Foursquare'], ['deezer', 'Deezer'], ['rdio', 'Rdio'], ['beatsmusic', 'Beats Music'],
  ] satisfies [Network, string][])('%s is shown as %s', (network, name) => {
    expect(displayName(network)).toBe(name);
  });

  it('names every login network', () => {
    for (const network of loginNetworks) expect(displayName(network)).toMatch(/^[A-Z]/);
  });
});
