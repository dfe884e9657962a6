import { describe, expect, it } from 'vitest';
import { displayName, externalNetworks, isLoginNetwork, isRegisterNetwork, loginNetworks, parseNetwork, registerNetworks, retiredNetworks, type Network } from '../../src/modules/networks/networks.js';

/**
 * The identifiers released to callers (the seed: email and eleven networks to register, two more
 * to log in with), with the names people know them by. They never change; networks added later
 * join the sets beside them.
 */
const released: [Network, string, 'register' | 'retired'][] = [
  ['email', 'Email', 'register'],
  ['twitter', 'Twitter', 'register'],
  ['facebook', 'Facebook', 'register'],
  ['google', 'Google', 'register'],
  ['instagram', 'Instagram', 'register'],
  ['lastfm', 'Last.fm', 'register'],
  ['youtube', 'YouTube', 'register'],
  ['spotify', 'Spotify', 'register'],
  ['tumblr', 'Tumblr', 'register'],
  ['soundcloud', 'SoundCloud', 'register'],
  ['foursquare', 'Foursquare', 'register'],
  ['deezer', 'Deezer', 'register'],
  ['rdio', 'Rdio', 'retired'],
  ['beatsmusic', 'Beats Music', 'retired'],
];

describe('network sets', () => {
  it('registers with email and the released networks, and signs in with the two retired ones as well', () => {
    const register = released.filter(([, , set]) => set === 'register').map(([network]) => network);
    expect([...registerNetworks]).toEqual(expect.arrayContaining(register));
    expect([...retiredNetworks]).toEqual(expect.arrayContaining(['rdio', 'beatsmusic']));
    expect([...loginNetworks]).toEqual([...registerNetworks, ...retiredNetworks]);
    expect([...externalNetworks]).toEqual(registerNetworks.filter((network) => network !== 'email'));
  });

  it.each([
    ['email', true, true],
    ['deezer', true, true],
    ['rdio', false, true],
    ['beatsmusic', false, true],
    ['itunes', false, false],
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
    for (const written of [network, network.toUpperCase(), ` ${network[0].toUpperCase()}${network.slice(1)}\t`]) {
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
  it.each(released)('%s is shown as %s', (network, name) => {
    expect(displayName(network)).toBe(name);
  });

  it('names every network', () => {
    for (const network of loginNetworks) expect(displayName(network)).toMatch(/^[A-Z]/);
    expect(displayName('itunes')).toBe('iTunes');
  });
});
