import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { openDatabase } from '../src/db/client.js';
import { expireRecords, retentionBatch, retentionCutoff } from '../src/modules/retention/retention.js';
import { startBenchGateway } from './gateway.js';
import { waitForKeptWindows } from './kept-windows.js';
import { scenarios, type ScenarioContext } from './scenarios.js';
import { benchDefaults } from './settings.js';

/**
 * A record retention pass on a generated account while the gateway serves it (docs/operations.md,
 * "Record retention"): the same load is driven twice in one sitting, quiet, then with the pass
 * started at once (all its batches, as `--now` runs them), after an unmeasured warm-up. The report
 * gives the pass (records removed, time, each batch's time, the table's size and the WAL it wrote)
 * beside each scenario's rate and latencies: quiet, while the pass ran, and over the whole phase.
 *
 *   npm run bench:generate -- --scale medium --weeks 35 --fresh --database URL   # eight months of records
 *   npx tsx bench/retention.ts --database URL --account-id N --api-key K --months 6 [--duration 20] [--label medium]
 *
 * Writes bench/results/<date>-retention-<label>.json.
 */
const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: benchDefaults.databaseUrl },
    'account-id': { type: 'string' },
    'api-key': { type: 'string' },
    months: { type: 'string', default: '6' },
    duration: { type: 'string', default: '20' },
    connections: { type: 'string', default: '4' },
    port: { type: 'string', default: '4830' },
    only: { type: 'string', default: 'members-active-week,member-show-rest,activity-record-rest' },
    label: { type: 'string', default: 'run' },
    // The pass's pause after each batch, in multiples of the batch's time (retention.ts: 0 as `--now` runs it, 1 as the worker does).
    pause: { type: 'string', default: '0' },
  },
});

const root = path.resolve(import.meta.dirname, '..');
const accountId = Number(args['account-id']);
const months = Number(args.months);
const duration = Number(args.duration);

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0) * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) };
}

/** A response: when it came (performance.now()) and how long it took (ms). */
type Answer = { at: number; ms: number };
type Phase = Map<string, { answers: Answer[]; errors: number; statuses: Record<string, number> }>;

/** Every chosen scenario at once, each with its own connections, for `seconds`; each response's time kept. */
async function drive(context: ScenarioContext, seconds: number): Promise<Phase> {
  const chosen = scenarios(context).filter((scenario) => args.only.split(',').includes(scenario.name));
  const outcomes = await Promise.all(
    chosen.map(
      (scenario) =>
        new Promise<[string, { answers: Answer[]; errors: number; statuses: Record<string, number> }]>((resolve, reject) => {
          const answers: Answer[] = [];
          // Answers other than 200, by status: what an error was.
          const statuses: Record<string, number> = {};
          const instance = autocannon({ url: `http://127.0.0.1:${args.port}`, connections: Number(args.connections), duration: seconds, requests: scenario.requests }, (error, outcome) =>
            error ? reject(error) : resolve([scenario.name, { answers, errors: outcome.errors + outcome.non2xx, statuses }]),
          );
          instance.on('response', (_client, status, _bytes, time) => {
            answers.push({ at: performance.now(), ms: time });
            if (status !== 200) statuses[status] = (statuses[status] ?? 0) + 1;
          });
        }),
    ),
  );
  return new Map(outcomes);
}

/** Each scenario's responses in [from, until): their rate and latencies, and the phase's errors. */
function report(phase: Phase, from: number, until: number) {
  return Object.fromEntries(
    [...phase].map(([name, { answers, errors, statuses }]) => {
      const within = answers.filter((answer) => answer.at >= from && answer.at < until);
      const perSecond = Math.round((within.length / ((until - from) / 1000)) * 10) / 10;
      return [name, { perSecond, answers: within.length, errorsInPhase: errors, statusesInPhase: statuses, ...percentiles(within.map((answer) => answer.ms)) }];
    }),
  );
}

async function main() {
  const sql = postgres(args.database, { max: 1, onnotice: () => {} });
  const [activity] = await sql<{ id: number }[]>`select id from activity_definitions where account_id = ${accountId} and not one_time order by id limit 1`;
  const memberIds = (await sql<{ id: number }[]>`select id from members where account_id = ${accountId} order by id limit 5000`).map((row) => row.id);
  const context: ScenarioContext = { apiKey: args['api-key']!, accountId, busiestMemberId: memberIds[0], brandId: 0, activityId: activity.id, memberIds, password: benchDefaults.password };
  const tableBytes = async () => Number((await sql<{ bytes: string }[]>`select pg_total_relation_size('activity_records')::bigint as bytes`)[0].bytes);
  const walPosition = async () => String((await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`)[0].lsn);
  const walSince = async (lsn: string) => Number((await sql<{ bytes: string }[]>`select pg_wal_lsn_diff(pg_current_wal_lsn(), ${lsn}::pg_lsn)::bigint as bytes`)[0].bytes);

  execFileSync('node', ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  const gateway = await startBenchGateway({ port: Number(args.port), database: args.database, readyWithinMs: 120_000 });
  const database = await openDatabase({ kind: 'postgres', url: args.database, readUrl: undefined, poolSize: 2 });
  try {
    const windows = await waitForKeptWindows(args.database, accountId);
    const cutoff = await retentionCutoff(database.db, accountId, months, new Date());
    if (!cutoff) throw new Error('the account has no kept windows yet');
    const count = async (where: postgres.PendingQuery<postgres.Row[]>) =>
      Number((await sql<{ n: string }[]>`select count(*)::bigint as n from activity_records where account_id = ${accountId} and ${where}`)[0].n);
    const before = { records: await count(sql`true`), expiring: await count(sql`completed_at < ${cutoff} and not one_time`), tableBytes: await tableBytes() };
    console.error(`${before.records} records, ${before.expiring} completed before ${cutoff.toISOString()}; quiet phase`);

    // Unmeasured: the gateway compiles its documents and its connections prepare their statements.
    await drive(context, 5);
    const quietFrom = performance.now();
    const quiet = report(await drive(context, duration), quietFrom, performance.now());

    console.error('the pass, under the same load');
    const wal = await walPosition();
    const batchMs: number[] = [];
    let removed = 0;
    const started = performance.now();
    // The pass as the worker runs it (its pause after each batch), without its bound on batches.
    const pass = expireRecords(database.db, accountId, months, {
      maxBatches: Infinity,
      pause: Number(args.pause),
      onBatch: ({ deleted, ms }) => {
        batchMs.push(ms);
        removed += deleted;
      },
    }).then(() => (performance.now() - started) / 1000);
    const phase = await drive(context, duration);
    const passSeconds = await pass;
    const passEnded = started + passSeconds * 1000;
    // While the pass ran, and the whole phase (the pass's share of it, then the rest).
    const during = { whileThePassRan: report(phase, started, passEnded), wholePhase: report(phase, started, started + duration * 1000) };
    const after = { records: await count(sql`true`), tableBytes: await tableBytes(), walBytes: await walSince(wal) };

    const result = {
      date: new Date().toISOString(),
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
      accountId,
      months,
      pause: Number(args.pause),
      cutoff: cutoff.toISOString(),
      keptWindowsWait: windows,
      batch: retentionBatch,
      before,
      pass: {
        removed,
        seconds: Math.round(passSeconds * 10) / 10,
        recordsPerSecond: Math.round(removed / passSeconds),
        batches: batchMs.length,
        batchMs: percentiles(batchMs),
      },
      after,
      load: { duration, connectionsPerScenario: Number(args.connections), quiet, during },
    };
    const file = path.join(root, 'bench', 'results', `${result.date.slice(0, 10)}-retention-${args.label}.json`);
    fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result, null, 2));
    console.error(`written to ${path.relative(root, file)}`);
  } finally {
    gateway.kill('SIGTERM');
    await database.close();
    await sql.end();
  }
}

await main();
