import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../core/context.js';
import { AppError } from '../core/errors.js';
import type { Executor } from '../db/client.js';
import { isWhitelisted } from '../modules/widget/widget.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The other origin this request's answer may be read from (Access-Control-Allow-Origin), once decided. */
    corsOrigin?: string;
  }
}

/**
 * Cross-origin calls to the API (`/graphql` and `/v1.1`), from browsers on other sites: front ends
 * querying `viewer` with a member's JWT, or pages calling with a key. An origin is allowed when it is
 * in CORS_ORIGINS (every application), or when its host is on the whitelist of the application the
 * request's credential names (the domains the sign-in widget already trusts).
 *
 * A preflight carries no credential, so it cannot tell which application asks: it is answered for
 * any origin, and the request that follows, which does carry one, is refused (code 16, before
 * anything runs) when its origin is not allowed for that application. No cookie is ever read by
 * these routes, and no answer allows credentials, so a page can only act with a key or token it holds.
 */
export function registerCors(app: FastifyInstance, allowedOrigins: readonly string[]): void {
  const globally = originMatcher(allowedOrigins);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || !isApiPath(request.url)) return;
    reply.header('vary', 'Origin');
    if (isSameOrigin(request, origin)) return;
    const method = request.headers['access-control-request-method'];
    if (request.method === 'OPTIONS' && typeof method === 'string') {
      // Answered here, before Apollo, which would refuse an OPTIONS as a malformed GraphQL request.
      reply
        .code(204)
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-methods', 'GET, POST, PUT, DELETE')
        .header('access-control-allow-headers', allowedRequestHeaders(request.headers['access-control-request-headers']))
        .header('access-control-max-age', '600')
        .header('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
      return reply.send();
    }
    if (globally(origin)) request.corsOrigin = origin;
  });
  app.addHook('onSend', async (request, reply) => {
    if (!request.corsOrigin) return;
    reply.header('access-control-allow-origin', request.corsOrigin).header('access-control-expose-headers', exposedHeaders);
  });
}

/**
 * After authentication: a request from another origin goes on only when that origin is allowed for
 * the caller's application (or globally, decided on arrival). Requests without an Origin header
 * (servers, command lines) and same-origin ones (the explorer, the dashboard) are not concerned.
 */
export async function assertOriginAllowed(request: FastifyRequest, caller: Caller, db: Executor): Promise<void> {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || request.corsOrigin || isSameOrigin(request, origin)) return;
  if ((caller.kind === 'application' || caller.kind === 'member') && (await isWhitelisted(db, caller, origin))) {
    request.corsOrigin = origin;
    return;
  }
  throw new AppError('DOMAIN_NOT_WHITELISTED', `The calling page's origin (${origin.slice(0, 200)}) may not call this API: whitelist its domain for the application, or list it in CORS_ORIGINS.`, 'origin');
}

/** Headers a page may read from an answer besides the safelisted ones. */
const exposedHeaders = 'x-request-id, ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after, x-sql-round-trips';

function isApiPath(url: string): boolean {
  const path = url.split('?', 1)[0];
  return path === '/graphql' || path.startsWith('/v1.1/');
}

function isSameOrigin(request: FastifyRequest, origin: string): boolean {
  try {
    return new URL(origin).host === request.host.toLowerCase();
  } catch {
    return false;
  }
}

/** The headers a preflight asks for, when they are header names (a bounded list): nothing else is echoed. */
function allowedRequestHeaders(requested: string | string[] | undefined): string {
  const names = (typeof requested === 'string' ? requested : '').split(',').map((name) => name.trim().toLowerCase());
  return names
    .filter((name) => /^[a-z0-9-]{1,64}$/.test(name))
    .slice(0, 20)
    .join(', ');
}

/**
 * CORS_ORIGINS entries: `*` (any origin), an origin (`https://app.example.com`, `http://localhost:5173`),
 * or an origin with a leading `*.` for its subdomains (`https://*.example.com`, not the domain itself).
 */
export function originMatcher(entries: readonly string[]): (origin: string) => boolean {
  if (entries.includes('*')) return () => true;
  const exact = new Set(entries.filter((entry) => !entry.includes('*.')));
  const wildcards = entries.filter((entry) => entry.includes('*.')).map((entry) => entry.split('*.') as [string, string]);
  return (origin) => {
    const lower = origin.toLowerCase();
    return exact.has(lower) || wildcards.some(([scheme, rest]) => lower.startsWith(scheme) && lower.endsWith(`.${rest}`) && lower.length > scheme.length + rest.length + 1);
  };
}
