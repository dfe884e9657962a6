import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../core/errors.js';

/**
 * Every console write (any method but GET and HEAD: sign-in, sign-out, GraphQL) must come from the
 * console's own pages. The cookie is SameSite=Strict already; on top of it:
 * - the header `x-console-csrf: 1`, which a form of another site cannot send and a cross-origin
 *   script can only send after a preflight, which /console never answers (no CORS there);
 * - when the browser says where the request comes from, it must be this gateway: `Origin` (the
 *   PUBLIC_URL's origin, or the request's own host) and `Sec-Fetch-Site` (same-origin).
 * Refused with FORBIDDEN before anything runs.
 */
export function assertConsoleWrite(request: FastifyRequest, config: Pick<Config, 'publicUrl'>): void {
  if (request.headers['x-console-csrf'] !== '1') {
    throw new AppError('FORBIDDEN', 'Console requests must carry the header x-console-csrf: 1 (the console sends it).', 'x-console-csrf');
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, request, config)) {
    throw new AppError('FORBIDDEN', 'Console requests are taken only from the console itself (this origin).', 'origin');
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    throw new AppError('FORBIDDEN', 'Console requests are taken only from the console itself (Sec-Fetch-Site: same-origin).', 'sec-fetch-site');
  }
}

function isOwnOrigin(origin: string, request: FastifyRequest, config: Pick<Config, 'publicUrl'>): boolean {
  try {
    const url = new URL(origin);
    if (config.publicUrl) return url.origin === new URL(config.publicUrl).origin;
    // Through URL both ways, so a default port written out (`localhost:80`) compares as left out.
    return url.host === new URL(`${url.protocol}//${request.host}`).host;
  } catch {
    return false;
  }
}
