import { NetworkError } from '../../adapter.js';
import { declareNetwork } from '../../declaration.js';
import { at, count, refusedByStatus, text, type Classifier } from '../../http.js';
import { profileApi } from '../define.js';
import { googleTokenUrl } from '../google/index.js';
import { refreshTokenGrant } from '../oauth2.js';

/** YouTube answers 403 both for a token without access and for an exhausted API quota; only the first refuses it. */
const quotaFailure: Classifier = (status, body) => {
  const reason = at(body, 'error.errors.0.reason');
  if (status === 403 && (reason === 'quotaExceeded' || reason === 'rateLimitExceeded' || reason === 'dailyLimitExceeded')) return 'unreachable';
  return refusedByStatus(status, body);
};

/** YouTube Data API v3: the channel of the token's Google account; uid is the channel id. Google tokens refresh. */
export const youtube = declareNetwork({
  id: 'youtube',
  name: 'YouTube',
  identities: 'register',
  api: profileApi({
    baseUrl: 'https://www.googleapis.com',
    profilePath: '/youtube/v3/channels?part=snippet,statistics&mine=true',
    auth: 'bearer',
    classify: quotaFailure,
    read: (body, network) => {
      const channel = at(body, 'items.0');
      if (!channel) throw new NetworkError(network.id, 'uid_mismatch', `The Google account of this token has no ${network.name} channel.`);
      const id = text(at(channel, 'id'));
      const handle = text(at(channel, 'snippet.customUrl'));
      return {
        uid: id,
        username: handle ?? text(at(channel, 'snippet.title')),
        userUrl: handle ? `https://www.youtube.com/${handle}` : id && `https://www.youtube.com/channel/${id}`,
        avatarUrl: text(at(channel, 'snippet.thumbnails.default.url')),
        // Channels may hide their subscriber count.
        followers: at(channel, 'statistics.hiddenSubscriberCount') === true ? undefined : count(at(channel, 'statistics.subscriberCount')),
      };
    },
    refresh: { tokenUrl: googleTokenUrl, grant: refreshTokenGrant('form') },
  }),
  brand: {
    handle: 'Username',
    read(host, [first, second]) {
      if (host !== 'youtube.com' && host !== 'music.youtube.com') return undefined;
      if (first === 'channel' && second && /^UC[A-Za-z0-9_-]{22}$/.test(second)) return { id: second };
      // Handles keep their @: they are another namespace than the legacy /user/ and /c/ names.
      if (first?.startsWith('@') && /^@[A-Za-z0-9._-]{3,30}$/.test(first)) return { handle: first };
      if ((first === 'user' || first === 'c') && second && /^[A-Za-z0-9._-]{1,100}$/.test(second)) return { handle: second };
      return undefined;
    },
  },
});
