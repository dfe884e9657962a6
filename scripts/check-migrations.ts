import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runsOutsideTransaction, statementsBesideConcurrentOnes } from '../src/db/migrations.js';
import { migrationsFolder } from '../src/db/paths.js';

/**
 * `npm run check:migrations [folder]`: lints each migration of drizzle/ (or of `folder`) newer than
 * the baseline with Squawk, under the rules of .squawk.toml, and fails when one breaks a rule: a
 * statement that would lock or rewrite a large table while the gateways serve (docs/operations.md,
 * "Migrations on a live database").
 *
 * Squawk is told how the runner (src/db/migrations.ts) applies each one: in a transaction, where a
 * table the migration creates is new and empty and a rerun starts clean, or, for a migration with
 * a concurrent index statement, statement by statement. Such a migration must hold concurrent index
 * statements only: the runner knows whether each did its work in an interrupted run (so
 * drizzle-kit's `CREATE INDEX CONCURRENTLY` without IF NOT EXISTS passes a rerun, and Squawk's
 * prefer-robust-stmts is left out for it), and nothing else would.
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

/** The file's statements, split as drizzle splits them. */
const statementsOf = (file: string) => fs.readFileSync(file, 'utf8').split('--> statement-breakpoint');

/** Whether the runner applies the file outside a transaction. */
function appliedOutsideTransaction(file: string): boolean {
  return runsOutsideTransaction(statementsOf(file));
}

/** True when every migration run outside a transaction holds concurrent index statements only; each other statement is reported. */
function concurrentMigrationsHoldIndexesOnly(files: string[]): boolean {
  let clean = true;
  for (const file of files) {
    for (const statement of statementsBesideConcurrentOnes(statementsOf(file))) {
      clean = false;
      console.error(
        `${path.basename(file)}: a migration with a concurrent index statement holds index statements only (it is run again from its start after an interruption); move this to a migration of its own:\n  ${statement.trim().split('\n')[0]}`,
      );
    }
  }
  return clean;
}

/** The rules .squawk.toml leaves out (its `excluded_rules`, one quoted name after another). */
function configuredExclusions(): string[] {
  const list = /^excluded_rules\s*=\s*\[([^\]]*)\]/m.exec(fs.readFileSync(path.join(root, '.squawk.toml'), 'utf8'))?.[1] ?? '';
  return [...list.replace(/#[^\n]*/g, '').matchAll(/"([a-z-]+)"/g)].map(([, rule]) => rule);
}

/** Runs Squawk on `files`; true when none breaks a rule. Its report goes to this process's output. */
function squawk(files: string[], inTransaction: boolean): boolean {
  if (!files.length) return true;
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('squawk-cli/package.json')), 'js', 'bin', 'squawk');
  // An --exclude given on the command line replaces the configuration's list rather than adding to it.
  const mode = inTransaction ? ['--assume-in-transaction'] : ['--no-assume-in-transaction', `--exclude=${[...configuredExclusions(), 'prefer-robust-stmts'].join(',')}`];
  const args = [bin, '--config', path.join(root, '.squawk.toml'), ...mode, ...files.map((file) => path.relative(process.cwd(), file))];
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
  const passed = [squawk(inside, true), squawk(outside, false), concurrentMigrationsHoldIndexesOnly(outside)].every(Boolean);
  const names = files.map((file) => path.basename(file, '.sql')).join(', ');
  if (!passed) {
    console.error(`migrations newer than ${baseline} break the rules above (docs/operations.md, "Migrations on a live database"); checked: ${names}`);
    process.exitCode = 1;
    return;
  }
  console.log(`migrations newer than ${baseline} pass: ${names}`);
}

main();
