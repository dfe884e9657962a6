import { at, count, text } from '../http.js';
import { defineProfileAdapter } from './define.js';
import { refreshTokenGrant } from './oauth2.js';

/** Tumblr `/v2/user/info` with an OAuth 2.0 token; Tumblr names users, so uid is the user name. */
export const tumblr = defineProfileAdapter({
  network: 'tumblr',
  baseUrl: 'https://api.tumblr.com',
  profilePath: '/v2/user/info',
  auth: 'bearer',
  caseInsensitiveUid: true,
  read: (body) => {
    const blogs = at(body, 'response.user.blogs');
    const primary = Array.isArray(blogs) ? (blogs.find((blog) => at(blog, 'primary') === true) ?? blogs[0]) : undefined;
    return {
      uid: text(at(body, 'response.user.name')),
      username: text(at(body, 'response.user.name')),
      userUrl: text(at(primary, 'url')),
      followers: count(at(primary, 'followers')),
    };
  },
  refresh: { tokenUrl: 'https://api.tumblr.com/v2/oauth2/token', grant: refreshTokenGrant('form') },
});
