import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../core/context.js';
import { apiKeyOf, memberJwtOf } from '../core/credentials.js';
import { AppError } from '../core/errors.js';
import type { DatabaseHandle } from '../db/client.js';
import { runCounted } from '../db/roundtrips.js';
import { rateLimitExceeded, rateLimitHeaders, type RateLimiter } from '../lib/rate-limit.js';
import type { IdentityServices } from '../modules/members/identity-services.js';
import { resolveApiKey } from '../modules/tenancy/tenancy.service.js';
import type { Metrics } from './metrics.js';

export interface AuthenticationDependencies {
  limiter: RateLimiter;
  database: DatabaseHandle;
  identity: IdentityServices;
  metrics: Metrics;
  /** How long a key's lookup is trusted before it is read again (`API_KEY_CACHE_SECONDS`). */
  apiKeyCacheMs: number;
}

/**
 * Who is calling, and whose budget the call spends. A credential is checked before any budget is
 * spent: a known API key spends its own, a valid member token its member's, and everything else
 * (no credential, an unknown key, a token that does not verify) the client address's. A made-up
 * key or token therefore never opens a budget of its own; it is also counted against the address's
 * unknown keys, and past that budget the address is refused before anything it sends is looked up.
 * Key lookups are cached and token checks need no database, so checking first costs a known caller
 * nothing it did not pay before.
 */
export async function authenticate(request: FastifyRequest, reply: FastifyReply, deps: AuthenticationDependencies): Promise<Caller> {
  const { limiter, metrics } = deps;
  const key = apiKeyOf(request);
  const memberJwt = key ? undefined : memberJwtOf(request);
  const refuse = (retryAfter: number, message: string, param: string | null = null) => {
    metrics.rateLimited.inc();
    reply.header('Retry-After', String(retryAfter));
    return new AppError('RATE_LIMITED', message, param);
  };

  if (key || memberJwt) {
    const blockedFor = await limiter.unknownKeysBlockedFor(request.ip);
    if (blockedFor > 0) {
      const what = key ? 'unknown API keys' : 'invalid member tokens';
      throw refuse(blockedFor, `Too many ${what} from this address; retry in ${blockedFor} s.`, key ? 'apiKey' : 'authorization');
    }
  }

  let caller: Caller = { kind: 'anonymous' };
  let limitedAs = limiter.addressBudget(request.ip);
  let refusal: AppError | undefined;
  if (key) {
    const resolved = await runCounted(request.roundTrips, () => resolveApiKey(deps.database.db, key, deps.apiKeyCacheMs));
    if (resolved) [caller, limitedAs] = [resolved, key];
    else refusal = new AppError('INVALID_API_KEY', 'The API key is unknown or revoked.', 'apiKey');
  } else if (memberJwt) {
    const claims = await deps.identity.signingKeys.verify(memberJwt);
    if (claims) [caller, limitedAs] = [{ kind: 'member', ...claims }, `member:${claims.accountId}:${claims.memberId}`];
    else refusal = new AppError('INVALID_TOKEN', 'The member token is invalid or expired.', 'authorization');
  }
  if (refusal) await limiter.countUnknownKey(request.ip);

  const decision = await limiter.consume(limitedAs);
  reply.headers(rateLimitHeaders(decision));
  if (!decision.allowed) {
    metrics.rateLimited.inc();
    throw rateLimitExceeded(decision);
  }
  if (refusal) throw refusal;
  return caller;
}
