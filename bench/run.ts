/**
 * Starts the gateway in production mode against a generated database and drives it with
 * autocannon, scenario by scenario: requests per second, latency percentiles, errors, SQL round
 * trips per request (from the gateway's own metrics) and the gateway's peak memory.
 *
 *   npm run bench -- --scale small [--api-key K --database URL] [--duration 10] [--warmup 3] [--connections 10] [--only name,name] [--peer-indexes] [--gateways N] [--pool-size 20] [--label name] [--gateway-root checkout]
 *
 * Without --api-key and --account-id it first runs bench/generate.ts at the scale and uses the account it made.
 * Results go to bench/results/<date>-<scale>.json. With --peer-indexes, the foreign-key indexes
 * PostGraphile's documentation asks for are made in the benchmark database for the run and dropped
 * after it (bench/indexes.ts). --pool-size sets the database pool of each gateway and of the raw route
 * (docs/configuration.md says what it trades). With --gateways N, N gateway processes share the one database (ports
 * 10 apart) and each scenario's connections are spread over them, as behind a load balancer: the
 * requests per second are their sum and the latency percentiles are over every response.
 * Each scenario is first driven for --warmup seconds, unmeasured: the gateway compiles its code and
 * documents and each pooled connection prepares its statements on their first use, which would
 * otherwise be charged to whichever scenario comes first.
 * After each scenario, any statement still running on the database (other than the benchmark's
 * own) is cancelled and the output says which (bench/leftovers.ts), so a scenario whose statements
 * outlived it cannot make the next one fail; a scenario that throws is reported as `failed`, one
 * with error answers as `errored`, and the run goes on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { createPeerIndexes, dropPeerIndexes } from './indexes.js';
import { serverSettings } from './server-settings.js';
import { cancelLeftoverStatements } from './leftovers.js';
import { waitForKeptWindows, type KeptWindowsWait } from './kept-windows.js';
import { keptExactness, type KeptExactness } from './kept-exactness.js';
import { startBenchGateway } from './gateway.js';
import { benchDefaults } from './settings.js';
import { scenarios, type ScenarioContext, type Target } from './scenarios.js';

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'small' },
    database: { type: 'string', default: benchDefaults.databaseUrl },
    'api-key': { type: 'string' },
    'account-id': { type: 'string' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    port: { type: 'string', default: '4390' },
    only: { type: 'string' },
    'peer-indexes': { type: 'boolean', default: false },
    gateways: { type: 'string', default: '1' },
    'pool-size': { type: 'string', default: '20' },
    // Names the results file (`<date>-<scale>-<label>.json`), so runs of one sitting keep their own.
    label: { type: 'string' },
    // Another checkout whose built gateway (its dist/) is measured: a change's base, with this
    // harness and these scenarios, in the same sitting.
    'gateway-root': { type: 'string' },
  },
});

const root = path.resolve(import.meta.dirname, '..');
const gatewayRoot = path.resolve(args['gateway-root'] ?? root);
const gatewayPorts = Array.from({ length: Number(args.gateways) }, (_, i) => Number(args.port) + 10 * i);
const gatewayUrls = gatewayPorts.map((port) => `http://127.0.0.1:${port}`);
const peerPorts = { postgraphile: Number(args.port) + 1, raw: Number(args.port) + 2 };
const targets: Record<Target, string[]> = { marquee: gatewayUrls, postgraphile: [`http://127.0.0.1:${peerPorts.postgraphile}`], raw: [`http://127.0.0.1:${peerPorts.raw}`] };

function run(command: string, argv: string[], env: NodeJS.ProcessEnv = {}, cwd = root): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${argv.join(' ')} exited with ${code}`))));
  });
}

async function generated(): Promise<{ apiKey: string; accountId: number }> {
  if (args['api-key'] && args['account-id']) return { apiKey: args['api-key'], accountId: Number(args['account-id']) };
  console.error(`generating the ${args.scale} data set…`);
  const out = await run('npx', ['tsx', 'bench/generate.ts', '--scale', args.scale, '--database', args.database]);
  const report = JSON.parse(out.trim().split('\n').at(-1)!) as { apiKey: string; accountId: number };
  console.error(JSON.stringify(report));
  return { apiKey: report.apiKey, accountId: report.accountId };
}

async function waitUntil(url: string, init?: RequestInit): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    try {
      if ((await fetch(url, init)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer`);
}

/**
 * PostGraphile 5 needs Node 22; bench/peer holds it with a Node 22 binary from npm, so the project
 * itself stays on Node 20. Installed on first use.
 */
async function startPostGraphile(): Promise<ChildProcess> {
  const peer = path.join(root, 'bench', 'peer');
  if (!fs.existsSync(path.join(peer, 'node_modules', 'postgraphile'))) await run('npm', ['ci', '--prefix', peer, '--no-audit', '--no-fund', '--loglevel=error']);
  const child = spawn(
    path.join(peer, 'node_modules', '.bin', 'node'),
    [path.join(peer, 'node_modules', 'postgraphile', 'dist', 'cli-run.js'), '-P', 'postgraphile/presets/amber', '-c', args.database, '-s', 'public', '--port', String(peerPorts.postgraphile)],
    {
      cwd: peer,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  await waitUntil(`${targets.postgraphile[0]}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' });
  return child;
}

async function startRaw(accountId: number): Promise<ChildProcess> {
  // Node itself with tsx's loader: one process, so killing it stops the server.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/raw-server.ts', args.database, String(peerPorts.raw), String(accountId), args['pool-size']], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitUntil(`${targets.raw[0]}/members`);
  return child;
}

async function startGateway(port: number): Promise<ChildProcess> {
  return startBenchGateway({ port, database: args.database, poolSize: args['pool-size'], root: gatewayRoot });
}

/** Total SQL statements and requests so far, from the gateways' Prometheus metrics. */
async function roundTripTotals(): Promise<{ statements: number; requests: number }> {
  let statements = 0;
  let requests = 0;
  for (const url of gatewayUrls) {
    const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${benchDefaults.metricsToken}` } })).text();
    for (const line of text.split('\n')) {
      if (line.startsWith('marquee_sql_round_trips_per_request_sum')) statements += Number(line.split(' ').at(-1));
      if (line.startsWith('marquee_sql_round_trips_per_request_count')) requests += Number(line.split(' ').at(-1));
    }
  }
  return { statements, requests };
}

/** The scenario's connections spread over the target's processes, each process driven by an autocannon of its own, at once. */
async function drive(urls: string[], connections: number, requests: autocannon.Request[] | undefined, latencies: number[], duration = Number(args.duration)) {
  const outcomes = await Promise.all(
    urls.map(
      (url, i) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          const share = Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0);
          const instance = autocannon({ url, connections: share, duration, requests }, (error, outcome) => (error ? reject(error) : resolve(outcome)));
          // Every response time, so the percentiles below are exact rather than autocannon's fixed set.
          instance.on('response', (_client, _status, _bytes, time) => latencies.push(time));
        }),
    ),
  );
  const sum = (pick: (outcome: autocannon.Result) => number) => outcomes.reduce((total, outcome) => total + pick(outcome), 0);
  return { perSecond: sum((o) => o.requests.average), total: sum((o) => o.requests.total), errors: sum((o) => o.errors + o.non2xx) };
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0) * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) };
}

/** Resident memory of the gateway now, and its peak so far (Linux /proc). */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rssMb: Math.round(field('VmRSS')), peakMb: Math.round(field('VmHWM')) };
}

async function main() {
  const { apiKey, accountId } = await generated();
  const sql = postgres(args.database, { max: 1, onnotice: () => {} });
  const settings = await serverSettings(sql);
  console.error(`PostgreSQL settings: ${JSON.stringify(settings)}`);
  const context: ScenarioContext = await (async () => {
    const [busiest] = await sql<{ member_id: number }[]>`select member_id from member_activity_daily where account_id = ${accountId}
      group by member_id order by sum(points) desc limit 1`;
    const [brand] = await sql<{ brand_id: number }[]>`select brand_id from member_activity_daily where account_id = ${accountId} and brand_id is not null
      group by brand_id order by count(*) desc limit 1`;
    const [activity] = await sql<{ id: number }[]>`select id from activity_definitions where account_id = ${accountId} and not one_time order by id limit 1`;
    const members = (await sql`select id from members where account_id = ${accountId} order by id limit 5000`).map((row) => row.id as number);
    return { apiKey, accountId, busiestMemberId: busiest.member_id, brandId: brand.brand_id, activityId: activity.id, memberIds: members, password: benchDefaults.password };
  })();
  await sql.end();

  const only = args.only?.split(',');
  const wanted = scenarios(context).filter((scenario) => !only || only.includes(scenario.name));
  const peerIndexes = Boolean(args['peer-indexes']);
  if (peerIndexes) {
    const admin = postgres(args.database, { max: 1, onnotice: () => {} });
    await createPeerIndexes(admin).finally(() => admin.end());
  }
  await run('node', ['scripts/build.mjs'], {}, gatewayRoot);
  const gatewayCommit = (await run('git', ['rev-parse', '--short', 'HEAD'], {}, gatewayRoot)).trim();
  const gateways: ChildProcess[] = [];
  for (const port of gatewayPorts) gateways.push(await startGateway(port));
  const peers: ChildProcess[] = [];
  if (wanted.some((scenario) => scenario.target === 'postgraphile')) peers.push(await startPostGraphile());
  if (wanted.some((scenario) => scenario.target === 'raw')) peers.push(await startRaw(accountId));
  const results: { scenario: string; errors: number; latencyMs?: { p50: number }; requestsPerSecond?: number }[] = [];
  let keptWindows: KeptWindowsWait | undefined;
  let keptAfterIngestion: (KeptWindowsWait & KeptExactness) | undefined;
  try {
    keptWindows = await waitForKeptWindows(args.database, accountId);
    console.error(`kept windows: ${JSON.stringify(keptWindows)}`);
    for (const scenario of wanted) {
      // A scenario that fails is reported as failed, its leftovers cancelled, and the next one runs on a quiet database.
      try {
        results.push(await measure(scenario));
      } catch (error) {
        const row = { scenario: scenario.name, description: scenario.description, outcome: 'failed', failure: error instanceof Error ? error.message : String(error), errors: 1 };
        results.push(row);
        console.error(JSON.stringify(row));
      }
      const leftovers = await cancelLeftoverStatements(args.database);
      if (leftovers.length) {
        console.error(`cancelled ${leftovers.length} statement(s) left running after ${scenario.name}: ${JSON.stringify(leftovers)}`);
        Object.assign(results.at(-1)!, { leftoverStatementsCancelled: leftovers.length });
      }
    }
    // Stored records must leave what is kept exact: checked once the gateway's worker has folded them.
    if (wanted.some((scenario) => scenario.itemsPerRequest)) {
      keptAfterIngestion = { ...(await waitForKeptWindows(args.database, accountId)), ...(await keptExactness(args.database, accountId)) };
      console.error(`kept data after ingestion: ${JSON.stringify(keptAfterIngestion)}`);
    }
  } finally {
    for (const gateway of gateways) gateway.kill('SIGTERM');
    for (const peer of peers) peer.kill('SIGTERM');
    if (peerIndexes) {
      const admin = postgres(args.database, { max: 1, onnotice: () => {} });
      await dropPeerIndexes(admin).finally(() => admin.end());
    }
  }

  async function measure(scenario: (typeof wanted)[number]) {
    if (Number(args.warmup) > 0) await drive(targets[scenario.target ?? 'marquee'], scenario.connections ?? Number(args.connections), scenario.requests, [], Number(args.warmup));
    const before = await roundTripTotals();
    const latencies: number[] = [];
    const result = await drive(targets[scenario.target ?? 'marquee'], scenario.connections ?? Number(args.connections), scenario.requests, latencies);
    const after = await roundTripTotals();
    // The largest gateway's memory.
    const memory = gateways.map((gateway) => memoryOf(gateway.pid!)).reduce((a, b) => (b.peakMb > a.peakMb ? b : a));
    const row = {
      scenario: scenario.name,
      description: scenario.description,
      requestsPerSecond: Math.round(result.perSecond),
      latencyMs: percentiles(latencies),
      errors: result.errors,
      requests: result.total,
      // Counted by Marquee's own metrics: not known for the peers.
      sqlRoundTripsPerRequest: scenario.target && scenario.target !== 'marquee' ? null : Math.round(((after.statements - before.statements) / Math.max(1, after.requests - before.requests)) * 100) / 100,
      ...(scenario.itemsPerRequest ? { itemsPerSecond: Math.round(result.perSecond * scenario.itemsPerRequest) } : {}),
      gatewayMemoryMb: memory,
      // `errored`: some answers were errors (or none came); the latencies then time errors, not work.
      outcome: result.errors > 0 || result.total === 0 ? 'errored' : 'ok',
    };
    console.error(JSON.stringify(row));
    return row;
  }

  // A scenario that answered errors measured how fast errors come back: no ratio from it.
  const ratioOf = (figure: (row: (typeof results)[number]) => number | undefined) => (oursName: string, theirsName: string) => {
    const [ours, theirs] = [oursName, theirsName].map((name) => {
      const row = results.find((candidate) => candidate.scenario === name && candidate.errors === 0);
      return row && figure(row);
    });
    return ours && theirs ? Math.round((ours / theirs) * 100) / 100 : null;
  };
  const ratio = ratioOf((row) => row.latencyMs?.p50);
  const ratios = {
    marqueeOverPostgraphileP50: ratio('members-page-100-plain-marquee', 'members-page-100-plain-postgraphile'),
    marqueeOverRawP50: ratio('members-page-100-plain-marquee', 'members-page-100-plain-raw'),
    memberShowOverRawP50: ratio('member-show-rest', 'member-show-raw'),
  };
  // Requests per second of ours over theirs, in the same run (1 = as fast): the figure a machine's
  // capacity follows, where the p50 ratios above follow each request's wait.
  const throughput = ratioOf((row) => row.requestsPerSecond);
  const throughputRatios = {
    memberShowRestOverRaw: throughput('member-show-rest', 'member-show-raw'),
    memberShowGraphqlOverRaw: throughput('member-show-graphql', 'member-show-raw'),
    memberShowRestOverGraphql: throughput('member-show-rest', 'member-show-graphql'),
    memberShowRestOverPostgraphile: throughput('member-show-rest', 'member-show-postgraphile'),
    memberShowGraphqlOverPostgraphile: throughput('member-show-graphql', 'member-show-postgraphile'),
    page100OverRaw: throughput('members-page-100-plain-marquee', 'members-page-100-plain-raw'),
    page100OverPostgraphile: throughput('members-page-100-plain-marquee', 'members-page-100-plain-postgraphile'),
    ingestOverRaw: throughput('ingest-batch-1000', 'ingest-batch-1000-raw'),
  };
  console.error(JSON.stringify({ ...ratios, throughputRatios }));
  const file = path.join(root, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-${args.scale}${args.label ? `-${args.label}` : ''}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const machine = { cpus: (await import('node:os')).cpus().length, memoryGb: Math.round((await import('node:os')).totalmem() / 2 ** 30), node: process.version };
  fs.writeFileSync(
    file,
    `${JSON.stringify({ gatewayCommit, scale: args.scale, duration: Number(args.duration), warmup: Number(args.warmup), connections: Number(args.connections), gateways: gatewayUrls.length, peerIndexes, machine, postgres: settings, keptWindows, keptAfterIngestion, ratios, throughputRatios, results }, null, 2)}\n`,
  );
  console.error(`results written to ${path.relative(root, file)}`);
}

await main();
