import type { FastifyReply } from 'fastify';
import type { applications } from '../../../db/schema/index.js';
import { displayName, type Network } from '../../networks/networks.js';
import type { widgetUrls } from '../widget.urls.js';
import { withQuery } from '../widget.urls.js';
import type { PageLook } from '../look.js';
import type { FormPage, HostedPage } from './pages.js';

type Urls = ReturnType<typeof widgetUrls>;

/**
 * Headers of every hosted page: never cached (they carry CSRF tokens), never framed (clickjacking),
 * no scripts at all, the page's own stylesheet only (by its hash), images only from the logo's
 * origin when the page shows one. No form-action rule: a form's redirect to the return URL would
 * count against it.
 */
export function sendPage(reply: FastifyReply, status: number, page: HostedPage) {
  const images = page.imageOrigin ? `; img-src ${page.imageOrigin}` : '';
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', `default-src 'none'; style-src '${page.styleHash}'${images}; frame-ancestors 'none'; base-uri 'none'`)
    .send(page.markup);
}

/** The common parts of the sign-in and registration forms. */
export function formPage(
  application: typeof applications.$inferSelect,
  urls: Urls,
  reply: FastifyReply,
  kind: 'login' | 'register',
  returnUrl: URL | undefined,
  look: PageLook,
  extra: Partial<FormPage> = {},
): FormPage {
  // Without a return URL the links carry none either: the flow ends on the signed-in page.
  const back = { return: returnUrl?.toString() };
  const networks = Object.keys(application.settings.signInNetworks ?? {}).sort() as Network[];
  return {
    applicationName: look.title,
    look,
    action: kind === 'login' ? urls.login : urls.register,
    csrfToken: reply.generateCsrf(),
    returnUrl: returnUrl?.toString(),
    networks: networks.map((network) => ({ name: displayName(network), url: withQuery(urls.network(network), back) })),
    switchUrl: withQuery(kind === 'login' ? urls.register : urls.login, back),
    forgotUrl: kind === 'login' ? withQuery(urls.forgotPassword, back) : undefined,
    ...extra,
  };
}
