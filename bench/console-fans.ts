import 'reflect-metadata';
/**
 * The console's fan operations against a generated database (bench/generate.ts), through a started
 * gateway like the other scenarios: fan searches of each kind of input and fans' pages over
 * /console/graphql (latency percentiles per kind, as a staff member signed in with a session made
 * in the database), then a CSV export of every fan of the account (time, rows, bytes, and the
 * gateway's peak resident memory before and after).
 *
 *   npm run bench:console -- [--database URL] [--account-id N] [--duration 10] [--connections 4] [--label name]
 *
 * Without --account-id, the account with the most members. Results go to
 * bench/results/<date>-console-fans[-label].json.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { openDatabase } from '../src/db/client.js';
import { staffRoles, staffUsers } from '../src/db/schema/index.js';
import { searchFans } from '../src/modules/fan-search/fan-search.js';
import { startSession } from '../src/modules/staff/staff.sessions.js';
import { startBenchGateway } from './gateway.js';
import { serverSettings } from './server-settings.js';
import { benchDefaults } from './settings.js';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: benchDefaults.databaseUrl },
    'account-id': { type: 'string' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '4' },
    port: { type: 'string', default: '4490' },
    label: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    // Only the searches' statements, in this process, one at a time: the database's share of a search.
    'statements-only': { type: 'boolean', default: false },
  },
});

const root = path.resolve(import.meta.dirname, '..');
const base = `http://127.0.0.1:${args.port}`;

function run(command: string, argv: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${argv.join(' ')} exited with ${code}`))));
  });
}

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0) * 10) / 10;
  return { requests: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) };
}

function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rssMb: Math.round(field('VmRSS')), peakMb: Math.round(field('VmHWM')) };
}

/** A staff owner of the account with a live session, made in the database: the cookie the requests carry. */
async function staffCookie(accountId: number): Promise<string> {
  const handle = await openDatabase({ kind: 'postgres', url: args.database, readUrl: undefined, poolSize: 1 });
  try {
    const email = `bench-owner-${Date.now()}@bench.example`;
    const [user] = await handle.db.insert(staffUsers).values({ email, passwordHash: null }).returning();
    await handle.db.insert(staffRoles).values({ accountId, staffId: user.id, role: 'owner' });
    const session = await startSession(handle.db, { accountId, staffId: user.id, secondFactor: false });
    // Production over plain HTTP still names the cookie for HTTPS (the gateway reads the name only).
    return `__Host-mq_console=${session.cookieValue}`;
  } finally {
    await handle.close();
  }
}

async function main() {
  const sql = postgres(args.database, { max: 1, onnotice: () => {} });
  const settings = await serverSettings(sql);
  const accountId = Number(args['account-id']) || Number((await sql`select account_id from members group by account_id order by count(*) desc limit 1`)[0].account_id);
  const [{ count: memberCount }] = await sql<{ count: number }[]>`select count(*)::int as count from members where account_id = ${accountId}`;
  const sample = await sql<{ id: number; email: string; first_name: string | null; surname: string | null }[]>`
    select id, email, first_name, surname from members where account_id = ${accountId} and merged_into_id is null order by random() limit 2000`;
  const uids = (await sql<{ uid: string }[]>`select uid from member_services where account_id = ${accountId} and network <> 'email' order by random() limit 500`).map((row) => row.uid);
  await sql.end();
  const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

  // What staff type, by kind: an id, a network user id, an address (whole, or its start), a name (a
  // first name shared by every generated fan, a prefix of it, "first surname", a user id typed as a name).
  const searches: Record<string, () => string> = {
    'digits-member-id': () => String(pick(sample).id),
    'email-whole': () => pick(sample).email,
    'email-prefix': () => `${pick(sample).email.split('@')[0]}@`,
    'name-common-first-name': () => pick(sample).first_name ?? 'fan',
    'name-prefix-2': () => (pick(sample).first_name ?? 'fa').slice(0, 2),
    'name-first-and-surname': () => {
      const fan = pick(sample);
      return `${fan.first_name ?? ''} ${(fan.surname ?? '').slice(0, 3)}`.trim();
    },
    'name-network-uid': () => pick(uids) ?? 'none',
    'name-no-match': () => `zz${Math.random().toString(36).slice(2, 8)}`,
  };

  if (args['statements-only']) {
    const handle = await openDatabase({ kind: 'postgres', url: args.database, readUrl: undefined, poolSize: 1 });
    const results = [];
    try {
      for (const [name, input] of Object.entries(searches)) {
        const latencies: number[] = [];
        for (let i = 0; i < 220; i += 1) {
          const started = performance.now();
          await searchFans(handle.db, accountId, input(), { first: 20 });
          // The first 20 warm the connection and the caches.
          if (i >= 20) latencies.push(performance.now() - started);
        }
        const row = { scenario: `fan-search-statement-${name}`, latencyMs: percentiles(latencies) };
        console.error(JSON.stringify(row));
        results.push(row);
      }
    } finally {
      await handle.close();
    }
    writeResults({ members: memberCount, settings, results, label: args.label ?? 'statements' });
    return;
  }
  if (!args['skip-build']) await run('node', ['scripts/build.mjs']);
  const gateway = await startBenchGateway({ port: Number(args.port), database: args.database });
  const cookie = await staffCookie(accountId);
  const post = async (query: string, variables: Record<string, unknown>) => {
    const started = performance.now();
    const response = await fetch(`${base}/console/graphql`, { method: 'POST', headers: { cookie, 'x-console-csrf': '1', 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { errors?: unknown[]; data?: unknown };
    return { ms: performance.now() - started, ok: response.ok && !body.errors, body };
  };

  /** Drives one request kind with `connections` loops for the duration (after a short warm-up), every latency kept. */
  async function drive(name: string, request: () => Promise<{ ms: number; ok: boolean; body: unknown }>) {
    const latencies: number[] = [];
    let errors = 0;
    let firstError: unknown;
    for (const phase of ['warmup', 'measure'] as const) {
      const until = Date.now() + (phase === 'warmup' ? 2000 : Number(args.duration) * 1000);
      await Promise.all(
        Array.from({ length: Number(args.connections) }, async () => {
          while (Date.now() < until) {
            const answer = await request();
            if (phase === 'warmup') continue;
            latencies.push(answer.ms);
            if (!answer.ok) {
              errors += 1;
              firstError ??= answer.body;
            }
          }
        }),
      );
    }
    const row = { scenario: name, latencyMs: percentiles(latencies), errors, ...(firstError ? { firstError } : {}) };
    console.error(JSON.stringify(row));
    return row;
  }

  const results = [];
  const search = 'query($s: String!) { fans(search: $s, first: 20) { kind edges { matchedOn exact node { id displayName email } } pageInfo { hasNextPage endCursor } } }';
  try {
    for (const [name, input] of Object.entries(searches)) results.push(await drive(`fan-search-${name}`, () => post(search, { s: input() })));
    const everySearch = Object.values(searches);
    results.push(await drive('fan-search-mixed', () => post(search, { s: pick(everySearch)() })));
    // The console's fan page: profile, services, opt-ins, standing, the first page of activity, sessions, sign-ins, emails (fan.view recorded).
    const page = `query($id: ID!) { fan(id: $id) { id displayName email can { edit merge export erase } services { network uid } optIns { kind optedInAt }
      standing { points position } activity(first: 25) { nodes { id activityName completedAt } pageInfo { hasNextPage } } sessions { live } signIns { kind createdAt } emails { kind } } }`;
    results.push(await drive('fan-page', () => post(page, { id: String(pick(sample).id) })));

    // A CSV of every fan of the account, read as fast as the client can.
    const before = memoryOf(gateway.pid!);
    const started = performance.now();
    const response = await fetch(`${base}/console/fans/export.csv`, { headers: { cookie, 'x-console-csrf': '1' } });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines += 1;
    }
    const exportRow = {
      scenario: 'export-csv-all-fans',
      status: response.status,
      totalRows: Number(response.headers.get('x-total-rows')),
      rows: lines - 1,
      megabytes: Math.round(bytes / 2 ** 20),
      seconds: Math.round((performance.now() - started) / 100) / 10,
      gatewayMemoryBeforeMb: before,
      gatewayMemoryAfterMb: memoryOf(gateway.pid!),
    };
    console.error(JSON.stringify(exportRow));
    results.push(exportRow);
  } finally {
    gateway.kill('SIGTERM');
  }

  writeResults({ members: memberCount, settings, results, label: args.label });
}

function writeResults({ members, settings, results, label }: { members: number; settings: unknown; results: unknown[]; label?: string }) {
  const file = path.join(root, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-console-fans${label ? `-${label}` : ''}.json`);
  const machine = { cpus: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage: os.loadavg().map((value) => Math.round(value * 10) / 10) };
  fs.writeFileSync(file, `${JSON.stringify({ members, duration: Number(args.duration), connections: Number(args.connections), machine, postgres: settings, results }, null, 2)}\n`);
  console.error(`results written to ${path.relative(root, file)}`);
}

await main();
