import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { Logger } from 'drizzle-orm/logger';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { connectionShare, type Config } from '../config.js';
import { onDriverSocketFault } from './errors.js';
import { countRoundTrip, currentRequestStatements } from './roundtrips.js';
import type { CancellableStatement } from './request-statements.js';
import { ConnectionShares } from './connection-shares.js';
import { recordStatement } from './statement-log.js';
import { traceStatement, tracedPglite } from './statement-spans.js';
import { tracer } from '../tracing.js';
import { citusRole, workerRefusal } from './citus.js';
import { applyMigrations, type Progress } from './migrations.js';
import { copyTemplateInto, readTemplate } from './pglite-template.js';
import * as schema from './schema/index.js';
import { sessionSettings } from './session-settings.js';

export type Schema = typeof schema;
/** The common face of both drivers: same query builder, same schema, same SQL. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** What a `db.transaction` callback receives; services accept either. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  kind: 'pglite' | 'postgres';
  db: Database;
  /** Reads that may lag slightly (statistics) go here: the replica when one is configured. */
  read: Database;
  /** PostgreSQL's connection string, for a connection outside the pool (the live feed's LISTEN). */
  url?: string;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PostgreSQL's pools as the gateway uses them, for /metrics; none for the embedded database. */
  pools?: () => PoolUsage[];
}

/**
 * A pool's connections as the gateway counts them (postgres.js keeps its own queue private): each
 * statement sent outside a transaction and each open transaction holds one from when it is handed
 * to the pool until it settles; past the pool's size, the rest wait their turn.
 */
export interface PoolUsage {
  pool: 'primary' | 'replica';
  size: number;
  /** Statements and transactions handed to the pool and not settled: in use, then waiting. */
  busy: number;
}

const roundTripLogger: Logger = { logQuery: () => countRoundTrip() };

/**
 * The logger of one database handle, and the moment from which it records statements: after the
 * migrations, whose statements are no part of what the tenancy check reads. Without
 * MARQUEE_STATEMENT_LOG it is the plain round-trip logger.
 */
function handleLogger(): { logger: Logger; migrated: () => void } {
  const record = recordStatement;
  if (!record) return { logger: roundTripLogger, migrated: () => {} };
  let recording = false;
  return {
    logger: {
      logQuery: (query) => {
        countRoundTrip();
        if (recording) record(query);
      },
    },
    migrated: () => {
      recording = true;
    },
  };
}

export type DatabaseOptions = Config['database'] | { kind: 'pglite-memory' };

/** `progress` hears which migrations start-up applies and how long each took. */
export async function openDatabase(options: DatabaseOptions, { progress }: { progress?: Progress } = {}): Promise<DatabaseHandle> {
  if (options.kind === 'postgres') return openPostgres(options, progress);
  const dataDir = options.kind === 'pglite' ? options.dataDir : undefined;
  try {
    return await openPglite(dataDir, progress);
  } catch (error) {
    // A data directory that cannot be created or read: say which setting points there.
    if (dataDir && isFileSystemError(error)) throw new Error(`could not open the embedded database in ${dataDir} (DATA_DIR): ${(error as Error).message}`, { cause: error });
    throw error;
  }
}

async function openPglite(dataDir: string | undefined, progress?: Progress): Promise<DatabaseHandle> {
  let isNew = !dataDir || !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (dataDir && isNew && !fs.existsSync(dataDir) && copyTemplateInto(dataDir)) isNew = false;
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const template = isNew ? readTemplate() : undefined;
  const client = await PGlite.create(dataDir, template ? { loadDataDir: template } : {});
  const { logger, migrated } = handleLogger();
  // With tracing on, each statement a request sends is a span (db/statement-spans.ts).
  const db = drizzlePglite(tracer() ? tracedPglite(client) : client, { schema, logger, casing: 'snake_case' }) as unknown as Database;
  await applyMigrations(db, progress);
  migrated();
  return {
    kind: 'pglite',
    db,
    read: db,
    ping: async () => {
      await client.query('select 1');
    },
    close: async () => {
      await client.close();
    },
  };
}

/**
 * Several gateways may start at once against one database: a session lock lets one apply the
 * migrations while the others wait, then find nothing left to do. A single-connection client keeps
 * the lock and the migration on the same session.
 */
async function migrateUnderLock(url: string, progress?: Progress): Promise<void> {
  const migrator = postgres(url, { ...resilience, max: 1 });
  try {
    // The first statement is the driver's own, so a server that cannot be reached fails with the
    // driver's connection error (named by its setting above), not wrapped by the query builder.
    await migrator`select 1`;
    // Before any migration: on a Citus worker it would make tables outside the cluster's.
    if ((await citusRole(drizzlePostgres(migrator) as unknown as Database)) === 'worker') throw new Error(workerRefusal('DATABASE_URL'));
    await migrator`select pg_advisory_lock(7305861)`;
    await applyMigrations(drizzlePostgres(migrator), progress);
    await migrator`select pg_advisory_unlock(7305861)`;
  } finally {
    await migrator.end({ timeout: 5 });
  }
}

/**
 * How postgres.js behaves when the server goes away. Its defaults suit a batch job, not a gateway:
 * a connect may hang for 30 s, and the pause before reconnecting grows to 20 s after a few failed
 * attempts, so a request during an outage would wait that long for its error, and the first
 * requests after the server returns would wait that long for a connection.
 */
const resilience = {
  /** Seconds to wait for a new connection (an unreachable host drops packets instead of refusing). */
  connect_timeout: 5,
  /** Seconds before a closed connection is tried again: 0.1, 0.2, 0.4, then 0.5 at most, with jitter. */
  backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5) * (0.5 + Math.random() / 2),
  onnotice: () => {},
} satisfies postgres.Options<Record<string, never>>;

/** How long `/readyz`'s ping may take before the database counts as unavailable. */
const pingTimeoutMs = 2000;

type Sql = postgres.Sql<Record<string, never>>;

/**
 * A postgres.js pool behind a stable face that Drizzle holds, so the pool can be swapped. A caught
 * driver socket fault (see `isDriverSocketFault`) leaves one of the pool's connections unable to
 * send again; the whole pool is replaced, the old one ends once its running queries settle, and
 * new queries go to the new pool, which connects lazily.
 */
function replaceablePool(url: string, poolSize: number, pool: PoolAccounting): { sql: Sql; end(): Promise<void> } {
  const create = () => {
    const fresh = postgres(url, { ...resilience, max: poolSize, connection: sessionSettings });
    // Drizzle adjusts the client's parsers and serializers when it wraps one: the same for every pool.
    drizzlePostgres(fresh);
    return fresh;
  };
  let current = create();
  let scheduled = false;
  const stopListening = onDriverSocketFault(() => {
    // Several connections may fault in the same moment: one replacement for all of them.
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const old = current;
      current = create();
      old.end({ timeout: 5 }).catch(() => {});
    });
  });
  const sql = new Proxy(function () {} as unknown as Sql, {
    apply: (_target, _this, args: unknown[]) => (current as unknown as (...a: unknown[]) => unknown)(...args),
    get: (_target, property) => tracked(current, property, pool),
    set: (_target, property, value) => Reflect.set(current, property, value),
    has: (_target, property) => Reflect.has(current, property),
  });
  return {
    sql,
    async end() {
      stopListening();
      await current.end({ timeout: 5 });
    },
  };
}

type Sends = (...args: unknown[]) => unknown;

/** What the gateway keeps of one pool: its connections in use (/metrics) and each account's share of them. */
interface PoolAccounting {
  usage: PoolUsage;
  shares: ConnectionShares;
}

/**
 * A member of a postgres.js client (the pool, a transaction's, a savepoint's) with the statements
 * it creates registered with the current request (db/request-statements.ts), and traced when
 * tracing is on (db/statement-spans.ts): Drizzle sends every
 * statement through `unsafe`, and a transaction's through the client `begin` or `savepoint` hands
 * its callback, which gets the same treatment.
 */
function tracked(client: object, property: string | symbol, pool: PoolAccounting | undefined): unknown {
  const member = Reflect.get(client, property) as unknown;
  if (typeof member !== 'function') return member;
  if (property === 'unsafe') {
    return (...args: unknown[]) => {
      const statement = (member as Sends)(...args) as CancellableStatement;
      closeRowGaps(statement);
      // With tracing on, a span per statement of a traced request (db/statement-spans.ts).
      if (tracer()) traceStatement(statement, args[0]);
      const request = currentRequestStatements();
      if (pool) {
        holdUntilSettled(statement, pool.usage);
        // Sent once the request's account has a connection of its share free (db/connection-shares.ts).
        pool.shares.gateStatement(statement, request);
      }
      return request?.track(statement) ?? statement;
    };
  }
  if (property === 'begin' || property === 'savepoint') {
    return (...args: unknown[]) => {
      const last = args.length - 1;
      const callback = args[last];
      // Statements inside a transaction use the connection the transaction holds (pool undefined).
      if (typeof callback === 'function') args[last] = (inner: object) => (callback as Sends)(trackedClient(inner));
      if (!pool) return (member as Sends)(...args);
      const { usage, shares } = pool;
      // The transaction holds one of its account's share of connections until it ends.
      return shares.gateTransaction(currentRequestStatements(), () => {
        const transaction = (member as Sends)(...args);
        if (!(transaction instanceof Promise)) return Promise.resolve(transaction);
        usage.busy += 1;
        return transaction.finally(() => (usage.busy -= 1));
      });
    };
  }
  return member;
}

/**
 * postgres.js (3.4.9) counts a connection's rows from the last statement that completed: after a
 * statement that failed once it had sent rows (cancelled, timed out, an error in a later row), the
 * next statement on that connection gets its rows after as many empty places (porsager/postgres#795,
 * reproduced in test/db/driver-row-gaps.test.ts). Every row is still there, in order, after the
 * gap: closing it in place gives the statement's exact rows. Seen on a Citus cluster, where
 * statements cancelled mid-stream are common, as `Cannot read properties of undefined` in mapping.
 */
function closeRowGaps(statement: CancellableStatement): void {
  const { resolve } = statement;
  statement.resolve = (value) => resolve(withoutRowGaps(value));
}

function withoutRowGaps(value: unknown): unknown {
  if (!Array.isArray(value) || value.length === 0 || value[0] !== undefined) return value;
  let kept = 0;
  for (const row of value as unknown[]) if (row !== undefined) value[kept++] = row;
  value.length = kept;
  return value;
}

/** Counts the statement as holding a connection of the pool until it settles (postgres.js settles a query through these two). */
function holdUntilSettled(statement: CancellableStatement, usage: PoolUsage): void {
  usage.busy += 1;
  let held = true;
  const release = () => {
    if (held) usage.busy -= 1;
    held = false;
  };
  const { resolve, reject } = statement;
  statement.resolve = (value) => (release(), resolve(value));
  statement.reject = (error) => (release(), reject(error));
}

function trackedClient<T extends object>(client: T): T {
  return new Proxy(client, {
    get: (target, property) => tracked(target, property, undefined),
    apply: (target, _this, args: unknown[]) => (target as unknown as Sends)(...args),
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer from the database within ${ms} ms`), { code: 'CONNECT_TIMEOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function openPostgres(options: Extract<DatabaseOptions, { kind: 'postgres' }>, progress?: Progress): Promise<DatabaseHandle> {
  const { url, readUrl, poolSize } = options;
  const share = options.connectionsPerAccount ?? connectionShare(poolSize);
  // The first connection of the process: a failure to reach the server names the setting to fix.
  await migrateUnderLock(url, progress).catch((error: unknown) => {
    throw isConnectionError(error) ? connectionError(error, 'DATABASE_URL', url) : error;
  });
  const usage: PoolUsage[] = [{ pool: 'primary', size: poolSize, busy: 0 }];
  const primary = replaceablePool(url, poolSize, { usage: usage[0], shares: new ConnectionShares(share) });
  // The migrations ran on a client of their own (migrateUnderLock): record from the first statement.
  const { logger, migrated } = handleLogger();
  migrated();
  const db = drizzlePostgres(primary.sql, { schema, logger, casing: 'snake_case' }) as unknown as Database;
  if (readUrl) usage.push({ pool: 'replica', size: poolSize, busy: 0 });
  const replica = readUrl ? replaceablePool(readUrl, poolSize, { usage: usage[1], shares: new ConnectionShares(share) }) : undefined;
  const read = replica ? (drizzlePostgres(replica.sql, { schema, logger, casing: 'snake_case' }) as unknown as Database) : db;
  return {
    kind: 'postgres',
    db,
    read,
    url,
    ping: async () => {
      await withTimeout(db.execute(sql`select 1`), pingTimeoutMs);
    },
    close: async () => {
      await Promise.all([primary.end(), replica?.end()]);
    },
    pools: () => usage,
  };
}

/** Failures of reaching or entering the server, as opposed to a statement failing once in. */
const connectionCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  '28P01', // password authentication failed
  '28000', // no such role, or pg_hba refuses
  '3D000', // no such database
  '57P03', // the server is starting up
]);

export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && connectionCodes.has(code);
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`, for messages. */
export function withoutPassword(url: string): { shown: string; hidden: boolean } {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return { shown: url, hidden: false };
    parsed.password = '***';
    return { shown: parsed.toString(), hidden: true };
  } catch {
    return { shown: '(an unreadable URL)', hidden: true };
  }
}

export function connectionError(error: unknown, setting: string, url: string): Error {
  const { shown, hidden } = withoutPassword(url);
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`could not connect to the database at ${setting}=${shown}${hidden ? ' (password hidden)' : ''}: ${reason}`, { cause: error });
}

function isFileSystemError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC', 'EEXIST'].includes(code);
}
