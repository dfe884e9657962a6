import type { FastifyRequest } from 'fastify';

/**
 * The API key of a request, from the first place that has one: the `x-api-key` header, an
 * `Authorization: Bearer` header, or the `apiKey` parameter (any case; query string or body).
 */
export function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.trim()) return header.trim();
  const authorization = request.headers.authorization;
  const bearer = authorization && /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  if (bearer) return bearer;
  return parameter(request.query, 'apikey') ?? parameter(request.body, 'apikey');
}

function parameter(source: unknown, lowerName: string): string | undefined {
  if (!source || typeof source !== 'object' || Array.isArray(source)) return undefined;
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (name.toLowerCase() === lowerName && typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}
