import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sameSecret } from '../modules/identity/access-tokens.js';
import type { Metrics } from './metrics.js';

/**
 * Who may read /metrics: anyone who reaches it (the default, for a gateway whose port only the
 * operator's network reaches), or a scraper sending `Authorization: Bearer <METRICS_TOKEN>`. With
 * METRICS_ADDRESS, /metrics is served only on that address (startMetricsListener), not on the API's port.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.get('/metrics', { config: { kind: 'plain' } }, async (request, reply) => {
    if (token && !bearerMatches(request.headers.authorization, token)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').type('text/plain; charset=utf-8').send('A metrics token is required (METRICS_TOKEN).');
    }
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

function bearerMatches(header: FastifyRequest['headers']['authorization'], token: string): boolean {
  const presented = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
  return presented !== undefined && sameSecret(presented, token);
}

/** /metrics alone on an address of its own (METRICS_ADDRESS), token-checked like the API's when METRICS_TOKEN is set. */
export async function startMetricsListener(metrics: Metrics, { host, port, token }: { host: string; port: number; token?: string }): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?', 1)[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served here.');
      return;
    }
    if (token && !bearerMatches(request.headers.authorization, token)) {
      response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' }).end('A metrics token is required (METRICS_TOKEN).');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected.'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
