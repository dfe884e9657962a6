import { declareNetwork } from '../../declaration.js';
import { pathNames } from '../../brand-pages.js';
import { at, count, text } from '../../http.js';
import { profileApi } from '../define.js';
import { refreshTokenGrant } from '../oauth2.js';

/** Tumblr's own pages, not blogs. */
const reserved = pathNames('blog', 'dashboard', 'explore', 'tagged', 'search', 'login', 'register', 'settings');

/** Tumblr `/v2/user/info` with an OAuth 2.0 token; Tumblr names users, so uid is the user name. */
export const tumblr = declareNetwork({
  id: 'tumblr',
  name: 'Tumblr',
  identities: 'register',
  api: profileApi({
    baseUrl: 'https://api.tumblr.com',
    profilePath: '/v2/user/info',
    auth: 'bearer',
    caseInsensitiveUid: true,
    read: (body) => {
      const blogs = at(body, 'response.user.blogs');
      const primary: unknown = Array.isArray(blogs) ? (blogs.find((blog) => at(blog, 'primary') === true) ?? blogs[0]) : undefined;
      return {
        uid: text(at(body, 'response.user.name')),
        username: text(at(body, 'response.user.name')),
        userUrl: text(at(primary, 'url')),
        followers: count(at(primary, 'followers')),
      };
    },
    refresh: { tokenUrl: 'https://api.tumblr.com/v2/oauth2/token', grant: refreshTokenGrant('form') },
  }),
  brand: {
    handle: 'Username',
    read(host, path) {
      const blog = /^([a-z0-9-]+)\.tumblr\.com$/.exec(host)?.[1];
      if (blog && blog !== 'www' && blog !== 'api') return { handle: blog };
      if (host !== 'tumblr.com') return undefined;
      const [first, second, third] = path;
      if (first === 'blog' && second === 'view' && third) return { handle: third };
      if (!first || reserved.has(first.toLowerCase())) return undefined;
      return /^[A-Za-z0-9-]{1,32}$/.test(first) ? { handle: first } : undefined;
    },
  },
});
