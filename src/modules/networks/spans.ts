import { context, createContextKey, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { currentRequestId, tracer } from '../../tracing.js';
import { NetworkError, type NetworkAdapter } from './adapter.js';
import type { NamedNetwork } from './declaration.js';

/**
 * A client span per HTTP call to a network (docs/observability.md), made where every adapter's
 * calls go through (http.ts), after OpenTelemetry's HTTP client conventions: named by the method
 * alone (`GET`, `POST`: the conventions' name when no URL template is known), with the method,
 * the server, the URL **without its query string** (where tokens, signatures and app secret proofs
 * travel), and the status of the answer. Besides: the network, the adapter method that called
 * (`verify`, `refresh`, `saveToLibrary`), and the id of the request it was made for.
 *
 * Nothing the call sends is recorded: not the headers (bearer tokens, client credentials), the
 * form (refresh tokens, client secrets), the query, nor the answer or the network's own words
 * about a failure (which may quote an address); a failure is recorded by its kind only.
 */

/** The adapter method a call is made for, carried in the trace context from the adapter to http.ts. */
const operationKey = createContextKey('marquee.network.operation');

/**
 * The adapter with each of its methods naming itself to the calls it makes (`verify`,
 * `refresh`, `saveToLibrary`): the one wrapper every adapter gets (registry.ts), so an adapter
 * names nothing itself. With tracing off, the methods are called as they are.
 */
export function namedOperations(adapter: NetworkAdapter): NetworkAdapter {
  const named: Record<string, unknown> = { ...adapter };
  for (const [operation, method] of Object.entries(adapter)) {
    if (typeof method !== 'function') continue;
    named[operation] = (...args: unknown[]) => {
      const call = () => (method as (...parameters: unknown[]) => unknown).apply(adapter, args);
      return tracer() ? context.with(context.active().setValue(operationKey, operation), call) : call();
    };
  }
  return named as unknown as NetworkAdapter;
}

/** What became of a call: the status of the answer, when one came, and what it failed with. */
export interface CallOutcome {
  status?: number;
  /** Why no answer came, in a word: `TimeoutError`, the socket's code (`ECONNREFUSED`), the error's name. */
  unanswered?: string;
  error?: unknown;
}

/** The span of a call about to be sent, or undefined when tracing is off. */
export function startNetworkSpan(network: NamedNetwork, url: URL | string, method: string): Span | undefined {
  const current = tracer();
  if (!current) return undefined;
  const target = new URL(url);
  const active = context.active();
  const operation = active.getValue(operationKey);
  const requestId = currentRequestId();
  return current.startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': target.hostname.replace(/^\[(.*)\]$/, '$1'),
        'server.port': Number(target.port) || (target.protocol === 'https:' ? 443 : 80),
        // The origin (never user:password@) and the path: no query string, no fragment.
        'url.full': `${target.origin}${target.pathname}`,
        'marquee.network.id': network.id,
        ...(typeof operation === 'string' ? { 'marquee.network.operation': operation } : {}),
        ...(requestId ? { 'marquee.request_id': requestId } : {}),
      },
    },
    active,
  );
}

/**
 * Ends a call's span with its outcome. A failed call has status error, `marquee.network.failure`
 * (the adapter's reason: `invalid_credentials`, `unreachable`…) and `error.type`: the HTTP status
 * for an answer of 400 or more (as the conventions ask), why no answer came when none did, and
 * otherwise the reason (a 200 that carried an error, a body that was not JSON).
 */
export function endNetworkSpan(span: Span, outcome: CallOutcome): void {
  const { status, unanswered, error } = outcome;
  if (status !== undefined) span.setAttribute('http.response.status_code', status);
  if (error !== undefined) {
    const failure = error instanceof NetworkError ? error.reason : undefined;
    if (failure) span.setAttribute('marquee.network.failure', failure);
    const type = status !== undefined && status >= 400 ? String(status) : (unanswered ?? failure ?? (error instanceof Error ? error.name : 'error'));
    span.setAttribute('error.type', type);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
