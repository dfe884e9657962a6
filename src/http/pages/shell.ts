import type { FastifyReply } from 'fastify';
import { Html, html } from '../../modules/widget/flow/html.js';

/**
 * What the pages may load: their own bundled script and stylesheet, data: URLs (GraphiQL's
 * inlined fonts and icons), and calls to this gateway only. Inline styles are allowed because
 * GraphiQL and Chart.js set style attributes; inline scripts are not.
 */
export const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'";

export interface Shell {
  title: string;
  /** The bundle in dist/pages: its script and stylesheet, served under /assets/. */
  bundle: string;
  /** Settings the script reads (JSON in a data block, which runs nothing). */
  config: object;
  body: Html;
  /** The page's policy, in a meta element as well for pages sent by Apollo (no headers there). */
  policy?: string;
}

export function pageShell({ title, bundle, config, body, policy = pagePolicy }: Shell): string {
  // `<` escaped so the JSON cannot close its element.
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="/assets/${bundle}.css">
<script type="module" src="/assets/${bundle}.js"></script>
</head>
<body>
<script type="application/json" id="page-config">${new Html(json)}</script>
${body}
</body>
</html>`.markup;
}

/** Headers of a page sent by Fastify: the policy, no framing, not kept by caches (it may hold the demo key). */
export function sendPage(reply: FastifyReply, page: string, policy = pagePolicy) {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', `${policy}; frame-ancestors 'none'`)
    .send(page);
}
