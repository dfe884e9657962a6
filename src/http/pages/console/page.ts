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
  app.get('/console', { config: { kind: 'plain' } }, async (_request, reply) => sendPage(reply, page));
  app.get<{ Params: { '*': string } }>('/console/*', { config: { kind: 'plain' } }, async (request, reply) => {
    // A file's address (export.csv, export.json) is never a screen: one no route answers is not found, not the page.
    if (/\.[a-z0-9]+$/i.test(request.params['*'])) return reply.code(404).type('text/plain; charset=utf-8').send('Not found.');
    return sendPage(reply, page);
  });
}
