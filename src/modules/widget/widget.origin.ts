import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../../db/client.js';
import { domainNotWhitelisted, isWhitelisted, type WidgetApplication } from './widget.service.js';

/** The page a widget call comes from: the Origin header, or the Referer's origin (script tags send no Origin). */
export function pageOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (origin && origin !== 'null') return origin;
  const referer = request.headers.referer;
  try {
    return referer ? new URL(referer).origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether an origin is the site a whitelist entry names, as far as scheme and port go. An entry is a
 * host only (lib/domains.ts), so it stands for the site on https at the default port: in production
 * nothing else of the host may read a member's session (another service on :8080, or a plain-http
 * page anyone on the path can rewrite). Elsewhere any http(s) port is the host too, for development
 * pages such as http://localhost:5173.
 */
export function isSiteOrigin(origin: string, httpsOnly: boolean): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol === 'https:' && url.port === '') return true;
  return !httpsOnly && (url.protocol === 'https:' || url.protocol === 'http:');
}

/**
 * Credentialed CORS, for whitelisted origins only (on https at the default port in production,
 * `isSiteOrigin`): the answer names the one origin that asked (never `*`, which browsers refuse
 * with credentials) and varies by it.
 */
export async function allowOrigin(db: Executor, app: WidgetApplication, request: FastifyRequest, reply: FastifyReply, httpsOnly: boolean) {
  const origin = request.headers.origin;
  reply.header('vary', 'Origin').header('cache-control', 'no-store');
  if (!origin || !isSiteOrigin(origin, httpsOnly) || !(await isWhitelisted(db, app, origin))) throw domainNotWhitelisted('The calling page', 'origin');
  reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true');
}
