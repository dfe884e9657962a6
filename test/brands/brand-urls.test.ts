import { describe, expect, it } from 'vitest';
import { parseMusicItem, parseNetworkUrl, type BrandNetworkName } from '../../src/modules/brands/brand-urls.js';

/** Every URL form the brand parser reads, and what it reads from it: [network, url, id, handle]. */
const recognised: [BrandNetworkName, string, string | null, string | null][] = [
  ['twitter', 'https://twitter.com/adele', null, 'adele'],
  ['twitter', 'https://x.com/Adele?lang=en', null, 'Adele'],
  ['twitter', 'twitter.com/adele', null, 'adele'],
  ['twitter', 'https://mobile.twitter.com/adele/', null, 'adele'],
  ['twitter', 'http://twitter.com/#!/adele', null, 'adele'],
  ['twitter', 'https://twitter.com/@adele', null, 'adele'],
  ['twitter', 'https://x.com/i/user/184910040', '184910040', null],
  ['twitter', 'https://twitter.com/intent/user?screen_name=adele', null, 'adele'],
  ['twitter', 'https://twitter.com/intent/follow?user_id=184910040', '184910040', null],
  ['instagram', 'https://www.instagram.com/adele/', null, 'adele'],
  ['instagram', 'https://instagr.am/the.beatles', null, 'the.beatles'],
  ['facebook', 'https://www.facebook.com/adele', null, 'adele'],
  ['facebook', 'https://m.facebook.com/Coca-Cola/', null, 'Coca-Cola'],
  ['facebook', 'https://www.facebook.com/pages/Adele/104386862956', '104386862956', 'Adele'],
  ['facebook', 'https://www.facebook.com/people/Some-Band/100063', '100063', 'Some-Band'],
  ['facebook', 'https://www.facebook.com/profile.php?id=100044', '100044', null],
  ['facebook', 'https://www.facebook.com/pg/adele/about/', null, 'adele'],
  ['facebook', 'https://fb.com/104386862956', '104386862956', null],
  ['youtube', 'https://www.youtube.com/channel/UComP_epzeKzvBX156r6pm1Q', 'UComP_epzeKzvBX156r6pm1Q', null],
  ['youtube', 'https://www.youtube.com/@adele', null, '@adele'],
  ['youtube', 'https://youtube.com/user/AdeleVEVO', null, 'AdeleVEVO'],
  ['youtube', 'https://m.youtube.com/c/Adele/videos', null, 'Adele'],
  ['youtube', 'https://music.youtube.com/channel/UComP_epzeKzvBX156r6pm1Q', 'UComP_epzeKzvBX156r6pm1Q', null],
  ['tumblr', 'https://adele.tumblr.com/', null, 'adele'],
  ['tumblr', 'https://www.tumblr.com/adele', null, 'adele'],
  ['tumblr', 'https://www.tumblr.com/blog/view/adele', null, 'adele'],
  ['spotify', 'https://open.spotify.com/artist/4dpARuHxo51G3z768sgnrY', '4dpARuHxo51G3z768sgnrY', null],
  ['spotify', 'https://open.spotify.com/artist/4dpARuHxo51G3z768sgnrY?si=abc123', '4dpARuHxo51G3z768sgnrY', null],
  ['spotify', 'https://open.spotify.com/intl-de/artist/4dpARuHxo51G3z768sgnrY', '4dpARuHxo51G3z768sgnrY', null],
  ['spotify', 'spotify:artist:4dpARuHxo51G3z768sgnrY', '4dpARuHxo51G3z768sgnrY', null],
  ['spotify', 'https://play.spotify.com/artist/4dpARuHxo51G3z768sgnrY', '4dpARuHxo51G3z768sgnrY', null],
  ['deezer', 'https://www.deezer.com/artist/75798', '75798', null],
  ['deezer', 'https://www.deezer.com/en/artist/75798?app_id=1', '75798', null],
  ['soundcloud', 'https://soundcloud.com/adele', null, 'adele'],
  ['soundcloud', 'https://m.soundcloud.com/adele/tracks', null, 'adele'],
  ['soundcloud', 'https://api.soundcloud.com/users/2097360', '2097360', null],
  ['lastfm', 'https://www.last.fm/music/Adele', null, 'Adele'],
  ['lastfm', 'https://www.last.fm/de/music/Florence+%2B+the+Machine', null, 'Florence + the Machine'],
  ['lastfm', 'https://www.last.fm/music/The+Beatles/+wiki', null, 'The Beatles'],
  ['lastfm', 'http://www.lastfm.de/music/Adele', null, 'Adele'],
  ['itunes', 'https://itunes.apple.com/us/artist/adele/id262836961', '262836961', null],
  ['itunes', 'https://music.apple.com/gb/artist/adele/262836961', '262836961', null],
  ['itunes', 'https://itunes.apple.com/artist/id262836961?uo=4', '262836961', null],
  ['google', 'https://plus.google.com/+Adele', null, 'Adele'],
  ['google', 'https://plus.google.com/u/0/+Adele/posts', null, 'Adele'],
  ['google', 'https://plus.google.com/107629548713539226813', '107629548713539226813', null],
  ['google', 'https://www.google.com/+Adele', null, 'Adele'],
];

/** URLs that are kept as given but say nothing the parser can read. */
const unrecognised: [BrandNetworkName, string][] = [
  ['twitter', 'https://twitter.com/'],
  ['twitter', 'https://twitter.com/search?q=adele'],
  ['twitter', 'https://example.com/adele'],
  ['instagram', 'https://www.instagram.com/p/Bx1234/'],
  ['facebook', 'https://www.facebook.com/sharer/sharer.php?u=x'],
  ['youtube', 'https://www.youtube.com/watch?v=rYEDA3JcQqw'],
  ['youtube', 'https://www.youtube.com/channel/not-a-channel'],
  ['spotify', 'https://open.spotify.com/track/6rqhFgbbKwnb9MLmUQDhG6'],
  ['spotify', 'https://example.com/artist/4dpARuHxo51G3z768sgnrY'],
  ['deezer', 'https://www.deezer.com/album/302127'],
  ['soundcloud', 'https://soundcloud.com/discover'],
  ['lastfm', 'https://www.last.fm/user/someone'],
  ['itunes', 'https://music.apple.com/gb/album/25/1544494115'],
  ['tumblr', 'https://www.tumblr.com/dashboard'],
  ['google', 'https://plus.google.com/'],
  ['spotify', 'not a url at all'],
];

describe('parseNetworkUrl', () => {
  it.each(recognised)('%s %s', (network, url, id, handle) => {
    expect(parseNetworkUrl(network, url)).toEqual({ ref: { url, id, handle }, recognised: true });
  });

  it.each(unrecognised)('%s %s is kept without an id', (network, url) => {
    expect(parseNetworkUrl(network, url)).toEqual({ ref: { url, id: null, handle: null }, recognised: false });
  });

  it('keeps the URL as given, trimmed', () => {
    expect(parseNetworkUrl('twitter', '  twitter.com/adele  ').ref.url).toBe('twitter.com/adele');
  });
});

describe('parseMusicItem', () => {
  const cases: ['spotify' | 'deezer', string, 'track' | 'album' | undefined, { kind: string; id: string } | undefined][] = [
    ['spotify', 'https://open.spotify.com/track/6rqhFgbbKwnb9MLmUQDhG6', undefined, { kind: 'track', id: '6rqhFgbbKwnb9MLmUQDhG6' }],
    ['spotify', 'spotify:album:1DFixLWuPkv3KT3TnV35m3', undefined, { kind: 'album', id: '1DFixLWuPkv3KT3TnV35m3' }],
    ['spotify', '6rqhFgbbKwnb9MLmUQDhG6', undefined, { kind: 'track', id: '6rqhFgbbKwnb9MLmUQDhG6' }],
    ['spotify', '1DFixLWuPkv3KT3TnV35m3', 'album', { kind: 'album', id: '1DFixLWuPkv3KT3TnV35m3' }],
    ['spotify', 'https://open.spotify.com/artist/4dpARuHxo51G3z768sgnrY', undefined, undefined],
    ['spotify', 'https://example.com/track/6rqhFgbbKwnb9MLmUQDhG6', undefined, undefined],
    ['deezer', 'https://www.deezer.com/track/3135556', undefined, { kind: 'track', id: '3135556' }],
    ['deezer', 'https://www.deezer.com/fr/album/302127', undefined, { kind: 'album', id: '302127' }],
    ['deezer', '3135556', undefined, { kind: 'track', id: '3135556' }],
    ['deezer', 'https://www.deezer.com/artist/27', undefined, undefined],
    ['deezer', 'abc', undefined, undefined],
  ];
  it.each(cases)('%s %s (%s)', (network, value, kind, expected) => {
    expect(parseMusicItem(network, value, kind)).toEqual(expected);
  });
});
