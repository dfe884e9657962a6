import { hkdfSync } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../../config.js';

/**
 * Cookies of the gateway's own origin. Over HTTPS (production, or an https PUBLIC_URL) they are
 * Secure, and the session cookie is SameSite=None so the widget's credentialed calls from the
 * application's pages carry it. Over plain HTTP (development, tests) browsers refuse SameSite=None
 * without Secure, so it is Lax there: enough when the pages and the gateway share a site.
 */
export function cookiePolicy(config: Config) {
  const secure = config.env === 'production' || Boolean(config.publicUrl?.startsWith('https:'));
  const base = { httpOnly: true, secure, path: '/framework' } satisfies CookieSerializeOptions;
  return {
    secure,
    session: { ...base, sameSite: secure ? 'none' : 'lax' } satisfies CookieSerializeOptions,
    // Read back only by the gateway's own pages and by the provider's top-level redirect (Lax is enough).
    flow: { ...base, sameSite: 'lax', signed: true } satisfies CookieSerializeOptions,
  };
}

export const sessionCookieName = (applicationId: number) => `mq_session_${applicationId}`;
export const oauthCookieName = 'mq_oauth';

/** The cookie-signing secret, derived from SECRET_KEY under its own label. */
export function cookieSecret(secretKey: string): string {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'marquee widget cookies v1', 32)).toString('base64url');
}
