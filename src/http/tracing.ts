import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context as TraceContext, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tracer, withRequestId } from '../tracing.js';

/**
 * A server span per HTTP request (docs/observability.md), made from Fastify's hooks rather than
 * the require-hook instrumentations (which do not see an ES-module bundle): started when the
 * request arrives, continuing the caller's trace when it sends a W3C `traceparent`, and ended when
 * the answer is sent. Everything the request runs (authentication, the GraphQL operation or REST
 * route, their SQL) happens inside it. Nothing is registered when tracing is off.
 *
 * The span's context is entered from the first onRequest hook and again before the handlers
 * (preHandler), and the request's and reply's event listeners are bound to it: the body arrives
 * and the answer finishes in events of the socket, outside any request's context otherwise, and
 * the log line of a finished request should carry the trace too.
 */
/** Probes and scrapes: a trace every few seconds from each prober, of nothing worth following. */
const untraced = new Set(['/healthz', '/readyz', '/metrics']);

export function registerHttpTracing(app: FastifyInstance): void {
  const current = tracer();
  if (!current) return;
  const traced = new WeakMap<FastifyRequest, { span: Span; context: TraceContext }>();

  // Callback hooks: `done` runs the next hooks inside the span's context, which an async hook cannot do.
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route && untraced.has(route)) return done();
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = current.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          ...(route ? { 'http.route': route } : {}),
          // The path only: keys and tokens may travel in the query string.
          'url.path': request.url.split('?')[0],
          'url.scheme': request.protocol,
          'client.address': request.ip,
          'marquee.request_id': request.id,
        },
      },
      parent,
    );
    // The request id rides along, for the spans beneath that name the request too (a network call's).
    const spanContext = withRequestId(trace.setSpan(parent, span), request.id);
    traced.set(request, { span, context: spanContext });
    context.bind(spanContext, request.raw);
    context.bind(spanContext, reply.raw);
    context.with(spanContext, done);
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const entry = traced.get(request);
    if (entry) context.with(entry.context, done);
    else done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const entry = traced.get(request);
    if (entry) {
      traced.delete(request);
      const { span } = entry;
      span.setAttribute('http.response.status_code', reply.statusCode);
      const caller = request.context?.caller;
      if (caller && 'accountId' in caller) span.setAttribute('marquee.account_id', caller.accountId);
      if (caller && 'applicationId' in caller && caller.applicationId !== undefined) span.setAttribute('marquee.application_id', caller.applicationId);
      if (request.answeredError) span.setAttribute('error.type', request.answeredError.code);
      if (reply.statusCode >= 500) {
        span.setAttribute('error.type', request.answeredError?.code ?? String(reply.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
    done();
  });
  // The client left before the answer: onResponse does not run.
  app.addHook('onRequestAbort', (request, done) => {
    const entry = traced.get(request);
    if (entry) {
      traced.delete(request);
      entry.span.setAttribute('error.type', 'client_gone');
      entry.span.end();
    }
    done();
  });
}
