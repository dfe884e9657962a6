import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { PgDatabase } from 'drizzle-orm/pg-core';
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
 * PgDatabase's methods) and carried to the send in the caller's async context. An Error's stack is
 * only formatted when read, so this costs little for statements already recorded.
 */
function traceCallers(): AsyncLocalStorage<Error> {
  const callers = new AsyncLocalStorage<Error>();
  const trace = (prototype: Record<string, (...args: unknown[]) => unknown>, builders: string[]) => {
    for (const name of builders) {
      const original = prototype[name];
      prototype[name] = function (this: unknown, ...args: unknown[]) {
        callers.enterWith(deepError());
        return original.apply(this, args);
      };
    }
  };
  trace(PgDatabase.prototype as unknown as Record<string, (...args: unknown[]) => unknown>, ['select', 'selectDistinct', 'selectDistinctOn', 'insert', 'update', 'delete', 'execute', 'with', '$count']);
  // `db.query.x.findMany(…)` too: untraced, its statement took the caller of whatever builder the
  // async context had made last, which could pass another file's statement off as a test's own.
  trace(RelationalQueryBuilder.prototype as unknown as Record<string, (...args: unknown[]) => unknown>, ['findMany', 'findFirst']);
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
