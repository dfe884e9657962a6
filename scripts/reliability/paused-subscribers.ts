import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createActivity, insertMembers, record } from '../../test/support/activity-data.js';
import { startTestGateway } from '../../test/support/gateway.js';

/**
 * Memory of a gateway whose subscribers stop reading (run by hand, figures in docs/reliability.md):
 * SUBSCRIBERS (100) raw graphql-ws connections of one key subscribe to activityRecorded and stop
 * reading (their TCP sockets paused), then BATCHES (3) batches of BATCH_SIZE (1000) records with a
 * content of CONTENT_BYTES (500)
 * each are recorded. Prints the process's RSS, V8 heap and external memory (Buffers, PGlite's) at start, after the batches, and after
 * the clients have gone (with a forced GC: run with `node --expose-gc --import tsx`). The clients
 * run in the same process; paused, they hold next to nothing.
 *
 *   node --expose-gc --import tsx scripts/reliability/paused-subscribers.ts
 */
const subscribers = Number(process.env.SUBSCRIBERS ?? 100);
const batches = Number(process.env.BATCHES ?? 3);
const batchSize = Number(process.env.BATCH_SIZE ?? 1000);
const contentBytes = Number(process.env.CONTENT_BYTES ?? 500);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const figures: Record<string, { rssMb: number; heapMb: number; externalMb: number; subscribers: number }> = {};

const t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '1000000', SUBSCRIPTIONS_PER_KEY: String(subscribers), SUBSCRIPTIONS_PER_CONNECTION: '1' });
await t.gateway.app.listen({ host: '127.0.0.1', port: 0 });
const tenant = await t.tenant('advanced');
const spin = await createActivity(t, tenant, { name: 'Spin', type: 'Listened', points: 2 });
const members = await insertMembers(t, tenant, [{ country: 'GB' }, { country: 'US' }]);
const measure = (name: string) => {
  gc();
  const { rss, heapUsed, external } = process.memoryUsage();
  figures[name] = { rssMb: mb(rss), heapMb: mb(heapUsed), externalMb: mb(external), subscribers: t.gateway.liveFeed.subscriberCount(tenant.accountId) };
  process.stderr.write(`${name}: ${JSON.stringify(figures[name])}\n`);
};

const port = (t.gateway.app.server.address() as AddressInfo).port;
const sockets: WebSocket[] = [];
const closes: Record<string, number> = {};
for (let index = 0; index < subscribers; index += 1) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
  sockets.push(socket);
  socket.on('close', (code) => (closes[code] = (closes[code] ?? 0) + 1));
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('open', resolve));
  const acknowledged = new Promise((resolve) => socket.once('message', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': tenant.apiKey } }));
  await acknowledged;
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { activityRecorded { id memberId activityId points content completedAt } }' } }));
}
while (t.gateway.liveFeed.subscriberCount(tenant.accountId) < subscribers) await sleep(50);
for (const socket of sockets) (socket as unknown as { _socket: { pause(): void } })._socket.pause();
measure('subscribed');

const content = { text: 'x'.repeat(contentBytes) };
for (let batch = 0; batch < batches; batch += 1) {
  const completedAt = new Date().toISOString();
  await record(
    t,
    tenant,
    Array.from({ length: batchSize }, (_, index) => ({ activityId: spin, memberId: members[index % 2], completedAt, content })),
  );
  measure(`batch ${batch + 1}`);
}
// Deliveries run after the commits: give them time to reach every subscriber.
await sleep(3000);
measure('after records');

for (const socket of sockets) socket.terminate();
while (t.gateway.liveFeed.subscriberCount(tenant.accountId) > 0) await sleep(50);
await sleep(1000);
measure('after close');

console.log(JSON.stringify({ subscribers, batches, batchSize, contentBytes, figures, clientCloseCodes: closes }, null, 2));
await t.close();
process.exit(0);
