/**
 * Recovery after a stop: sets an account's kept score windows back by `--lag` on a generated
 * database (as a gateway stopped that long leaves them), starts one gateway, and drives the
 * one-week and six-month rankings at `--connections` (half each) while its worker catches up.
 * Records, per `--bucket` seconds, each ranking's p50/p95, the windows' lag and the records stored
 * after them, and the time until every window ends within a minute of now with at most
 * `cheapCorrectionRecords` records after it; then drives `--after` seconds more, caught up.
 *
 *   npm run bench:recovery -- --account-id N --api-key K --lag 1h|2h|24h [--database URL] [--connections 10] [--bucket 5] [--after 10] [--limit 900] [--scale medium] [--label before] [--vacuum]
 *   npm run bench:recovery -- --account-id N --api-key K --burst 200000 [...]
 *
 * With `--burst N` the windows are not set back: the gateway, once started, stores N records of now
 * through `recordActivities` (1,000 a call, 4 connections, spread over the account's first 100,000
 * members) as fast as it takes them, and the rankings start when the burst ends: the rankings
 * after a burst of batch ingestion, while the worker folds it.
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
import { advanceSpans, cheapCorrectionRecords, targetCoverage, type SignedSpan } from '../src/modules/score-windows/score-windows.js';
import { coveredWindows, foldSpans, saveCoverage } from '../src/modules/score-windows/score-windows.queries.js';
import { holdCoverageLock } from '../src/modules/score-windows/score-windows.locks.js';
import { serverSettings } from './server-settings.js';
import { startBenchGateway } from './gateway.js';
import { countRecordsBehind } from './kept-windows.js';
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
    burst: { type: 'string' },
    /** Seconds the gateway may take to answer /readyz: on a loaded machine its start took over 30. */
    'ready-within': { type: 'string', default: '120' },
  },
});

const root = path.resolve(import.meta.dirname, '..');
if (!args['account-id'] || !args['api-key']) throw new Error('--account-id and --api-key are required (bench:generate prints them)');
const accountId = Number(args['account-id']);
const lagMatch = /^(\d+)(m|h|d)$/.exec(args.lag);
if (!lagMatch) throw new Error('--lag is a number and m, h or d: 30m, 1h, 24h, 2d');
const burstRecords = args.burst === undefined ? undefined : Number(args.burst);
if (burstRecords !== undefined && !(Number.isInteger(burstRecords) && burstRecords > 0)) throw new Error('--burst is a number of records');
const lagMs = burstRecords === undefined ? Number(lagMatch[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[lagMatch[2] as 'm' | 'h' | 'd'] : 0;
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

interface BurstResult {
  seconds: number;
  failedCalls: number;
}

/**
 * Stores `records` records of now through the gateway: `recordActivities` calls of 1,000 at 4
 * connections, as the benchmark's ingestion scenario sends them, over the account's first 100,000
 * members (each member's keys in every window are the fold's work, so they are spread).
 */
async function storeBurst(sql: postgres.Sql, records: number): Promise<BurstResult> {
  const members = (await sql`select id from members where account_id = ${accountId} order by id limit 100000`).map((row) => Number(row.id));
  const [activity] = await sql<{ id: number }[]>`select id from activity_definitions where account_id = ${accountId} and not one_time order by id limit 1`;
  const query = 'mutation($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }';
  let sent = 0;
  let failedCalls = 0;
  const started = performance.now();
  const connection = async () => {
    while (sent < records) {
      const size = Math.min(1000, records - sent);
      const first = sent;
      sent += size;
      const input = Array.from({ length: size }, (_, index) => ({
        activityId: String(activity.id),
        memberId: String(members[(first + index) % members.length]),
        marker: `burst-${process.pid}-${first + index}`,
      }));
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': args['api-key']! },
        body: JSON.stringify({ query, variables: { input } }),
      });
      const body = (await response.json()) as { errors?: unknown[] };
      if (!response.ok || body.errors) failedCalls += 1;
    }
  };
  await Promise.all(Array.from({ length: 4 }, connection));
  return { seconds: (performance.now() - started) / 1000, failedCalls };
}

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
  /** Records stored at or after the least advanced window's end, counted up to a million. */
  const behindWindows = () => countRecordsBehind(sql, accountId);
  const setback = burstRecords === undefined ? await setBack(args.database) : undefined;
  // What the stop left to fold: the records at the new end of every window (the same span for all),
  // and at the old end of the one-week window. The records, not the stop's length, set the work.
  const recordsBetween = async (from: Date, until: Date) => {
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from activity_records
      where account_id = ${accountId} and not one_time and completed_at >= ${from} and completed_at < ${until}`;
    return Number(row.n);
  };
  const stopRecords = setback && {
    newEnd: await recordsBetween(setback.until, new Date()),
    weekOldEnd: await recordsBetween(new Date(setback.until.getTime() - 7 * 86_400_000), new Date(Date.now() - 7 * 86_400_000)),
  };
  if (setback && stopRecords) {
    console.error(`the stop left ${stopRecords.newEnd} records at the windows' new end, ${stopRecords.weekOldEnd} at the one-week window's old end`);
    console.error(`windows set back to ${setback.until.toISOString()} in ${setback.seconds.toFixed(1)} s; lag ${(await windowsLag()).toFixed(0)} s`);
  }
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
  const lags: { at: number; lagSeconds: number; recordsBehind: number; windows: Record<string, number> }[] = [];
  let gateway: ChildProcess | undefined;
  const instances: autocannon.Instance[] = [];
  let started = Date.now();
  let caughtUpAt: number | undefined;
  let burst: (BurstResult & { recordsBehindAtEnd: number }) | undefined;
  try {
    gateway = await startGateway();
    if (burstRecords !== undefined) {
      const stored = await storeBurst(sql, burstRecords);
      burst = { ...stored, recordsBehindAtEnd: await behindWindows() };
      console.error(
        `burst: ${burstRecords.toLocaleString('en')} records in ${stored.seconds.toFixed(1)} s (${Math.round(burstRecords / stored.seconds).toLocaleString('en')}/s, ${stored.failedCalls} failed calls); ${burst.recordsBehindAtEnd.toLocaleString('en')} records behind the windows`,
      );
      started = Date.now();
    }
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
    // Until caught up (every window within a minute of now and the records after them few enough
    // for a cheap correction), then `--after` seconds more.
    while (Date.now() - started < Number(args.limit) * 1000) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const lagSeconds = await windowsLag();
      const behind = await behindWindows();
      lags.push({ at: Date.now(), lagSeconds, recordsBehind: behind, windows: await eachWindowLag() });
      if (caughtUpAt === undefined && lagSeconds <= 60 && behind <= cheapCorrectionRecords) {
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
      recordsBehind: last?.recordsBehind ?? null,
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
    lag: burstRecords === undefined ? args.lag : null,
    lagSeconds: lagMs / 1000,
    burst: burst ? { records: burstRecords, seconds: Math.round(burst.seconds * 10) / 10, failedCalls: burst.failedCalls, recordsBehindAtEnd: burst.recordsBehindAtEnd } : null,
    accountRecords: records,
    connections: Number(args.connections),
    machine: { cpus: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage: os.loadavg().map((load) => Math.round(load * 10) / 10) },
    postgres: settings,
    setBackSeconds: setback ? Math.round(setback.seconds * 10) / 10 : null,
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
  const file = path.join(
    root,
    'bench',
    'results',
    `${new Date().toISOString().slice(0, 10)}-recovery-${args.scale}-${burstRecords === undefined ? args.lag : `burst-${burstRecords}`}${args.label ? `-${args.label}` : ''}.json`,
  );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.error(JSON.stringify({ ...result, buckets: undefined }));
  console.error(`results written to ${path.relative(root, file)}`);
}

await main();
