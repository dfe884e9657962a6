import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { insertMembers } from '../../test/support/activity-data.js';
import { startTestGateway } from '../../test/support/gateway.js';

/**
 * A burst of heavy pages of one key (run by hand, figures in docs/reliability.md): one account with
 * MEMBERS (1000) members; PARALLEL (100) `GET /v1.1/members/all?limit=1000&extended=1` of its key at
 * once over HTTP, and meanwhile one light call of another key (its default page of members). Prints
 * the answers by status, the process's peak RSS (sampled every 50 ms) and the other key's wait.
 *
 *   node --import tsx scripts/reliability/heavy-pages.ts
 */
const memberCount = Number(process.env.MEMBERS ?? 1000);
const parallel = Number(process.env.PARALLEL ?? 100);
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** A GET on a connection of its own (fetch's pool would queue the calls in the client); answers its status once read whole. */
const get = (url: string, apiKey: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { 'x-api-key': apiKey } }, (answer) => {
        answer.resume();
        answer.on('end', () => resolve(answer.statusCode ?? 0));
      })
      .on('error', reject);
  });

const t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '1000000' });
await t.gateway.app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(t.gateway.app.server.address() as AddressInfo).port}/v1.1`;
const heavy = await t.tenant('advanced');
const other = await t.tenant('advanced');
for (let done = 0; done < memberCount; done += 500) {
  await insertMembers(
    t,
    heavy,
    Array.from({ length: Math.min(500, memberCount - done) }, (_, index) => ({ country: index % 2 ? 'GB' : 'US' })),
  );
}
await insertMembers(t, other, [{ country: 'FR' }]);

const startRss = mb(process.memoryUsage().rss);
let peakRss = startRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, mb(process.memoryUsage().rss))), 50);
const started = performance.now();
const burst = Promise.all(Array.from({ length: parallel }, () => get(`${base}/members/all?limit=1000&extended=1`, heavy.apiKey)));
// The other key's call starts once the burst is on its way.
await new Promise((resolve) => setTimeout(resolve, 200));
const otherStarted = performance.now();
const otherStatus = await get(`${base}/members/all`, other.apiKey);
const otherMs = Math.round(performance.now() - otherStarted);
const statuses = await burst;
const burstMs = Math.round(performance.now() - started);
clearInterval(sampler);

const byStatus: Record<number, number> = {};
for (const status of statuses) byStatus[status] = (byStatus[status] ?? 0) + 1;
console.log(JSON.stringify({ members: memberCount, parallel, byStatus, burstMs, startRssMb: startRss, peakRssMb: peakRss, other: { status: otherStatus, ms: otherMs } }, null, 2));
await t.close();
process.exit(0);
