import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { registerAssets } from './assets.js';
import { dashboardPage } from './dashboard/page.js';
import { sandboxPage, sandboxPath, sandboxPolicy } from './explorer/sandbox.js';
import { sendPage } from './shell.js';

export interface PageOptions {
  config: Config;
  /** The demo application's key, prefilled outside production. */
  demoApiKey?: string;
}

/**
 * The gateway's own pages: the statistics dashboard, Apollo Sandbox's page (outside production)
 * and their bundles. The GraphQL explorer itself is Apollo's landing page (explorer/landing.ts).
 * Pages take no key and are not metered; the queries they send go through /graphql like any other.
 */
export async function registerPages(app: FastifyInstance, { config, demoApiKey }: PageOptions): Promise<void> {
  const production = config.env === 'production';
  const apiKey = production ? undefined : demoApiKey;
  registerAssets(app, production ? ['dashboard'] : ['dashboard', 'explorer', 'sandbox']);

  const dashboard = dashboardPage({ apiKey });
  app.get('/dashboard', { config: { kind: 'plain' } }, async (_request, reply) => sendPage(reply, dashboard));

  if (!production) {
    const sandbox = sandboxPage({ apiKey });
    app.get(sandboxPath, { config: { kind: 'plain' } }, async (_request, reply) => sendPage(reply, sandbox, sandboxPolicy));
  }
}
