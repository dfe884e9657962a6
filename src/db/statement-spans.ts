import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { tracer } from '../tracing.js';

/**
 * A span per SQL statement a traced request sends (docs/observability.md). Both drivers send every
 * statement through one method, wrapped here and in client.ts: postgres.js's `unsafe` (Drizzle's
 * statements, transactions' included, and the hand-written ones of statements.ts) and PGlite's
 * `query`. The span carries the statement's text as sent, with `$1`, `$2`… where the values go:
 * values are never recorded, nor the database's error message (which may quote one), only its
 * SQLSTATE.
 *
 * Only statements sent inside a trace (a request's span is current) get a span: the background
 * workers' passes would otherwise each be a trace of their own, every few seconds.
 */

/** Longest statement text a span keeps; the listing statements run to a few kilobytes. */
const textChars = 4096;

export type Driver = 'postgres' | 'pglite';

/** The span of a statement about to be sent, or undefined when tracing is off or no trace is current. */
export function startStatementSpan(text: string, driver: Driver): Span | undefined {
  const current = tracer();
  if (!current) return undefined;
  const parent = context.active();
  if (!trace.getSpan(parent)) return undefined;
  const operation = /^\s*\(?\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  return current.startSpan(
    operation,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system': 'postgresql',
        'db.system.name': 'postgresql',
        'db.operation.name': operation,
        'db.query.text': text.length > textChars ? `${text.slice(0, textChars)}…` : text,
        'marquee.db.driver': driver,
      },
    },
    parent,
  );
}

/** Ends a statement's span with its outcome: the rows it returned, or the SQLSTATE it failed with. */
export function endStatementSpan(span: Span, outcome: { rows?: unknown } | { error: unknown }): void {
  if ('error' in outcome) {
    const code = (outcome.error as { code?: unknown } | null)?.code;
    const state = typeof code === 'string' ? code : undefined;
    span.setAttribute('error.type', state ?? (outcome.error instanceof Error ? outcome.error.name : 'error'));
    if (state) span.setAttribute('db.response.status_code', state);
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    const rows = Array.isArray(outcome.rows) ? outcome.rows : (outcome.rows as { rows?: unknown } | null)?.rows;
    if (Array.isArray(rows)) span.setAttribute('db.response.returned_rows', rows.length);
  }
  span.end();
}

/** What postgres.js's Query settles through (db/request-statements.ts hooks the same pair). */
interface Settling {
  resolve: (value: unknown) => unknown;
  reject: (error: unknown) => unknown;
}

/** Times a postgres.js statement from its creation (handed to the pool) until it settles. */
export function traceStatement<T extends Settling>(statement: T, text: unknown): T {
  const span = startStatementSpan(String(text), 'postgres');
  if (!span) return statement;
  const { resolve, reject } = statement;
  statement.resolve = (value) => (endStatementSpan(span, { rows: value }), resolve(value));
  statement.reject = (error) => (endStatementSpan(span, { error }), reject(error));
  return statement;
}

type Query = (text: string, ...rest: unknown[]) => Promise<unknown>;

/**
 * The PGlite client with its statements traced: `query` (how Drizzle and statements.ts send), also
 * inside transactions. Only made when tracing is on when the database opens.
 */
export function tracedPglite<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, property) {
      const member = Reflect.get(target, property, target) as unknown;
      if (typeof member !== 'function') return member;
      if (property === 'query') {
        return async (text: string, ...rest: unknown[]) => {
          const span = startStatementSpan(text, 'pglite');
          if (!span) return (member as Query).call(target, text, ...rest);
          try {
            const result = await (member as Query).call(target, text, ...rest);
            endStatementSpan(span, { rows: result });
            return result;
          } catch (error) {
            endStatementSpan(span, { error });
            throw error;
          }
        };
      }
      if (property === 'transaction') {
        return (callback: (transaction: object) => unknown, ...rest: unknown[]) =>
          (member as (...args: unknown[]) => unknown).call(target, (transaction: object) => callback(tracedPglite(transaction)), ...rest);
      }
      return (member as (...args: unknown[]) => unknown).bind(target);
    },
  });
}
