import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { rowsOf } from '../src/modules/account-transfer/account-export.js';
import { transferTables } from '../src/modules/account-transfer/transfer-tables.js';
import { benchDefaults } from './settings.js';

/**
 * One account moved between two PostgreSQL databases with the CLI, as an operator moves it
 * (docs/operations.md, "Moving an account"): `account export` from the generated database, then
 * `account import` into a new one, each timed with its peak resident memory (GNU time), and every
 * table's row count compared after.
 *
 *   npx tsx bench/account-transfer.ts --database URL --account-id N [--server postgres://…:5432] [--label medium]
 *
 * Writes bench/results/<date>-account-transfer-<label>.json; the target database is dropped after.
 */
const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: benchDefaults.databaseUrl },
    'account-id': { type: 'string' },
    server: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    label: { type: 'string', default: 'run' },
  },
});

const root = path.resolve(import.meta.dirname, '..');
const accountId = Number(args['account-id']);
const target = `marquee_transfer_${process.pid}`;
const targetUrl = `${args.server}/${target}`;

/** Runs the CLI under GNU time: its wall time and peak resident memory, and its JSON answer. */
function timedCli(databaseUrl: string, cliArgs: string[]): { seconds: number; peakRssMb: number; answer: unknown } {
  const measures = path.join(os.tmpdir(), `marquee-transfer-time-${process.pid}`);
  const stdout = execFileSync('/usr/bin/time', ['-f', '%e %M', '-o', measures, process.execPath, 'scripts/run.mjs', 'cli', ...cliArgs, '--json'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, SECRET_KEY: benchDefaults.secretKey, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const [seconds, kilobytes] = fs.readFileSync(measures, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  fs.rmSync(measures, { force: true });
  return { seconds, peakRssMb: Math.round(kilobytes / 1024), answer: JSON.parse(stdout) };
}

async function rowCounts(url: string, account: number): Promise<Record<string, number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const counts: Record<string, number> = {};
    for (const table of transferTables) {
      counts[table.name] = Number((await sql.unsafe(`select count(*)::bigint as n from "${table.name}" where ${rowsOf(table, account)}`))[0].n);
    }
    return counts;
  } finally {
    await sql.end();
  }
}

async function main() {
  const admin = postgres(`${args.server}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${target}`);
  const file = path.join(os.tmpdir(), `marquee-transfer-${process.pid}.jsonl.gz`);
  try {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    const exported = timedCli(args.database, ['account', 'export', '--account', String(accountId), '--out', file]);
    const bytes = fs.statSync(file).size;
    const imported = timedCli(targetUrl, ['account', 'import', '--in', file]);
    const { accountId: newId } = imported.answer as { accountId: number };
    const [source, moved] = [await rowCounts(args.database, accountId), await rowCounts(targetUrl, newId)];
    const rows = Object.values(source).reduce((sum, n) => sum + n, 0);
    const result = {
      date: new Date().toISOString(),
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
      rows,
      fileMb: Math.round(bytes / 1024 / 1024),
      export: { seconds: exported.seconds, rowsPerSecond: Math.round(rows / exported.seconds), peakRssMb: exported.peakRssMb },
      import: { seconds: imported.seconds, rowsPerSecond: Math.round(rows / imported.seconds), peakRssMb: imported.peakRssMb },
      sameCounts: JSON.stringify(source) === JSON.stringify(moved),
      counts: source,
    };
    const out = path.join(root, 'bench', 'results', `${result.date.slice(0, 10)}-account-transfer-${args.label}.json`);
    fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result, null, 2));
  } finally {
    fs.rmSync(file, { force: true });
    await admin.unsafe(`drop database if exists ${target} with (force)`);
    await admin.end();
  }
}

await main();
