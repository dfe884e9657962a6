import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { registerAssets } from './assets.js';
import { registerConsolePage } from './console/page.js';
import { dashboardPage } from './dashboard/page.js';
import { favicon, indexLinks, indexPage } from './index/index.js';
import { sandboxPage, sandboxPath, sandboxPolicy } from './explorer/sandbox.js';
import { sendPage } from './shell.js';

export interface PageOptions {
  config: Config;
  /** The demo application's key, prefilled outside production. */
  demoApiKey?: string;
}

/**
 * The gateway's own pages: the index at `/` and its icon, the statistics dashboard, the staff console, Apollo Sandbox's page (outside production)
 * and their bundles. The GraphQL explorer itself is Apollo's landing page (explorer/landing.ts).
 * Pages take no key and are not metered; the queries they send go through /graphql like any other.
 */
export async function registerPages(app: FastifyInstance, { config, demoApiKey }: PageOptions): Promise<void> {
  const production = config.env === 'production';
  const apiKey = production ? undefined : demoApiKey;
  registerAssets(app, production ? ['dashboard', 'console'] : ['dashboard', 'console', 'explorer', 'sandbox']);

  // `/`: where everything is, as HTML for a browser or JSON for a client that asks for it.
  const links = indexLinks(production);
  const index = indexPage(links);
  app.get('/', { config: { kind: 'plain' } }, async (request, reply) => {
    reply.header('vary', 'Accept');
    const accept = request.headers.accept ?? '';
    // A browser names text/html; a client that asks for JSON and not HTML gets the links as JSON.
    if (accept.includes('application/json') && !accept.includes('text/html')) return { name: 'Marquee', links };
    return sendPage(reply, index);
  });
  app.get('/favicon.ico', { config: { kind: 'plain' } }, async (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(favicon));

  const dashboard = dashboardPage({ apiKey });
  app.get('/dashboard', { config: { kind: 'plain' } }, async (_request, reply) => sendPage(reply, dashboard));
  registerConsolePage(app);

  if (!production) {
    const sandbox = sandboxPage({ apiKey });
    app.get(sandboxPath, { config: { kind: 'plain' } }, async (_request, reply) => sendPage(reply, sandbox, sandboxPolicy));
  }
}
