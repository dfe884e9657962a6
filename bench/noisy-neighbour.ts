/**
 * What one key's flood takes from another tenant (bench/flood.ts), against the built gateway in
 * production mode on PostgreSQL:
 *
 *   npx tsx bench/noisy-neighbour.ts --label after
 *   npx tsx bench/noisy-neighbour.ts --label before --gateway-root ../base   # dist/ of another checkout
 *
 * Creates its own database (dropped at the end), seeds it (bench/flood.ts: `--members` members of a
 * basic application with `--extended-bytes` of extended data each), starts the gateway, sends the
 * flood and writes bench/results/<date>-noisy-neighbour-<label>.json: the flood's statuses, the
 * gateway's RSS before and at its peak, the other tenant's read latencies.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { openDatabase } from '../src/db/client.js';
import { runFlood, seedFlood } from './flood.js';
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
  const gateway = await startBenchGateway({ port, database: url, poolSize: args['pool-size'], root: gatewayRoot, env: { LOG_LEVEL: 'error' } });
  try {
    const result = await runFlood({ port, pid: gateway.pid!, tenants, floods: Number(args.floods) });
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: gatewayRoot, encoding: 'utf8' }).trim();
    const date = new Date().toISOString().slice(0, 10);
    const report = {
      date,
      label: args.label,
      commit,
      request: 'GET /v1.1/members/all?limit=150&extended=1 (basic key), against GET /v1.1/member/:id of another account',
      members: Number(args.members),
      extendedBytes: Number(args['extended-bytes']),
      poolSize: Number(args['pool-size']),
      ...result,
    };
    const file = path.join(root, 'bench', 'results', `${date}-noisy-neighbour-${args.label}.json`);
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
    console.log(JSON.stringify(report));
  } finally {
    gateway.kill();
    await new Promise((resolve) => gateway.once('exit', resolve));
  }
} finally {
  await admin.unsafe(`drop database if exists ${args.database} with (force)`);
  await admin.end();
}
