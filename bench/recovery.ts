/**
 * Recovery after a stop: sets an account's kept score windows back by `--lag` on a generated
 * database (as a gateway stopped that long leaves them), starts one gateway, and drives the
 * one-week and six-month rankings at `--connections` (half each) while its worker catches up.
 * Records, per `--bucket` seconds, each ranking's p50/p95 and the windows' lag, and the time until
 * every window ends within a minute of now; then drives `--after` seconds more, caught up.
 *
 *   npm run bench:recovery -- --account-id N --api-key K --lag 1h|2h|24h [--database URL] [--connections 10] [--bucket 5] [--after 10] [--limit 900] [--scale medium] [--label before] [--vacuum]
 *
 * With `--vacuum`, the kept tables are vacuumed and analyzed after they are set back, as autovacuum
 * would have done while a real gateway stood still (the set-back is one big fold that a real stop
 * does not make; these machines' PostgreSQL runs with autovacuum off).
 *
 * The account and key are those bench:generate printed. Results go to
 * bench/results/<date>-recovery-<scale>-<lag>[-<label>].json, with the PostgreSQL settings the run had.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { openDatabase } from '../src/db/client.js';
import { advanceSpans, targetCoverage, type SignedSpan } from '../src/modules/score-windows/score-windows.js';
import { coveredWindows, foldSpans, saveCoverage } from '../src/modules/score-windows/score-windows.queries.js';
import { holdCoverageLock } from '../src/modules/score-windows/score-windows.locks.js';
import { serverSettings } from './server-settings.js';
import { startBenchGateway } from './gateway.js';
import { benchDefaults } from './settings.js';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: benchDefaults.databaseUrl },
    'account-id': { type: 'string' },
    'api-key': { type: 'string' },
    lag: { type: 'string', default: '1h' },
    connections: { type: 'string', default: '10' },
    bucket: { type: 'string', default: '5' },
    after: { type: 'string', default: '10' },
    limit: { type: 'string', default: '900' },
    scale: { type: 'string', default: 'medium' },
    port: { type: 'string', default: '4490' },
    label: { type: 'string' },
    vacuum: { type: 'boolean', default: false },
    /** Seconds the gateway may take to answer /readyz: on a loaded machine its start took over 30. */
    'ready-within': { type: 'string', default: '120' },
  },
});

const root = path.resolve(import.meta.dirname, '..');
if (!args['account-id'] || !args['api-key']) throw new Error('--account-id and --api-key are required (bench:generate prints them)');
const accountId = Number(args['account-id']);
const lagMatch = /^(\d+)(m|h|d)$/.exec(args.lag);
if (!lagMatch) throw new Error('--lag is a number and m, h or d: 30m, 1h, 24h, 2d');
const lagMs = Number(lagMatch[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[lagMatch[2] as 'm' | 'h' | 'd'];
const url = `http://127.0.0.1:${args.port}`;

/**
 * Moves every window of the account back to end `lagMs` ago, folding the records between (a fold
 * with the spans reversed), as the coverage protocol asks: the coverage lock held exclusively.
 * No gateway runs meanwhile.
 */
async function setBack(databaseUrl: string): Promise<{ until: Date; seconds: number }> {
  const started = performance.now();
  const handle = await openDatabase({ kind: 'postgres', url: databaseUrl, readUrl: undefined, poolSize: 2 });
  const until = new Date(Date.now() - lagMs);
  try {
    await handle.db.transaction(async (tx) => {
      await holdCoverageLock(tx, accountId, 'exclusive');
      const current = new Map((await coveredWindows(tx, accountId)).map((w) => [w.windowId, w]));
      const spans: { windowId: number; span: SignedSpan }[] = [];
      const target = targetCoverage(until);
      for (const w of target) {
        const now = current.get(w.windowId);
        if (!now) throw new Error(`account ${accountId} has no covered window ${w.windowId}: generate it first`);
        spans.push(...advanceSpans(now, w).map((span) => ({ windowId: w.windowId, span })));
      }
      // A span at a time: a fold reads its change into the gateway, and a day of a large account's
      // records over every window at once is millions of changed totals.
      for (const span of spans) await foldSpans(tx, accountId, [span]);
      await saveCoverage(tx, accountId, target);
    });
  } finally {
    await handle.close();
  }
  return { until, seconds: (performance.now() - started) / 1000 };
}

async function startGateway(): Promise<ChildProcess> {
  return startBenchGateway({ port: Number(args.port), database: args.database, readyWithinMs: Number(args['ready-within']) * 1000 });
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0) * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), max: at(1), requests: sorted.length };
}

/** The tables a set-back rewrites. */
const keptTables = ['score_windows', 'score_window_totals', 'score_window_counts', 'score_window_groups', 'score_window_activity_totals'];

/** autocannon's own request timeout. */
const requestTimeoutMs = 10_000;

const rankings = [
  { name: 'week', path: '/v1.1/members/active' },
  { name: 'six-months', path: '/v1.1/members/active?period=6%20months' },
] as const;

async function main() {
  const sql = postgres(args.database, { max: 1, onnotice: () => {} });
  const settings = await serverSettings(sql);
  console.error(`PostgreSQL settings: ${JSON.stringify(settings)}`);
  const windowsLag = async () => {
    const [row] = await sql`select extract(epoch from now() - min(covered_until))::float8 as lag from score_windows where account_id = ${accountId}`;
    return Number(row.lag);
  };
  /** Each window's lag, by window id: the windows far behind catch up one at a time. */
  const eachWindowLag = async () => {
    const rows = await sql`select window_id, extract(epoch from now() - covered_until)::float8 as lag from score_windows where account_id = ${accountId} order by window_id`;
    return Object.fromEntries(rows.map((row) => [String(row.window_id), Math.round(Number(row.lag))]));
  };
  const [{ records }] = await sql<{ records: number }[]>`select count(*)::int as records from activity_records where account_id = ${accountId}`;
  const setback = await setBack(args.database);
  // What the stop left to fold: the records at the new end of every window (the same span for all),
  // and at the old end of the one-week window. The records, not the stop's length, set the work.
  const recordsBetween = async (from: Date, until: Date) => {
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from activity_records
      where account_id = ${accountId} and not one_time and completed_at >= ${from} and completed_at < ${until}`;
    return Number(row.n);
  };
  const stopRecords = {
    newEnd: await recordsBetween(setback.until, new Date()),
    weekOldEnd: await recordsBetween(new Date(setback.until.getTime() - 7 * 86_400_000), new Date(Date.now() - 7 * 86_400_000)),
  };
  console.error(`the stop left ${stopRecords.newEnd} records at the windows' new end, ${stopRecords.weekOldEnd} at the one-week window's old end`);
  console.error(`windows set back to ${setback.until.toISOString()} in ${setback.seconds.toFixed(1)} s; lag ${(await windowsLag()).toFixed(0)} s`);
  let vacuumSeconds: number | undefined;
  if (args.vacuum) {
    const vacuumStarted = performance.now();
    await sql.unsafe(`vacuum analyze ${keptTables.join(', ')}`);
    vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
    console.error(`kept tables vacuumed and analyzed in ${vacuumSeconds.toFixed(1)} s`);
  }
  await new Promise<void>((resolve, reject) =>
    spawn('node', ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' }).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build exited with ${code}`)))),
  );

  const samples: { at: number; ranking: string; ms: number; ok: boolean; status: number }[] = [];
  const lags: { at: number; lagSeconds: number; windows: Record<string, number> }[] = [];
  let gateway: ChildProcess | undefined;
  const instances: autocannon.Instance[] = [];
  const started = Date.now();
  let caughtUpAt: number | undefined;
  try {
    gateway = await startGateway();
    const share = Math.max(1, Math.floor(Number(args.connections) / rankings.length));
    const finished = rankings.map(
      (ranking) =>
        new Promise<void>((resolve, reject) => {
          const instance = autocannon(
            {
              url,
              connections: share,
              timeout: requestTimeoutMs / 1000,
              duration: Number(args.limit),
              requests: [{ method: 'GET', path: `${ranking.path}${ranking.path.includes('?') ? '&' : '?'}apikey=${args['api-key']}` }],
            },
            (error) => (error ? reject(error) : resolve()),
          );
          instance.on('response', (_client, status, _bytes, time) => samples.push({ at: Date.now(), ranking: ranking.name, ms: time, ok: status < 400, status }));
          // A request past autocannon's timeout (10 s) gives no response: counted as failed, at
          // the timeout, so a stretch of the rollup's slowest answers is not read as no request.
          instance.on('reqError', () => samples.push({ at: Date.now(), ranking: ranking.name, ms: requestTimeoutMs, ok: false, status: 0 }));
          instances.push(instance);
        }),
    );
    // Until caught up (every window within a minute of now), then `--after` seconds more.
    while (Date.now() - started < Number(args.limit) * 1000) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const lagSeconds = await windowsLag();
      lags.push({ at: Date.now(), lagSeconds, windows: await eachWindowLag() });
      if (caughtUpAt === undefined && lagSeconds <= 60) {
        caughtUpAt = Date.now();
        console.error(`caught up after ${((caughtUpAt - started) / 1000).toFixed(1)} s`);
      }
      if (caughtUpAt !== undefined && Date.now() - caughtUpAt >= Number(args.after) * 1000) break;
    }
    for (const instance of instances) instance.stop();
    await Promise.all(finished);
  } finally {
    for (const instance of instances) instance.stop();
    gateway?.kill('SIGTERM');
    await sql.end();
  }

  const bucketMs = Number(args.bucket) * 1000;
  const buckets = [];
  for (let from = started; from < (lags.at(-1)?.at ?? started); from += bucketMs) {
    const inBucket = samples.filter((sample) => sample.at >= from && sample.at < from + bucketMs);
    const last = lags.filter((row) => row.at < from + bucketMs).at(-1);
    buckets.push({
      fromSeconds: (from - started) / 1000,
      windowsLagSeconds: last === undefined ? null : Math.round(last.lagSeconds),
      lagSecondsByWindow: last?.windows ?? null,
      ...Object.fromEntries(rankings.map((ranking) => [ranking.name, percentiles(inBucket.filter((sample) => sample.ranking === ranking.name).map((sample) => sample.ms))])),
      errors: inBucket.filter((sample) => !sample.ok).length,
    });
  }
  const phase = (caught: boolean) =>
    Object.fromEntries(
      rankings.map((ranking) => [
        ranking.name,
        percentiles(samples.filter((sample) => sample.ranking === ranking.name && (caughtUpAt === undefined ? !caught : caught === sample.at >= caughtUpAt)).map((sample) => sample.ms)),
      ]),
    );
  const result = {
    scenario: 'recovery',
    scale: args.scale,
    lag: args.lag,
    lagSeconds: lagMs / 1000,
    accountRecords: records,
    connections: Number(args.connections),
    machine: { cpus: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage: os.loadavg().map((load) => Math.round(load * 10) / 10) },
    postgres: settings,
    setBackSeconds: Math.round(setback.seconds * 10) / 10,
    stopRecords,
    vacuumSeconds: vacuumSeconds === undefined ? null : Math.round(vacuumSeconds * 10) / 10,
    secondsToCaughtUp: caughtUpAt === undefined ? null : Math.round((caughtUpAt - started) / 100) / 10,
    errors: samples.filter((sample) => !sample.ok).length,
    /** Failed answers by status code. */
    errorStatuses: Object.fromEntries(
      [...new Set(samples.filter((sample) => !sample.ok).map((sample) => sample.status))].map((status) => [status, samples.filter((sample) => sample.status === status).length]),
    ),
    whileCatchingUp: phase(false),
    caughtUp: phase(true),
    buckets,
  };
  const file = path.join(root, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-recovery-${args.scale}-${args.lag}${args.label ? `-${args.label}` : ''}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.error(JSON.stringify({ ...result, buckets: undefined }));
  console.error(`results written to ${path.relative(root, file)}`);
}

await main();
