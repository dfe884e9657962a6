import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../config.js';
import { cookiePolicy } from '../modules/widget/widget.cookies.js';
import { sessionLimits } from '../modules/staff/staff.sessions.js';

/**
 * The console's session cookie. Over HTTPS (production, or an https PUBLIC_URL: the widget's rule,
 * widget.cookies.ts) it is `__Host-mq_console`: Secure, Path=/, no Domain, which browsers enforce
 * for the prefix, so no subdomain can set or shadow it. Over plain HTTP (development, tests)
 * browsers refuse the prefix, so it is `mq_console`. Always HttpOnly and SameSite=Strict: another
 * site's page never makes the browser send it.
 */
export function consoleCookie(config: Config): { name: string; options: CookieSerializeOptions } {
  const { secure } = cookiePolicy(config);
  return {
    name: secure ? '__Host-mq_console' : 'mq_console',
    options: { httpOnly: true, secure, sameSite: 'strict', path: '/', maxAge: sessionLimits.absoluteMs / 1000 },
  };
}
