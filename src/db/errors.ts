/**
 * What a database failure is: unavailable, a data exception, a deadlock (what it then is to the
 * caller is core/errors.ts's classifyError, which reads databaseFailure). Drivers and Drizzle wrap errors
 * (DrizzleQueryError keeps the driver's error in `cause`, graphql-js in `originalError`), so every
 * check looks through the whole chain.
 */

/** Node socket errors, postgres.js connection errors, and SQLSTATEs that mean "no database right now". */
const unavailableCodes = new Set([
  // Node: the server refused, dropped or never answered the connection.
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // postgres.js
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // PostgreSQL: admin shutdown, crash shutdown, cannot connect now (starting or recovering), too many connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** The error and everything it wraps: `cause`, graphql-js's `originalError`, AggregateError's `errors`. */
function* chain(error: unknown): Generator<Record<string, unknown>> {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length && seen.size < 20) {
    const current = pending.shift();
    if (!current || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    const record = current as Record<string, unknown>;
    yield record;
    pending.push(record.cause, record.originalError);
    if (Array.isArray(record.errors)) pending.push(...(record.errors as unknown[]));
  }
}

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (const link of chain(error)) {
    // postgres.js puts the SQLSTATE in `code`; Node errors have `code` and sometimes only `errno` names.
    for (const value of [link.code, link.errno]) if (typeof value === 'string') codes.push(value);
  }
  return codes;
}

/** True when the failure, or anything it wraps, carries the SQLSTATE `code`. */
export function hasSqlState(error: unknown, code: string): boolean {
  return codesOf(error).includes(code);
}

/** True when PostgreSQL rolled the transaction back as a deadlock victim (SQLSTATE 40P01). */
export function isDeadlock(error: unknown): boolean {
  return hasSqlState(error, '40P01');
}

/**
 * True when the failure is the database being unreachable, down, restarting or full. SQLSTATE class
 * 08 is "connection exception", but for its protocol violation (08P01), which is the client's own
 * fault and the same on every retry: the embedded database answers a statement of more than
 * 65,535 parameters with it.
 */
export function databaseUnavailable(error: unknown): boolean {
  return codesOf(error).some((code) => unavailableCodes.has(code) || (/^08[0-9A-Z]{3}$/.test(code) && code !== '08P01'));
}

/** The SQLSTATE of a PostgreSQL data exception (class 22) in the chain, if there is one. */
export function dataExceptionCode(error: unknown): string | undefined {
  return codesOf(error).find((code) => /^22[0-9A-Z]{3}$/.test(code));
}

/**
 * True when PostgreSQL cancelled the statement (SQLSTATE 57014, query_canceled): its
 * `statement_timeout`, or the gateway's cancel of a request's statement (db/request-statements.ts:
 * past the statement timeout, or its client gone).
 */
export function isStatementCancelled(error: unknown): boolean {
  return hasSqlState(error, '57014');
}

/**
 * Marks the failure of a statement cancelled (or never sent) because its request's client went away
 * (db/request-statements.ts): nobody reads its answer, and nothing went wrong in the gateway.
 */
export const clientGoneMark = Symbol('client gone');

/** True when the failure, or anything it wraps, is a statement given up because its client went away. */
export function isClientGone(error: unknown): boolean {
  for (const link of chain(error)) if ((link as { [clientGoneMark]?: boolean })[clientGoneMark] === true) return true;
  return false;
}

/**
 * A database failure as the caller's error sees it: the database unavailable, a statement cancelled
 * past the timeout or given up with its departed client, or a data exception and its SQLSTATE.
 */
export type DatabaseFailure = { kind: 'unavailable' } | { kind: 'cancelled' } | { kind: 'client-gone' } | { kind: 'data'; sqlstate: string };

/** What the failure is, looking through the whole chain; undefined when it is not a database failure the caller is told of. */
export function databaseFailure(error: unknown): DatabaseFailure | undefined {
  if (databaseUnavailable(error)) return { kind: 'unavailable' };
  if (isClientGone(error)) return { kind: 'client-gone' };
  if (isStatementCancelled(error)) return { kind: 'cancelled' };
  const sqlstate = dataExceptionCode(error);
  return sqlstate ? { kind: 'data', sqlstate } : undefined;
}

/**
 * postgres.js 3.4.x (up to 3.4.9, the latest) can write to a connection's socket after the socket
 * closed, from a `setImmediate` callback, when a query (its own ROLLBACK in `begin`, typically) is
 * sent on a connection that just died: `TypeError: Cannot read properties of null (reading 'write')
 * at Immediate.nextWrite (postgres/src/connection.js)`. See porsager/postgres#1208 and #1154. The
 * throw escapes every promise, and it leaves that connection unable to send anything again (its
 * write buffer stays marked as scheduled), so the pool that owns it must be replaced.
 */
export function isDriverSocketFault(error: unknown): boolean {
  if (!(error instanceof TypeError) || !/reading 'write'/.test(error.message)) return false;
  const stack = error.stack ?? '';
  return /nextWrite/.test(stack) && /postgres[\\/](cjs[\\/])?src[\\/]connection\.js/.test(stack);
}

/**
 * postgres.js 3.4.x (up to 3.4.9, the latest) sends its own first statement on every new
 * connection, a read of the server's array types, and never awaits it: when the connection is lost
 * before the answer (a server restarting while the pool reconnects), that statement's rejection is
 * unhandled (porsager/postgres#1192, #1223). The statements queued behind it fail or succeed on
 * their own and their callers are told; the rejection itself carries nothing to act on. It is
 * known by its statement, which postgres.js attaches to the error as `query`.
 */
export function isDriverTypeFetchFault(reason: unknown): boolean {
  const query = (reason as { query?: unknown } | null)?.query;
  return typeof query === 'string' && /\bb\.typarray\b/.test(query) && /from pg_catalog\.pg_type a\b/.test(query);
}

const socketFaultListeners = new Set<() => void>();

/** Called (once per fault) when a driver socket fault was caught; returns a function that unsubscribes. */
export function onDriverSocketFault(listener: () => void): () => void {
  socketFaultListeners.add(listener);
  return () => socketFaultListeners.delete(listener);
}

/** Tells the pools about a caught driver socket fault; false when the error is not one. */
export function reportDriverSocketFault(error: unknown): boolean {
  if (!isDriverSocketFault(error)) return false;
  for (const listener of socketFaultListeners) listener();
  return true;
}

// ——— races between clients ———

/**
 * The constraint a failure names, as the schema names it, looking through the chain (postgres.js:
 * `constraint_name`; PGlite: `constraint`), for one SQLSTATE. On a Citus cluster the failure is a
 * shard's, raised again by the coordinator with its message and detail but without the constraint
 * field: the name is read from the message, and carries the shard's id (`…_member_fk_102044`), which
 * is removed (no constraint of the schema ends in digits; test/tenancy/distribution.test.ts).
 */
function constraintOf(error: unknown, sqlstate: string): { name: string; detail: string } | undefined {
  for (const link of chain(error)) {
    if (link.code !== sqlstate) continue;
    const detail = typeof link.detail === 'string' ? link.detail : '';
    const name = link.constraint_name ?? link.constraint;
    if (typeof name === 'string') return { name, detail };
    const shard = typeof link.message === 'string' ? /constraint "([^"]+?)_\d+"/.exec(link.message)?.[1] : undefined;
    if (shard) return { name: shard, detail };
  }
  return undefined;
}

/**
 * SQLSTATE of a statement that found a member it writes for merged into another since it resolved
 * the member (recordGate, src/modules/kept-data/kept-writes.ts): it stored nothing, and
 * resolving the member again names the survivor.
 */
export const memberMergedMeanwhileState = 'MQM01';

export const memberMergedMeanwhile = (error: unknown) => hasSqlState(error, memberMergedMeanwhileState);

/**
 * A race between clients the database settled, as the caller is told of it: a member deleted while
 * a row was written for it (a foreign-key violation of a `*_member_fk` constraint: every reference
 * to a member cascades, so the only way to violate one is to write for a member that is gone); an
 * identity taken by another member meanwhile (the unique network and user id of `member_services`);
 * a member merged meanwhile more often than a writer resolves it again; a deadlock or serialization
 * failure left after the retries of the transaction.
 */
export type RaceFailure = { kind: 'member-gone' } | { kind: 'identity-taken'; network: string | undefined } | { kind: 'merged-meanwhile' } | { kind: 'collided' };

export function raceFailure(error: unknown): RaceFailure | undefined {
  const foreignKey = constraintOf(error, '23503');
  if (foreignKey && /_member_fk$/.test(foreignKey.name)) return { kind: 'member-gone' };
  const unique = constraintOf(error, '23505');
  if (unique?.name === 'member_services_account_network_uid_key') {
    // "Key (account_id, network, uid)=(1, email, …) already exists."
    return { kind: 'identity-taken', network: /\)=\(\d+, ([a-z0-9_-]+),/.exec(unique.detail)?.[1] };
  }
  if (memberMergedMeanwhile(error)) return { kind: 'merged-meanwhile' };
  if (isDeadlock(error) || hasSqlState(error, '40001')) return { kind: 'collided' };
  return undefined;
}

/**
 * Runs a transaction again (`attempts` runs at most) while it fails with what `retryable` accepts:
 * a deadlock victim by default. Each run was rolled back whole, so running it again is safe.
 */
export async function retryTransaction<T>(run: () => Promise<T>, { attempts = 3, retryable = isDeadlock }: { attempts?: number; retryable?: (error: unknown) => boolean } = {}): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || !retryable(error)) throw error;
    }
  }
}
