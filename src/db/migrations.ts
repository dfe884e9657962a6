import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { migrationsFolder } from './paths.js';

/** Where start-up reports what it does (main.ts logs it; tests and the CLI stay quiet). */
export type Progress = (message: string, details?: Record<string, unknown>) => void;

/** What drizzle's own `migrate` uses of a database: its dialect and session. */
interface Migratable {
  dialect: { migrate(migrations: MigrationMeta[], session: unknown, config: { migrationsFolder: string }): Promise<void> };
  session: unknown;
  execute(query: ReturnType<typeof sql>): Promise<unknown>;
}

/**
 * Applies the pending migrations of drizzle/ one at a time, each in its own transaction, naming
 * each and how long it took. Drizzle's `migrate` applies them all in one transaction and says
 * nothing, so a long one (a backfill over a large table) looked like a hung start. A failure leaves
 * the migrations before it applied, and the next start resumes from the failed one.
 */
export async function applyMigrations(database: unknown, progress: Progress = () => {}): Promise<void> {
  const db = database as Migratable;
  const migrations = readMigrationFiles({ migrationsFolder });
  const last = await lastApplied(db);
  const pending = migrations.filter((migration) => last === undefined || last < migration.folderMillis);
  if (!pending.length) return;
  const names = migrationNames();
  const started = performance.now();
  progress(`applying ${pending.length} migration${pending.length === 1 ? '' : 's'}`, { pending: pending.length });
  for (const [index, migration] of pending.entries()) {
    const name = names.get(migration.folderMillis) ?? String(migration.folderMillis);
    const begun = performance.now();
    try {
      await db.dialect.migrate([migration], db.session, { migrationsFolder });
    } catch (error) {
      throw Object.assign(new Error(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`), { cause: error });
    }
    const ms = Math.round(performance.now() - begun);
    progress(`migration ${index + 1}/${pending.length} ${name} applied in ${ms} ms`, { migration: name, ms });
  }
  progress(`migrations applied in ${((performance.now() - started) / 1000).toFixed(1)} s`, { ms: Math.round(performance.now() - started) });
}

/** The creation time of the newest applied migration, as drizzle records it; undefined on an empty database. */
async function lastApplied(db: Migratable): Promise<number | undefined> {
  // The same schema and table drizzle creates before it migrates (a query naming a missing table
  // fails at planning, even in a branch that would not run).
  await db.execute(sql`create schema if not exists drizzle`);
  await db.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
  const result = (await db.execute(sql`select max(created_at) as last from drizzle.__drizzle_migrations`)) as { rows?: { last: unknown }[] } | { last: unknown }[];
  const rows = Array.isArray(result) ? result : (result.rows ?? []);
  const value = rows[0]?.last;
  return value === null || value === undefined ? undefined : Number(value);
}

/** drizzle/meta/_journal.json names each migration (its tag) by the time drizzle records. */
function migrationNames(): Map<number, string> {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number; tag: string }[] };
  return new Map(journal.entries.map((entry) => [entry.when, entry.tag]));
}
