/**
 * What tracing costs the gateway (docs/observability.md): the built gateway (dist/main.js, production
 * mode) started against the benchmark database with tracing off, then on (every span sampled and
 * exported by OTLP to a receiver in this process that accepts and discards them), alternating for
 * --rounds rounds. Each start is warmed up, then sent --requests requests per scenario, --concurrency
 * at a time. Reported per mode: the gateway's CPU time per request (from /proc, so what other
 * processes on the machine do counts far less than in a throughput figure), requests per second
 * and the median latency.
 *
 *   npx tsx bench/tracing-cost.ts --api-key K --account-id N [--database URL] [--requests 2000] [--rounds 2]
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { startBenchGateway } from './gateway.js';
import { benchDefaults } from './settings.js';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: benchDefaults.databaseUrl },
    'api-key': { type: 'string' },
    'account-id': { type: 'string' },
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '2' },
    port: { type: 'string', default: '4391' },
  },
});
if (!args['api-key'] || !args['account-id']) throw new Error('--api-key and --account-id (of bench/generate.ts) are required');
const apiKey = args['api-key'];
const base = `http://127.0.0.1:${args.port}`;

/** The gateway's CPU time so far (user + system), in milliseconds. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function drive(request: () => Promise<Response>, count: number, concurrency: number): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const started = performance.now();
        const response = await request();
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`answered ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

async function main(): Promise<void> {
  const sql = postgres(args.database, { max: 1 });
  const [member] = await sql<{ id: number }[]>`select id from members where account_id = ${Number(args['account-id'])} order by id limit 1 offset 100`;
  await sql.end();
  const scenarios: { name: string; request: () => Promise<Response> }[] = [
    { name: 'member-show-rest', request: () => fetch(`${base}/v1.1/member/${member.id}?apiKey=${apiKey}`) },
    {
      name: 'member-graphql',
      request: () =>
        fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({
            query:
              'query Member($id: ID!) { member(lookup: { id: $id }) { id email firstName services { network userId valid } score { points activityCount } lastActivity { id completedAt activity { name } } } }',
            variables: { id: String(member.id) },
          }),
        }),
    },
  ];

  let exported = 0;
  const sink = http.createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (exported += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

  const rows: { round: number; mode: string; scenario: string; cpuMsPerRequest: number; requestsPerSecond: number; p50Ms: number }[] = [];
  for (let round = 1; round <= Number(args.rounds); round += 1) {
    for (const mode of ['off', 'on'] as const) {
      if (mode === 'on') process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
      else delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      const gateway = await startBenchGateway({ port: Number(args.port), database: args.database, readyWithinMs: 60_000 });
      try {
        for (const scenario of scenarios) {
          await drive(scenario.request, Number(args.warmup), Number(args.concurrency));
          const cpuBefore = cpuMs(gateway.pid!);
          const started = performance.now();
          const latencies = await drive(scenario.request, Number(args.requests), Number(args.concurrency));
          const seconds = (performance.now() - started) / 1000;
          const cpu = cpuMs(gateway.pid!) - cpuBefore;
          latencies.sort((a, b) => a - b);
          const row = {
            round,
            mode,
            scenario: scenario.name,
            cpuMsPerRequest: Number((cpu / latencies.length).toFixed(3)),
            requestsPerSecond: Math.round(latencies.length / seconds),
            p50Ms: Number(latencies[Math.floor(latencies.length / 2)].toFixed(2)),
          };
          rows.push(row);
          console.log(JSON.stringify(row));
        }
      } finally {
        gateway.kill('SIGKILL');
        await new Promise((resolve) => gateway.once('exit', resolve));
      }
    }
  }
  sink.close();
  for (const scenario of scenarios) {
    const mean = (mode: string, key: 'cpuMsPerRequest' | 'requestsPerSecond') => {
      const of = rows.filter((row) => row.scenario === scenario.name && row.mode === mode);
      return of.reduce((sum, row) => sum + row[key], 0) / of.length;
    };
    console.log(
      JSON.stringify({
        scenario: scenario.name,
        cpuMsPerRequest: { off: mean('off', 'cpuMsPerRequest'), on: mean('on', 'cpuMsPerRequest'), ratio: Number((mean('on', 'cpuMsPerRequest') / mean('off', 'cpuMsPerRequest')).toFixed(3)) },
        requestsPerSecond: { off: mean('off', 'requestsPerSecond'), on: mean('on', 'requestsPerSecond'), ratio: Number((mean('on', 'requestsPerSecond') / mean('off', 'requestsPerSecond')).toFixed(3)) },
      }),
    );
  }
  console.log(JSON.stringify({ exportedBytes: exported }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
