/**
 * What one key's flood takes from another tenant (bench/flood.ts), against the built gateway in
 * production mode on PostgreSQL:
 *
 *   npx tsx bench/noisy-neighbour.ts --label after
 *   npx tsx bench/noisy-neighbour.ts --label before --gateway-root ../base   # dist/ of another checkout
 *   npx tsx bench/noisy-neighbour.ts --label default-heap --node-options '' --runs 6
 *
 * Creates its own database (dropped at the end), seeds it (bench/flood.ts: `--members` members of a
 * basic application with `--extended-bytes` of extended data each), starts the gateway, sends the
 * flood and writes bench/results/<date>-noisy-neighbour-<label>.json: the flood's statuses, the
 * gateway's RSS before and at its peak, the other tenant's read latencies. The gateway runs with
 * the image's heap ceiling (src/heap-ceiling.ts) unless `--node-options` says otherwise. How far
 * the resident memory grows depends on when V8 collects, so `--runs` floods a new gateway that
 * many times and the report gives each run and the spread of their growth.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { openDatabase } from '../src/db/client.js';
import { heapCeilingOption } from '../src/heap-ceiling.js';
import { runFlood, seedFlood, type FloodResult } from './flood.js';
import { startBenchGateway } from './gateway.js';
import { benchDefaults } from './settings.js';

const { values: args } = parseArgs({
  options: {
    label: { type: 'string', default: 'run' },
    'gateway-root': { type: 'string' },
    server: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    database: { type: 'string', default: `marquee_noisy_${process.pid}` },
    'pool-size': { type: 'string', default: '10' },
    floods: { type: 'string', default: '600' },
    members: { type: 'string', default: '300' },
    'extended-bytes': { type: 'string', default: '6000' },
    port: { type: 'string', default: '4810' },
    runs: { type: 'string', default: '1' },
    'node-options': { type: 'string', default: heapCeilingOption },
  },
});

const root = path.resolve(import.meta.dirname, '..');
const gatewayRoot = path.resolve(args['gateway-root'] ?? root);
const admin = postgres(`${args.server}/postgres`, { max: 1, onnotice: () => {} });
const url = `${args.server}/${args.database}`;
await admin.unsafe(`drop database if exists ${args.database}`);
await admin.unsafe(`create database ${args.database}`);
try {
  const handle = await openDatabase({ kind: 'postgres', url, readUrl: undefined, poolSize: 4 });
  const tenants = await seedFlood(handle.db, { secretKey: benchDefaults.secretKey, memberCount: Number(args.members), extendedBytes: Number(args['extended-bytes']) });
  await handle.close();
  const port = Number(args.port);
  const runs: FloodResult[] = [];
  for (let run = 0; run < Number(args.runs); run += 1) {
    const env = { LOG_LEVEL: 'error', NODE_OPTIONS: args['node-options'] };
    const gateway = await startBenchGateway({ port, database: url, poolSize: args['pool-size'], root: gatewayRoot, env });
    try {
      runs.push(await runFlood({ port, pid: gateway.pid!, tenants, floods: Number(args.floods) }));
      console.log(JSON.stringify(runs.at(-1)));
    } finally {
      gateway.kill();
      await new Promise((resolve) => gateway.once('exit', resolve));
    }
  }
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: gatewayRoot, encoding: 'utf8' }).trim();
  const date = new Date().toISOString().slice(0, 10);
  const growth = runs.map((run) => run.rss.growthMb).sort((a, b) => a - b);
  const report = {
    date,
    label: args.label,
    commit,
    request: 'GET /v1.1/members/all?limit=150&extended=1 (basic key), against GET /v1.1/member/:id of another account',
    members: Number(args.members),
    extendedBytes: Number(args['extended-bytes']),
    poolSize: Number(args['pool-size']),
    nodeOptions: args['node-options'],
    growthMb: { min: growth[0], median: growth[Math.floor((growth.length - 1) / 2)], max: growth.at(-1) },
    // One run is reported as before (its fields at the top level); more as a list.
    ...(runs.length === 1 ? runs[0] : { runs }),
  };
  const file = path.join(root, 'bench', 'results', `${date}-noisy-neighbour-${args.label}.json`);
  fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  console.log(JSON.stringify({ label: report.label, growthMb: report.growthMb }));
} finally {
  await admin.unsafe(`drop database if exists ${args.database} with (force)`);
  await admin.end();
}
