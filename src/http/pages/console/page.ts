import type { FastifyInstance } from 'fastify';
import { html } from '../../../modules/widget/flow/html.js';
import { pageShell, sendPage } from '../shell.js';
import type { ConsoleConfig } from './config.js';

/** The console's one page: its script (console/browser) draws every screen from the URL. */
export function consolePage(): string {
  const config: ConsoleConfig = { endpoint: '/console/graphql' };
  return pageShell({
    title: 'Marquee console',
    bundle: 'console',
    config,
    body: html`<div id="root"><noscript>The console needs JavaScript.</noscript></div>`,
  });
}

/**
 * GET /console and every GET below it that no API route claims: the same page, which routes in
 * the browser (a bookmarked /console/fans/42/activity opens there). The API routes under
 * /console (session, graphql, exports) are static or parametric, which Fastify's router prefers
 * to this wildcard, so they answer themselves.
 */
export function registerConsolePage(app: FastifyInstance): void {
  const page = consolePage();
  const send = async (_request: unknown, reply: Parameters<typeof sendPage>[0]) => sendPage(reply, page);
  app.get('/console', { config: { kind: 'plain' } }, send);
  app.get('/console/*', { config: { kind: 'plain' } }, send);
}
