import type { FastifyRequest } from 'fastify';

/** What a key may be read from: a request, or a WebSocket's upgrade request and connection_init payload. */
type Carrier = Pick<FastifyRequest, 'headers' | 'query' | 'body'>;

/**
 * The API key of a request, from the first place that has one: the `x-api-key` header, an
 * `Authorization: Bearer` header, or the `apiKey` parameter (any case; query string or body).
 */
export function apiKeyOf(request: Carrier): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.trim()) return header.trim();
  const bearer = bearerOf(request);
  if (bearer && !looksLikeJwt(bearer)) return bearer;
  return parameter(request.query, 'apikey') ?? parameter(request.body, 'apikey');
}

/** A member's JWT sent by a front end as `Authorization: Bearer <jwt>`. */
export function memberJwtOf(request: Pick<Carrier, 'headers'>): string | undefined {
  const bearer = bearerOf(request);
  return bearer && looksLikeJwt(bearer) ? bearer : undefined;
}

function bearerOf(request: Pick<Carrier, 'headers'>): string | undefined {
  const authorization = request.headers.authorization;
  return (authorization && /^Bearer\s+(\S+)$/i.exec(authorization)?.[1]) || undefined;
}

/** API keys never contain dots; a JWT is three dot-separated base64url parts. */
function looksLikeJwt(value: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(value);
}

function parameter(source: unknown, lowerName: string): string | undefined {
  if (!source || typeof source !== 'object' || Array.isArray(source)) return undefined;
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (name.toLowerCase() === lowerName && typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}
