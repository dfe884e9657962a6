import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Database } from '../src/db/client.js';
import { members, memberServices } from '../src/db/schema/index.js';
import { digestToken, newAccessToken } from '../src/modules/identity/access-tokens.js';
import { createTokenCipher } from '../src/modules/identity/token-cipher.js';
import { createApplication } from '../src/modules/tenancy/tenancy.service.js';

/**
 * One key's flood of large pages against another tenant's reads (a memory bound per key): a basic key
 * sends `floods` concurrent `GET /v1.1/members/all?limit=150&extended=1`, each page 150 members
 * with several kilobytes of extended data, while another account's key reads one of its members
 * in a loop. What the gateway's resident memory grows by, and how long the other tenant's reads
 * take meanwhile, are what one key may take from the others. Shared by bench/noisy-neighbour.ts
 * (PostgreSQL, the built gateway) and test/reliability/noisy-neighbour.test.ts.
 */
export interface FloodTenants {
  flood: { apiKey: string; accountId: number };
  other: { apiKey: string; memberId: number };
}

export interface FloodResult {
  floods: number;
  /** Answers of the flood by HTTP status (0: the connection failed). */
  statuses: Record<string, number>;
  floodMs: number;
  rss: { beforeMb: number; peakMb: number; growthMb: number };
  /** `slowest`: the slowest read, and when it was sent from the reader's start (the flood's). */
  other: { reads: number; failed: number; p50Ms: number; p95Ms: number; maxMs: number; slowest: { atMs: number; ms: number } };
}

/** Extended data of one member: `bytes` of JSON or so, in fields a custom profile would have. */
function extendedOf(index: number, bytes: number): Record<string, unknown> {
  const fields: Record<string, unknown> = { points: index, tier: index % 5 };
  for (let field = 0; JSON.stringify(fields).length < bytes; field += 1) fields[`note_${field}`] = `${index}-${field} `.padEnd(90, 'x');
  return fields;
}

/** Two accounts: a basic application with `memberCount` members carrying extended data, and another with one member. */
export async function seedFlood(db: Database, { secretKey, memberCount = 300, extendedBytes = 6000 }: { secretKey: string; memberCount?: number; extendedBytes?: number }): Promise<FloodTenants> {
  const cipher = createTokenCipher(secretKey);
  const sealed = () => {
    const token = newAccessToken();
    return { accessTokenHash: digestToken(token), accessTokenSealed: cipher.seal(token) };
  };
  const stamp = `${Date.now()}-${process.pid}`;
  const flood = await createApplication(db, { accountName: `flood-${stamp}`, name: 'flood', plan: 'basic' });
  const other = await createApplication(db, { accountName: `other-${stamp}`, name: 'other', plan: 'basic' });
  for (let start = 0; start < memberCount; start += 100) {
    const rows = Array.from({ length: Math.min(100, memberCount - start) }, (_, offset) => start + offset).map((index) => ({
      accountId: flood.account.id,
      email: `flood-${index}-${stamp}@example.com`,
      firstName: `Fan${index}`,
      country: 'GB',
      extended: extendedOf(index, extendedBytes),
      ...sealed(),
    }));
    const inserted = await db.insert(members).values(rows).returning({ id: members.id });
    await db.insert(memberServices).values(inserted.map((member) => ({ accountId: flood.account.id, memberId: member.id, network: 'spotify', uid: `uid-${member.id}`, username: `user${member.id}` })));
  }
  const [theirs] = await db
    .insert(members)
    .values({ accountId: other.account.id, email: `other-${stamp}@example.com`, firstName: 'Other', country: 'FR', ...sealed() })
    .returning({ id: members.id });
  await db.insert(memberServices).values({ accountId: other.account.id, memberId: theirs.id, network: 'spotify', uid: `uid-${theirs.id}`, username: `user${theirs.id}` });
  return { flood: { apiKey: flood.apiKey, accountId: flood.account.id }, other: { apiKey: other.apiKey, memberId: theirs.id } };
}

/** The resident memory of process `pid` now, in MB (Linux). */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0);

/**
 * Warms the gateway (a page and a read, so the code and documents are compiled), then sends the
 * flood all at once while the other tenant reads its member one request after another until the
 * flood is answered. RSS is sampled every 20 ms.
 */
export async function runFlood({ port, pid, tenants, floods = 600, limit = 150 }: { port: number; pid: number; tenants: FloodTenants; floods?: number; limit?: number }): Promise<FloodResult> {
  const base = `http://127.0.0.1:${port}`;
  const page = () => fetch(`${base}/v1.1/members/all?limit=${limit}&extended=1`, { headers: { 'x-api-key': tenants.flood.apiKey } });
  const read = () => fetch(`${base}/v1.1/member/${tenants.other.memberId}`, { headers: { 'x-api-key': tenants.other.apiKey } });
  for (let warm = 0; warm < 3; warm += 1) {
    await (await page()).arrayBuffer();
    await (await read()).arrayBuffer();
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const beforeMb = rssMb(pid);
  let peakMb = beforeMb;
  const sampler = setInterval(() => {
    try {
      peakMb = Math.max(peakMb, rssMb(pid));
    } catch {
      // the process ended
    }
  }, 20);
  // The other tenant reads from a process of its own, so the flood's answers arriving in this one
  // do not delay its reads as measured. It connects before the flood (a kept-alive connection, as a
  // tenant already at work has): 600 connections opened at once overflow the listen backlog (511),
  // and a connection opened among them waits for the kernel's SYN retries (1 s, 3 s, 7 s...), not
  // for the gateway.
  const reader = await otherTenantReader(base, tenants);
  const statuses: Record<string, number> = {};
  const started = Date.now();
  const flood = Promise.all(
    Array.from({ length: floods }, async () => {
      let status: number;
      try {
        const response = await page();
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = 0;
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
    }),
  );
  reader.go();
  await flood;
  const floodMs = Date.now() - started;
  const { times, failed, slowest } = await reader.stop();
  clearInterval(sampler);
  const sorted = [...times].sort((a, b) => a - b);
  return {
    floods,
    statuses,
    floodMs,
    rss: { beforeMb, peakMb, growthMb: Math.round((peakMb - beforeMb) * 10) / 10 },
    other: { reads: times.length, failed, p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95), maxMs: sorted.at(-1) ?? 0, slowest },
  };
}

/** The reader's loop: reads until told to stop on stdin (and at least ten times), then prints its times. */
const readerSource = `
const [url, apiKey] = process.argv.slice(1);
const times = [];
// One read to open the kept-alive connection, then wait for the word to start.
await (await fetch(url, { headers: { 'x-api-key': apiKey } })).arrayBuffer();
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
const began = performance.now();
let slowest = { atMs: 0, ms: 0 };
let failed = 0;
let stopping = false;
process.stdin.on('data', () => (stopping = true));
while (!stopping || times.length + failed < 10) {
  const sent = performance.now();
  try {
    const response = await fetch(url, { headers: { 'x-api-key': apiKey } });
    await response.arrayBuffer();
    const ms = Math.round(performance.now() - sent);
    if (ms > slowest.ms) slowest = { atMs: Math.round(sent - began), ms };
    if (response.status === 200) times.push(ms);
    else failed += 1;
  } catch {
    failed += 1;
  }
}
process.stdout.write(JSON.stringify({ times, failed, slowest }));
process.exit(0);
`;

async function otherTenantReader(base: string, tenants: FloodTenants): Promise<{ go(): void; stop(): Promise<{ times: number[]; failed: number; slowest: { atMs: number; ms: number } }> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', readerSource, `${base}/v1.1/member/${tenants.other.memberId}`, tenants.other.apiKey], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.startsWith('ready\n')) resolve();
    }),
  );
  return {
    go() {
      child.stdin.write('go\n');
    },
    async stop() {
      child.stdin.end('stop\n');
      await exited;
      return JSON.parse(output.slice('ready\n'.length)) as { times: number[]; failed: number; slowest: { atMs: number; ms: number } };
    },
  };
}
