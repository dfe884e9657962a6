import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { RestRoute } from '../route.js';
import { openApiDocument } from './document.js';

/**
 * `/v1.1/openapi.json` and its reference page `/v1.1/docs`, public like the probes (no key, no
 * rate limit, not metered). The page is Redoc's standalone bundle from node_modules, served by
 * the gateway itself (its one remote image taken out: withoutRemoteAssets), so the reference
 * works with no network beyond the gateway.
 */
export async function registerApiReference(app: FastifyInstance, routes: readonly RestRoute[]): Promise<void> {
  // Built at start, so a route whose parameters cannot be read stops the boot, not a later request.
  const document = JSON.stringify(openApiDocument(routes));
  const bundlePath = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  let bundle: Promise<string> | undefined;

  app.get('/v1.1/openapi.json', { config: { kind: 'plain' } }, async (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8');
    return document;
  });
  app.get('/v1.1/docs/redoc.standalone.js', { config: { kind: 'plain' } }, async (_request, reply) => {
    reply.header('content-type', 'text/javascript; charset=utf-8');
    reply.header('cache-control', 'public, max-age=3600');
    return (bundle ??= readFile(bundlePath, 'utf8').then(withoutRemoteAssets));
  });
  app.get('/v1.1/docs', { config: { kind: 'plain' } }, async (_request, reply) => {
    reply.header('content-type', 'text/html; charset=utf-8');
    // Redoc renders styles inline and loads nothing else; fonts stay the browser's own.
    reply.header('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:");
    return referencePage;
  });
}

/**
 * Redoc's bundle draws Redocly's logo in its sidebar footer from Redocly's CDN, which the page's
 * policy refuses (a console error on every load, and a request elsewhere where the policy is
 * looser). The footer keeps its "API docs by Redocly" link; the logo becomes an empty inline image.
 * test/rest/openapi-browser.test.ts fails on any request elsewhere, so a Redoc that adds one is seen.
 */
const remoteAssets = ['https://cdn.redoc.ly/redoc/logo-mini.svg'];
const emptyImage = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='0' height='0'/%3E";

export function withoutRemoteAssets(bundle: string): string {
  return remoteAssets.reduce((text, url) => text.replaceAll(url, emptyImage), bundle);
}

const referencePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marquee /v1.1 reference</title>
<style>body { margin: 0; font-family: system-ui, sans-serif; }</style>
</head>
<body>
<redoc spec-url="/v1.1/openapi.json" hide-download-button="false" disable-search="false"></redoc>
<script src="/v1.1/docs/redoc.standalone.js"></script>
</body>
</html>
`;
