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
 * Credentialed CORS, for whitelisted origins only: the answer names the one origin that asked
 * (never `*`, which browsers refuse with credentials) and varies by it.
 */
export async function allowOrigin(db: Executor, app: WidgetApplication, request: FastifyRequest, reply: FastifyReply) {
  const origin = request.headers.origin;
  reply.header('vary', 'Origin').header('cache-control', 'no-store');
  if (!origin || !(await isWhitelisted(db, app, origin))) throw domainNotWhitelisted('The calling page', 'origin');
  reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true');
}
