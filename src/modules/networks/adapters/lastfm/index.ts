import { createHash } from 'node:crypto';
import { NetworkError } from '../../adapter.js';
import { declareNetwork } from '../../declaration.js';
import { decodeSegment } from '../../brand-pages.js';
import { at, refusedByStatus, text, type Classifier } from '../../http.js';
import { profileApi } from '../define.js';

/**
 * Last.fm error codes: 4, 9 and 14 refuse the session; 10, 13 and 26 refuse the gateway's API key
 * or signature; 8, 11, 16 and 29 are passing failures.
 */
const lastfmFailure: Classifier = (status, body) => {
  const code = at(body, 'error');
  if (code === 4 || code === 9 || code === 14) return 'invalid_credentials';
  if (code === 10 || code === 13 || code === 26) return 'not_supported';
  if (code === 8 || code === 11 || code === 16 || code === 29) return 'unreachable';
  return refusedByStatus(status, body);
};

/** Last.fm's method signature: every parameter but `format` and `callback`, sorted, as name + value, then the shared secret, MD5. */
export function lastfmSignature(params: URLSearchParams, sharedSecret: string): string {
  const signed = [...params].filter(([name]) => name !== 'format' && name !== 'callback').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('md5')
    .update(signed.map(([name, value]) => name + value).join('') + sharedSecret, 'utf8')
    .digest('hex');
}

/**
 * `user.getInfo` signed with the session key (the token) returns the session's own user; uid is
 * the Last.fm user name. Signing needs the API key and shared secret (the client id and secret).
 * Session keys do not expire, so there is nothing to refresh.
 */
export const lastfm = declareNetwork({
  id: 'lastfm',
  name: 'Last.fm',
  identities: 'register',
  api: profileApi({
    baseUrl: 'https://ws.audioscrobbler.com',
    profilePath: '/2.0/?method=user.getInfo',
    auth: ({ url }, { token }, { client }, network) => {
      if (!client) {
        const variable = `NETWORK_${network.id.toUpperCase()}`;
        throw new NetworkError(network.id, 'not_supported', `${network.name} sessions can only be verified with an API key and shared secret (${variable}_CLIENT_ID, ${variable}_CLIENT_SECRET).`);
      }
      url.searchParams.set('api_key', client.clientId);
      url.searchParams.set('sk', token);
      url.searchParams.set('api_sig', lastfmSignature(url.searchParams, client.clientSecret));
      url.searchParams.set('format', 'json');
    },
    classify: lastfmFailure,
    caseInsensitiveUid: true,
    read: (body) => {
      const images = at(body, 'user.image');
      const largest = Array.isArray(images)
        ? images
            .map((image) => text(at(image, '#text')))
            .filter(Boolean)
            .at(-1)
        : undefined;
      return {
        uid: text(at(body, 'user.name')),
        username: text(at(body, 'user.name')),
        userUrl: text(at(body, 'user.url')),
        avatarUrl: largest,
        paidAccount: at(body, 'user.subscriber') === undefined ? undefined : String(at(body, 'user.subscriber')) === '1',
      };
    },
  }),
  brand: {
    handle: 'Name',
    read(host, _path, url) {
      if (!/^(?:[a-z]{2}\.)?last\.fm$/.test(host) && !/^lastfm\.[a-z]{2,3}(?:\.[a-z]{2})?$/.test(host)) return undefined;
      // last.fm/music/Name or with a language: last.fm/de/music/Name. '+' stands for a space and
      // '%2B' for a plus, so the raw segment is read before decoding.
      const raw = url.pathname.split('/').filter(Boolean);
      const at = raw.indexOf('music');
      const name = at >= 0 && at <= 1 ? raw[at + 1] : undefined;
      return name && !name.startsWith('+') ? { handle: decodeSegment(name.replace(/\+/g, ' ')) } : undefined;
    },
  },
});
