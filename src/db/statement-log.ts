import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { QueryPromise } from 'drizzle-orm';
import { PgDatabase, PgInsertBuilder, PgSelectBase, PgSelectBuilder, PgUpdateBuilder } from 'drizzle-orm/pg-core';
import { RelationalQueryBuilder } from 'drizzle-orm/pg-core/query-builders/query';
import { projectRoot } from './paths.js';

/**
 * An opt-in record of the SQL the process sends, for the tenancy check (docs/tenancy.md): when
 * MARQUEE_STATEMENT_LOG names a directory, each distinct statement text is appended once to a file
 * of this process there, as a JSON line `{ "sql": …, "from": … }`. `from` is the first frame of the
 * calling code outside src/db and node_modules ("test/…" for a test's own statements, which the
 * check leaves out).
 *
 * Unset, `recordStatement` is undefined and nothing else changes: the drivers keep their plain
 * round-trip logger and Drizzle's classes are left as they are.
 */
export const recordStatement: Recorder | undefined = process.env.MARQUEE_STATEMENT_LOG ? createRecorder(process.env.MARQUEE_STATEMENT_LOG) : undefined;

/** `direct`: the caller is on the stack (a hand-made send, not an awaited Drizzle builder). */
type Recorder = (text: string, options?: { direct?: boolean }) => void;

export interface StatementLine {
  sql: string;
  from?: string;
}

function createRecorder(directory: string): Recorder {
  const callers = traceCallers();
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `statements-${process.pid}-${threadId}.jsonl`);
  const seen = new Set<string>();
  return (text, options) => {
    if (seen.has(text)) return;
    seen.add(text);
    const asked = options?.direct ? deepError() : (callers.getStore() ?? deepError());
    const line: StatementLine = { sql: text, from: callerOutsideDb(asked) };
    // Synchronous, so that a process ended by a test (or a signal) loses nothing it sent.
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
}

/**
 * Where each Drizzle statement was asked for. A statement is sent when its builder is awaited,
 * and the await of a builder (a thenable, not a promise) leaves the caller out of the stack the
 * logger sees; so the stack is taken where the builder is made (transactions too: they share
 * PgDatabase's methods), kept with the builder and the query it becomes, and the query is sent
 * within it. Carried in the async context alone, it was lost when an async function returned a
 * builder unawaited: its caller's await sends it in a context older than the builder, with
 * whatever stack that context held. An Error's stack is only formatted when read, so this costs
 * little for statements already recorded.
 */
function traceCallers(): AsyncLocalStorage<Error> {
  const callers = new AsyncLocalStorage<Error>();
  const madeAt = new WeakMap<object, Error>();
  const keep = (made: unknown, asked: Error | undefined) => {
    if (asked && made !== null && typeof made === 'object') madeAt.set(made, asked);
    return made;
  };
  type Methods = Record<string, (...args: unknown[]) => unknown>;
  const wrap = (prototype: unknown, names: string[], around: (original: (...args: unknown[]) => unknown, self: object, args: unknown[]) => unknown) => {
    const methods = prototype as Methods;
    for (const name of names) {
      const original = methods[name];
      methods[name] = function (this: object, ...args: unknown[]) {
        return around(original, this, args);
      };
    }
  };
  // Where a statement is asked for: the stack is taken here. `db.query.x.findMany(…)` too.
  const ask = (original: (...args: unknown[]) => unknown, self: object, args: unknown[]) => {
    const asked = deepError();
    callers.enterWith(asked);
    return keep(original.apply(self, args), asked);
  };
  wrap(PgDatabase.prototype, ['select', 'selectDistinct', 'selectDistinctOn', 'insert', 'update', 'delete', 'execute', 'with', '$count'], ask);
  wrap(RelationalQueryBuilder.prototype, ['findMany', 'findFirst'], ask);
  // The steps by which a builder becomes a query pass the stack on.
  const passOn = (original: (...args: unknown[]) => unknown, self: object, args: unknown[]) => keep(original.apply(self, args), madeAt.get(self) ?? callers.getStore());
  wrap(PgSelectBuilder.prototype, ['from'], passOn);
  wrap(PgInsertBuilder.prototype, ['values', 'select'], passOn);
  wrap(PgUpdateBuilder.prototype, ['set'], passOn);
  // Awaited, a query is sent within the stack it was made with, wherever the await is.
  // (A select has QueryPromise's methods copied onto it rather than inherited.)
  const sendWithin = (original: (...args: unknown[]) => unknown, self: object, args: unknown[]) => {
    const asked = madeAt.get(self);
    return asked ? callers.run(asked, () => original.apply(self, args)) : original.apply(self, args);
  };
  wrap(QueryPromise.prototype, ['then'], sendWithin);
  wrap(PgSelectBase.prototype, ['then'], sendWithin);
  return callers;
}

function deepError(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const error = new Error();
  Error.stackTraceLimit = limit;
  return error;
}

/** `src/modules/x/y.ts:12` or `test/z.test.ts:40`: the code that asked for the statement, if the stack shows it. */
function callerOutsideDb(error: Error): string | undefined {
  const stack = error.stack ?? '';
  for (const match of stack.matchAll(/\(?(?:file:\/\/)?(\/[^\s()]+):(\d+):\d+\)?$/gm)) {
    const relative = path.relative(projectRoot, match[1]);
    if (relative.startsWith('..') || relative.includes('node_modules') || relative.startsWith(`src${path.sep}db${path.sep}`)) continue;
    return `${relative}:${match[2]}`;
  }
  return undefined;
}
