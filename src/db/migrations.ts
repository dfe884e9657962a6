import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type SQL } from 'drizzle-orm';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { hasSqlState } from './errors.js';
import { executeRows } from './rows.js';
import { migrationsFolder as defaultMigrationsFolder } from './paths.js';

/** Where start-up reports what it does (main.ts logs it; tests and the CLI stay quiet). */
export type Progress = (message: string, details?: Record<string, unknown>) => void;

/**
 * How long a migration's statement may wait for a lock. A statement waiting for an ACCESS
 * EXCLUSIVE lock behind a long transaction makes every later query of that table queue behind it:
 * past this wait the migration gives way, and is tried again after a pause.
 */
export const lockTimeoutMs = 1000;

/**
 * The pauses between the tries of a migration that gave way (SQLSTATE 55P03, lock_not_available),
 * growing so that a long transaction has time to end: eight tries over about a minute, after
 * which the migration fails and the next start resumes from it.
 */
export const lockRetryPausesMs: readonly number[] = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

export interface MigrationOptions {
  /** drizzle/ unless given (tests apply folders of their own). */
  migrationsFolder?: string;
  /** lockRetryPausesMs unless given. */
  lockRetryPausesMs?: readonly number[];
}

interface Executor {
  execute(query: SQL): Promise<unknown>;
}

/**
 * What the runner uses of a database: Drizzle's `execute` and `transaction`. It must be one
 * session (the migrator's single connection, or PGlite): a migration run outside a transaction sets
 * its lock timeout for the statements after it.
 */
interface Migratable extends Executor {
  transaction<T>(run: (tx: Executor) => Promise<T>): Promise<T>;
}

/**
 * Applies the pending migrations of drizzle/ one at a time, each in its own transaction, naming
 * each and how long it took. Drizzle's `migrate` applies them all in one transaction and says
 * nothing, so a long one (a backfill over a large table) looked like a hung start. A failure leaves
 * the migrations before it applied, and the next start resumes from the failed one.
 *
 * Each waits at most lockTimeoutMs for a lock and is tried again when it gave way. One holding a
 * concurrent index statement runs outside a transaction (docs/operations.md, "Migrations on a
 * live database").
 */
export async function applyMigrations(database: unknown, progress: Progress = () => {}, options: MigrationOptions = {}): Promise<void> {
  const db = database as Migratable;
  const folder = options.migrationsFolder ?? defaultMigrationsFolder;
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  const last = await lastApplied(db);
  const pending = migrations.filter((migration) => last === undefined || last < migration.folderMillis);
  if (!pending.length) return;
  const names = migrationNames(folder);
  const started = performance.now();
  progress(`applying ${pending.length} migration${pending.length === 1 ? '' : 's'}`, { pending: pending.length });
  for (const [index, migration] of pending.entries()) {
    const name = names.get(migration.folderMillis) ?? String(migration.folderMillis);
    const begun = performance.now();
    try {
      await withLockRetries(() => applyOne(db, migration, name, progress), name, progress, options.lockRetryPausesMs ?? lockRetryPausesMs);
    } catch (error) {
      throw Object.assign(new Error(`migration ${name} failed: ${reason(error)}`), { cause: error });
    }
    const ms = Math.round(performance.now() - begun);
    progress(`migration ${index + 1}/${pending.length} ${name} applied in ${ms} ms`, { migration: name, ms });
  }
  progress(`migrations applied in ${((performance.now() - started) / 1000).toFixed(1)} s`, { ms: Math.round(performance.now() - started) });
}

/** The failure's message, the database's reason first: Drizzle's own ("Failed query: …") does not say why. */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  return cause && error.message.startsWith('Failed query:') ? `${cause.message}; ${error.message}` : error.message;
}

function applyOne(db: Migratable, migration: MigrationMeta, name: string, progress: Progress): Promise<void> {
  return runsOutsideTransaction(migration.sql) ? applyOutsideTransaction(db, migration, name, progress) : applyInTransaction(db, migration);
}

/** Tries `apply` again after each pause while it gives way to a lock; fails once the pauses are spent. */
async function withLockRetries(apply: () => Promise<void>, name: string, progress: Progress, pauses: readonly number[]): Promise<void> {
  const attempts = pauses.length + 1;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await apply();
    } catch (error) {
      if (!hasSqlState(error, '55P03')) throw error;
      const pause = pauses[attempt - 1];
      if (pause === undefined) {
        throw new Error(
          `it waited over ${lockTimeoutMs} ms for a lock on each of ${attempts} attempts; a long transaction holds a lock on a table it changes (pg_stat_activity, pg_locks): ${reason(error)}`,
          { cause: error },
        );
      }
      progress(`migration ${name} waited over ${lockTimeoutMs} ms for a lock (attempt ${attempt} of ${attempts}); trying again in ${pause} ms`, {
        migration: name,
        attempt,
        pauseMs: pause,
      });
      await sleep(pause);
    }
  }
}

/** As Drizzle's `migrate` applies one migration, with a lock timeout for the transaction. */
async function applyInTransaction(db: Migratable, migration: MigrationMeta): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local lock_timeout = ${lockTimeoutMs}`));
    for (const statement of migration.sql) await tx.execute(sql.raw(statement));
    await record(tx, migration);
  });
}

/**
 * A migration with a concurrent index statement, which PostgreSQL refuses in a transaction block:
 * its statements one by one, then its record. A failure between them leaves the earlier ones
 * applied and the migration unrecorded, so it runs again from its first statement. Such a
 * migration holds index statements only (`npm run check:migrations` refuses others beside them),
 * and each passes a rerun as drizzle-kit writes it (`index(…).concurrently()`, no IF NOT EXISTS):
 * a build whose index exists and is valid is skipped, one an interrupted build left INVALID is
 * dropped and built again (IF NOT EXISTS would keep it), a drop of an index already gone is skipped.
 *
 * The concurrent statements wait for their lock without a timeout: theirs (SHARE UPDATE
 * EXCLUSIVE) blocks no read or write while it waits, and a build waits for every transaction
 * older than it by design. The other statements get lockTimeoutMs.
 *
 * PGlite runs these statements as they are: it accepts CONCURRENTLY outside a transaction, and
 * having a single connection, never waits for another.
 */
async function applyOutsideTransaction(db: Migratable, migration: MigrationMeta, name: string, progress: Progress): Promise<void> {
  try {
    for (const statement of migration.sql) {
      const concurrent = isConcurrentStatement(statement);
      await db.execute(sql.raw(`set lock_timeout = ${concurrent ? 0 : lockTimeoutMs}`));
      if (concurrent && (await doneBefore(db, statement, name, progress))) continue;
      await db.execute(sql.raw(statement));
    }
    await record(db, migration);
  } finally {
    // The session goes on serving (PGlite) or applying; after a broken connection, the error that
    // broke it is the one to report.
    await db.execute(sql`reset lock_timeout`).catch(() => {});
  }
}

/** Drizzle's record of an applied migration: the file's hash and the journal's time (pg-core's dialect). */
async function record(db: Executor, migration: MigrationMeta): Promise<void> {
  await db.execute(sql`insert into "drizzle"."__drizzle_migrations" ("hash", "created_at") values (${migration.hash}, ${migration.folderMillis})`);
}

/**
 * Whether a concurrent index statement did its work in an earlier, interrupted run: its index
 * built and valid, or dropped. An index whose build was interrupted (INVALID) is dropped first,
 * and the statement builds it again.
 */
async function doneBefore(db: Executor, statement: string, name: string, progress: Progress): Promise<boolean> {
  const built = builtIndex(statement);
  const dropped = droppedIndex(statement);
  const index = built ?? dropped;
  if (!index) return false;
  const rows = await executeRows<{ valid: boolean }>(db, sql`select indisvalid as valid from pg_index where indexrelid = to_regclass(${index})`);
  if (dropped) return rows.length === 0;
  if (!rows.length) return false;
  if (rows[0].valid) {
    progress(`migration ${name}: the index ${index} is built already`, { migration: name, index });
    return true;
  }
  progress(`migration ${name}: dropping the invalid index ${index} an interrupted build left`, { migration: name, index });
  await db.execute(sql.raw(`drop index concurrently if exists ${index}`));
  return false;
}

const identifier = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;

/** CREATE [UNIQUE] INDEX CONCURRENTLY [IF NOT EXISTS] name ON [ONLY] [schema.]table. */
const createIndexConcurrently = new RegExp(
  String.raw`^create\s+(?:unique\s+)?index\s+concurrently\s+(?:if\s+not\s+exists\s+)?(${identifier})\s+on\s+(?:only\s+)?(?:(${identifier})\s*\.\s*)?${identifier}`,
  'i',
);

/** The name of the index a concurrent build makes, qualified by its table's schema when the table is; none for an unnamed one. */
function builtIndex(statement: string): string | undefined {
  const match = createIndexConcurrently.exec(withoutComments(statement));
  if (!match) return undefined;
  const [, index, schema] = match;
  return schema ? `${schema}.${index}` : index;
}

/** DROP INDEX CONCURRENTLY [IF EXISTS] [schema.]name, of one index. */
const dropIndexConcurrently = new RegExp(String.raw`^drop\s+index\s+concurrently\s+(?:if\s+exists\s+)?((?:${identifier}\s*\.\s*)?${identifier})\s*(?:cascade|restrict)?\s*;?\s*$`, 'i');

/** The index a concurrent drop removes; none for a statement that drops several. */
function droppedIndex(statement: string): string | undefined {
  return dropIndexConcurrently.exec(withoutComments(statement))?.[1];
}

/** The statements PostgreSQL refuses inside a transaction block, of those a migration holds. */
const concurrentStatement = /^(?:create\s+(?:unique\s+)?index\s+concurrently|drop\s+index\s+concurrently|reindex\s+(?:\([^)]*\)\s*)?(?:index|table|schema|database|system)\s+concurrently)\b/i;

function isConcurrentStatement(statement: string): boolean {
  return concurrentStatement.test(withoutComments(statement));
}

/** True when a migration must run outside a transaction: it holds a concurrent index statement. */
export function runsOutsideTransaction(statements: readonly string[]): boolean {
  return statements.some(isConcurrentStatement);
}

/**
 * The statements of a migration run outside a transaction that are not concurrent index
 * statements: such a migration is run again from its start after an interruption, and only those
 * know (applyOutsideTransaction) whether they did their work before. `npm run check:migrations` refuses them.
 */
export function statementsBesideConcurrentOnes(statements: readonly string[]): string[] {
  if (!runsOutsideTransaction(statements)) return [];
  return statements.filter((statement) => withoutComments(statement) !== '' && !isConcurrentStatement(statement));
}

/** The statement without its comments, leading blanks trimmed (a hand-written migration explains itself). */
function withoutComments(statement: string): string {
  return statement
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .trim();
}

/** The creation time of the newest applied migration, as drizzle records it; undefined on an empty database. */
async function lastApplied(db: Migratable): Promise<number | undefined> {
  // The same schema and table drizzle creates before it migrates (a query naming a missing table
  // fails at planning, even in a branch that would not run).
  await db.execute(sql`create schema if not exists drizzle`);
  await db.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
  return appliedMigration(db);
}

/**
 * The creation time of the newest migration a migrated database has applied, as drizzle records it
 * (undefined before the first): a read alone, for a read-only transaction too. Two databases at the
 * same one have the same schema.
 */
export async function appliedMigration(db: Executor): Promise<number | undefined> {
  const [row] = await executeRows<{ last: unknown }>(db, sql`select max(created_at) as last from drizzle.__drizzle_migrations`);
  return row?.last === null || row?.last === undefined ? undefined : Number(row.last);
}

/** The journal of the migrations folder names each migration (its tag) by the time drizzle records. */
function migrationNames(folder: string): Map<number, string> {
  const journal = JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number; tag: string }[] };
  return new Map(journal.entries.map((entry) => [entry.when, entry.tag]));
}
