import { context, createContextKey, trace, type Context as TraceContext, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ConsoleSpanExporter, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Config } from './config.js';

/**
 * Tracing with OpenTelemetry (docs/observability.md). Off unless the OTEL_* settings switch it on;
 * off, `tracer()` is undefined and every place that would make a span checks that first, so nothing
 * is registered, wrapped or allocated: the hooks, the Apollo plugin and the statement wrapper are
 * not even installed.
 *
 * On, one provider for the process: a server span per HTTP request (http/tracing.ts), a span per
 * GraphQL operation (graphql/tracing-plugin.ts, and the REST layer's own documents), a span per
 * SQL statement a request sends (db/statement-spans.ts), and a span per call to a network
 * (modules/networks/spans.ts). Spans leave in batches through OTLP over HTTP (protobuf), or to the
 * console.
 */

export type Tracing = NonNullable<Config['tracing']>;

let active: Tracer | undefined;
let provider: NodeTracerProvider | undefined;

/** The tracer when tracing is on, undefined when off: callers make no span at all then. */
export function tracer(): Tracer | undefined {
  return active;
}

export interface StartedTracing {
  /** Ends the batches: exports what is left, within a few seconds. */
  shutdown(): Promise<void>;
  /** Exports what is waiting now (tests). */
  flush(): Promise<void>;
}

/**
 * Registers the process's tracer provider: the W3C trace-context propagator (so an incoming
 * `traceparent` is continued) and AsyncLocalStorage as the context manager. `spanProcessors`
 * replaces the exporter of the settings (tests pass an in-memory one).
 */
export function startTracing(settings: Tracing, options: { spanProcessors?: SpanProcessor[]; version?: string } = {}): StartedTracing {
  if (provider) throw new Error('tracing is already started');
  const processors = options.spanProcessors ?? [new BatchSpanProcessor(exporterOf(settings))];
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: settings.serviceName,
      ...(options.version ? { [ATTR_SERVICE_VERSION]: options.version } : {}),
    }),
    sampler: samplerOf(settings.sampler),
    spanProcessors: processors,
  });
  provider.register();
  active = provider.getTracer('marquee', options.version);
  const started = provider;
  return {
    async shutdown() {
      if (provider !== started) return;
      active = undefined;
      provider = undefined;
      await started.shutdown();
      trace.disable();
      context.disable();
    },
    flush: () => started.forceFlush(),
  };
}

function exporterOf(settings: Tracing) {
  if (settings.exporter === 'console') return new ConsoleSpanExporter();
  return new OTLPTraceExporter({ url: settings.url, headers: settings.headers });
}

function samplerOf(sampler: Tracing['sampler']): Sampler {
  const root = sampler.kind === 'always_off' ? new AlwaysOffSampler() : sampler.kind === 'ratio' ? new TraceIdRatioBasedSampler(sampler.ratio) : new AlwaysOnSampler();
  return sampler.parentBased ? new ParentBasedSampler({ root }) : root;
}

/** `trace_id` and `span_id` of the span current where a line is logged (pino's mixin), so logs and traces join. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span: Span | undefined = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** The id of the traced request, carried in its trace context beside its span. */
const requestIdKey = createContextKey('marquee.request_id');

/** The request's trace context with its id (http/tracing.ts), for spans made deeper down to name the request too. */
export function withRequestId(traceContext: TraceContext, requestId: string): TraceContext {
  return traceContext.setValue(requestIdKey, requestId);
}

/** The id of the traced request the caller works for; undefined outside one, or with tracing off. */
export function currentRequestId(): string | undefined {
  const value = context.active().getValue(requestIdKey);
  return typeof value === 'string' ? value : undefined;
}
