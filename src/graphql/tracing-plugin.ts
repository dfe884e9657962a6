import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { context, SpanStatusCode, trace, type Context as TraceContext, type Span } from '@opentelemetry/api';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Context } from '../core/context.js';
import { classifyError } from '../core/errors.js';
import { tracer } from '../tracing.js';

/**
 * A span per GraphQL operation (docs/observability.md): for /graphql, from Apollo's plugin hooks
 * (parse, validation and execution inside it); for a /v1.1 route, around the route's document
 * (`tracedOperation`). Named `query AppName`, with the operation's name and type and the codes of
 * the errors it answered (core/errors.ts, as /metrics counts them). The document itself is not
 * recorded: a literal in it may be a password. No span per resolver: the operation's SQL
 * statements are its children, and a span per field would cost more than the fields.
 */

/** The operation span of each /graphql request's context, for the executor (apollo.ts) to run inside. */
const operationSpans = new WeakMap<object, Span>();

/** The trace context the operation of a /graphql request executes in, when it is traced. */
export function operationContext(contextValue: object): TraceContext | undefined {
  const span = operationSpans.get(contextValue);
  return span ? trace.setSpan(context.active(), span) : undefined;
}

/** Installed only when tracing is on (http/server.ts). */
export function tracingPlugin(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ contextValue }) {
      const current = tracer();
      if (!current) return;
      // Until the document is parsed and its operation known; renamed then.
      const span = current.startSpan('GraphQL', { attributes: { 'graphql.operation.type': 'unknown', 'marquee.surface': 'graphql' } });
      operationSpans.set(contextValue, span);
      const codes = new Set<string>();
      return {
        async didResolveOperation({ operationName, operation }) {
          const type = operation?.operation ?? 'unknown';
          span.updateName(operationName ? `${type} ${operationName.slice(0, 100)}` : type);
          span.setAttribute('graphql.operation.type', type);
          if (operationName) span.setAttribute('graphql.operation.name', operationName.slice(0, 100));
        },
        async didEncounterErrors({ errors }) {
          for (const error of errors) codes.add(classifyError(unwrapResolverError(error), { surface: 'graphql' }).code);
        },
        async willSendResponse() {
          operationSpans.delete(contextValue);
          endOperation(span, codes);
        },
      };
    },
  };
}

function endOperation(span: Span, codes: ReadonlySet<string>): void {
  if (codes.size) {
    span.setAttribute('marquee.error_codes', [...codes]);
    span.setAttribute('error.type', [...codes][0]);
    span.setStatus({ code: SpanStatusCode.ERROR, message: [...codes].join(', ') });
  }
  span.end();
}

/**
 * Runs a /v1.1 route's document inside an operation span of its own, a child of the request's:
 * the REST layer executes its documents in-process, past Apollo and its plugins.
 */
export async function tracedOperation<T>(document: DocumentNode, work: () => Promise<T>): Promise<T> {
  const current = tracer();
  if (!current) return work();
  const operation = getOperationAST(document);
  const type = operation?.operation ?? 'unknown';
  const name = operation?.name?.value;
  const attributes = { 'graphql.operation.type': type, 'marquee.surface': 'rest', ...(name ? { 'graphql.operation.name': name } : {}) };
  return current.startActiveSpan(name ? `${type} ${name}` : type, { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      endOperation(span, new Set([classifyError(error, { surface: 'rest' }).code]));
      throw error;
    } finally {
      if (span.isRecording()) span.end();
    }
  });
}
