import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runsOutsideTransaction } from '../src/db/migrations.js';
import { migrationsFolder } from '../src/db/paths.js';

/**
 * `npm run check:migrations [folder]`: lints each migration of drizzle/ (or of `folder`) newer than
 * the baseline with Squawk, under the rules of .squawk.toml, and fails when one breaks a rule: a
 * statement that would lock or rewrite a large table while the gateways serve (docs/operations.md,
 * "Migrations on a live database").
 *
 * Squawk is told how the runner (src/db/migrations.ts) applies each one: in a transaction, where a
 * table the migration creates is new and empty and a rerun starts clean, or, for a migration with
 * a concurrent index statement, statement by statement, where each must pass a rerun
 * (prefer-robust-stmts: IF NOT EXISTS).
 */

/**
 * The newest migration not linted. Migrations 0000–0037 were applied by every database of the
 * releases so far: rewriting one would change no database, so their plain indexes and foreign keys
 * stay as they were written.
 */
const baseline = '0037_fan_search_indexes';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The number a migration's file starts with (drizzle-kit's `0038_…`). */
function sequence(name: string): number | undefined {
  const match = /^(\d+)_/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** The .sql files of `folder` after the baseline; one without a number is linted too. */
function migrationsToLint(folder: string): string[] {
  const after = sequence(baseline)!;
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.sql') && !((sequence(name) ?? Infinity) <= after))
    .sort()
    .map((name) => path.join(folder, name));
}

/** Whether the runner applies the file outside a transaction: its statements, split as drizzle splits them. */
function appliedOutsideTransaction(file: string): boolean {
  return runsOutsideTransaction(fs.readFileSync(file, 'utf8').split('--> statement-breakpoint'));
}

/** Runs Squawk on `files`; true when none breaks a rule. Its report goes to this process's output. */
function squawk(files: string[], inTransaction: boolean): boolean {
  if (!files.length) return true;
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('squawk-cli/package.json')), 'js', 'bin', 'squawk');
  const args = [bin, '--config', path.join(root, '.squawk.toml'), inTransaction ? '--assume-in-transaction' : '--no-assume-in-transaction', ...files.map((file) => path.relative(process.cwd(), file))];
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status === 0;
}

function main(): void {
  const folder = path.resolve(process.argv[2] ?? migrationsFolder);
  const files = migrationsToLint(folder);
  if (!files.length) {
    console.log(`no migration in ${folder} newer than ${baseline}: nothing to lint`);
    return;
  }
  const outside = files.filter(appliedOutsideTransaction);
  const inside = files.filter((file) => !outside.includes(file));
  // Both runs, so one report names every migration that fails.
  const passed = [squawk(inside, true), squawk(outside, false)].every(Boolean);
  const names = files.map((file) => path.basename(file, '.sql')).join(', ');
  if (!passed) {
    console.error(`migrations newer than ${baseline} break the rules above (docs/operations.md, "Migrations on a live database"); checked: ${names}`);
    process.exitCode = 1;
    return;
  }
  console.log(`migrations newer than ${baseline} pass: ${names}`);
}

main();
