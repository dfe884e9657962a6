import { declareNetwork } from '../../declaration.js';
import { digits } from '../../brand-pages.js';
import { at, refusedByStatus, text, type Classifier } from '../../http.js';
import { profileApi } from '../define.js';

/** Deezer answers errors with HTTP 200 and an `error` object; `OAuthException` refuses the token. */
const deezerFailure: Classifier = (status, body) => {
  if (at(body, 'error.type') === 'OAuthException') return 'invalid_credentials';
  if (at(body, 'error') !== undefined) return 'unreachable';
  return refusedByStatus(status, body);
};

/** Deezer `/user/me` with `access_token`; tokens with `offline_access` do not expire and cannot be refreshed. */
export const deezer = declareNetwork({
  id: 'deezer',
  name: 'Deezer',
  identities: 'register',
  api: profileApi({
    baseUrl: 'https://api.deezer.com',
    profilePath: '/user/me',
    auth: { query: 'access_token' },
    classify: deezerFailure,
    read: (body) => ({
      uid: text(body.id),
      username: text(body.name),
      userUrl: text(body.link),
      firstName: text(body.firstname),
      surname: text(body.lastname),
      email: text(body.email),
      avatarUrl: text(body.picture_medium) ?? text(body.picture),
      // status: 0 free, 1 Premium, 2 Premium+ (and later tiers).
      paidAccount: typeof body.status === 'number' ? body.status > 0 : undefined,
    }),
    // Favourite tracks and albums (permission manage_library); Deezer answers `true`.
    library: (item) => ({ method: 'POST', path: `/user/me/${item.kind}s?${item.kind}_id=${encodeURIComponent(item.id)}` }),
  }),
  brand: {
    read(host, path) {
      if (host !== 'deezer.com') return undefined;
      // deezer.com/artist/27 or with a language: deezer.com/en/artist/27
      const at = path.indexOf('artist');
      const id = at >= 0 && at <= 1 ? path[at + 1] : undefined;
      return id && digits.test(id) ? { id } : undefined;
    },
  },
});
