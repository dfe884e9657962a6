import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import type { RequestStatements } from '../db/request-statements.js';

/**
 * A deadline on the gateway's own answer, counted from the request's headers (Fastify's onRequest). Each statement
 * has its own timeout (STATEMENT_TIMEOUT_MS), but a request is more than one statement: it may wait
 * for a catch-up turn, a heavy-request slot, a network, or, through a defect, for nothing at all (a
 * promise that never settles once left the client without an answer until it gave up). Past the
 * deadline the client is answered RESPONSE_TIMEOUT with the request id, the error is logged with
 * the route, and the request's statements are stopped as when its client leaves
 * (db/request-statements.ts): what it had not written yet, it does not write. An answer the request
 * makes later is dropped (Fastify logs it as a reply already sent).
 *
 * Not applied to WebSocket subscriptions, which are upgraded outside Fastify's request hooks.
 */
export function startResponseDeadline(
  request: FastifyRequest,
  reply: FastifyReply,
  { timeoutMs, statements, answer }: { timeoutMs: number; statements: RequestStatements; answer: (error: AppError) => void },
): void {
  if (timeoutMs <= 0) return;
  const timer = setTimeout(() => {
    if (reply.sent || reply.raw.headersSent) return;
    request.log.error(
      { route: request.routeOptions.url ?? request.url.split('?')[0], method: request.method, elapsedMs: Math.round(reply.elapsedTime), runningStatements: statements.size },
      'no answer within RESPONSE_TIMEOUT_MS: answered RESPONSE_TIMEOUT and stopped the request',
    );
    statements.abandon();
    answer(new AppError('RESPONSE_TIMEOUT', `The gateway did not finish this request within ${timeoutMs} ms and stopped it: retry later.`));
  }, timeoutMs);
  timer.unref();
  // 'close' follows the end of every response, and a connection closed before it.
  reply.raw.once('close', () => clearTimeout(timer));
}
