import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { isDriverTypeFetchFault } from '../../src/db/errors.js';
import { activityQueue, activityRecords } from '../../src/db/schema/index.js';
import { createActivity, insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { postgresBinaries, startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { killAtEnd } from '../support/leftovers.js';

const bin = postgresBinaries();
if (!bin) console.warn('database-down tests skipped: no PostgreSQL server binaries (initdb, postgres, pg_ctl); set PG_BIN');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries `attempt` until it returns true; resolves with the milliseconds it took. */
async function within(ms: number, what: string, attempt: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await attempt().catch(() => false))) {
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(25);
  }
  return Math.round(performance.now() - started);
}

describe.skipIf(!bin)('the gateway while PostgreSQL is down', () => {
  let cluster: PgCluster | undefined;
  let database: DatabaseHandle | undefined;
  let t: TestGateway | undefined;
  let tenant: Tenant;
  let activity: number;
  let member: number;
  const unhandled: unknown[] = [];
  // The driver's own type fetch on a connection lost while the pool reconnects is a known fault of
  // postgres.js (connection-startup.test.ts); any other unhandled rejection would be the gateway's.
  const onUnhandled = (reason: unknown) => {
    if (!isDriverTypeFetchFault(reason)) unhandled.push(reason);
  };

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    cluster = await startPgCluster({ bin });
    database = await openDatabase({ kind: 'postgres', url: cluster.url(), readUrl: undefined, poolSize: 5 });
    // The load below makes thousands of calls with one key: the per-key rate limit is not under test.
    t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '1000000' }, database);
    tenant = await t.tenant('advanced');
    activity = await createActivity(t, tenant, { name: 'Queued', type: 'Custom', points: 3 });
    [member] = await insertMembers(t, tenant, [{}]);
  }, 45_000);

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    // The gateway and pool close cleanly once the server is back; if a step failed with it down,
    // closing may fail, and the cluster is removed regardless.
    if (cluster && !cluster.pid()) await cluster.start().catch(() => {});
    await t?.close().catch(() => {});
    await database?.close().catch(() => {});
    await cluster?.destroy();
  }, 30_000);

  const storedRecords = async () =>
    (
      await database!.db
        .select({ n: sql<number>`count(*)::int` })
        .from(activityRecords)
        .where(and(eq(activityRecords.accountId, tenant.accountId), eq(activityRecords.memberId, member)))
    )[0].n;

  it('keeps running through a kill -9 of the server, answers 503 meanwhile, and recovers without a restart', async () => {
    // A record queued before the outage: the worker is held back so the row is still queued when the server dies.
    await t!.gateway.activityQueue.stop();
    const queued = await t!.rest(tenant, 'POST', '/activity/record', { activityid: activity, id: member, async: 1, marker: 'before-outage' });
    expect(queued.json).toMatchObject({ Queued: true });
    expect(await storedRecords()).toBe(0);

    await cluster!.kill();
    t!.gateway.activityQueue.start();
    // The worker ticks every second against a dead server; nothing may reject unhandled.
    await sleep(2200);
    expect(unhandled).toEqual([]);

    const down = await t!.rest(tenant, 'GET', '/activities');
    expect(down.status, down.body).toBe(503);
    expect(down.json).toEqual({ error: { code: 20, type: 'DATABASE_UNAVAILABLE', message: expect.any(String), param: null, requestId: expect.any(String) } });

    const graphql = await t!.graphql(tenant.apiKey, '{ activities { id name } }');
    expect(graphql.status).toBe(503);
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'DATABASE_UNAVAILABLE', aeCode: 20 });

    const readyStarted = performance.now();
    const ready = await t!.request({ method: 'GET', url: '/readyz' });
    const readyMs = Math.round(performance.now() - readyStarted);
    expect(ready.statusCode).toBe(503);
    expect(readyMs).toBeLessThan(2500);

    await cluster!.start();
    const recoveredMs = await within(3000, 'first success after the restart', async () => (await t!.rest(tenant, 'GET', '/activities')).status === 200);
    const graphqlBack = await t!.graphql(tenant.apiKey, '{ activities { id name } }');
    expect(graphqlBack.status).toBe(200);
    expect((await t!.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const storedMs = await within(3000, 'the queued record stored', async () => (await storedRecords()) === 1);
    expect(
      (
        await database!.db
          .select({ n: sql<number>`count(*)::int` })
          .from(activityQueue)
          .where(eq(activityQueue.accountId, tenant.accountId))
      )[0].n,
    ).toBe(0);
    console.info(`database down: /readyz answered 503 in ${readyMs} ms; first success ${recoveredMs} ms after the server accepted connections; queued record stored after ${storedMs} ms more`);
    expect(recoveredMs).toBeLessThan(1500);
    expect(unhandled).toEqual([]);
  }, 30_000);

  it('survives a kill under concurrent load: every answer is 200 or 503 with code 20, then 200 again', async () => {
    const statuses = new Map<number, number>();
    const bodies: unknown[] = [];
    let stop = false;
    let lastSuccessAt = 0;
    const paths = ['/activities', '/app/info', '/brands'];
    const worker = async (index: number) => {
      for (let i = 0; !stop && i < 5000; i += 1) {
        const path = paths[(index + i) % paths.length];
        const response = await t!.rest(tenant, 'GET', path);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 200) lastSuccessAt = performance.now();
        else if (bodies.length < 5 && (response.status !== 503 || response.json.error?.code !== 20)) bodies.push(response.json);
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, index) => worker(index)));
    try {
      await sleep(300);
      await cluster!.kill();
      await sleep(1000);
      await cluster!.start();
      const restartedAt = performance.now();
      await within(3000, 'successes under load after the restart', async () => lastSuccessAt > restartedAt);
      await sleep(300);
    } finally {
      stop = true;
      await Promise.race([load, sleep(5000)]);
    }
    expect(bodies).toEqual([]);
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    expect(unhandled).toEqual([]);
    expect(process.exitCode ?? 0).toBe(0);
  }, 30_000);

  it("survives postgres.js's closed-socket write under transactional load, in a process with the gateway's handlers", async () => {
    // The gateway under test here is the child's. The one in this process would only race the kill
    // with its background passes, and without the gateway's process handlers (the child has them)
    // postgres.js's closed-socket write would be an uncaught exception of the test runner.
    await t?.close();
    t = undefined;
    await database?.close();
    database = undefined;
    const child = killAtEnd(spawn(process.execPath, ['--import', 'tsx', path.join(path.dirname(fileURLToPath(import.meta.url)), 'pool-child.ts'), cluster!.url()], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const next = async () => {
      const result = await Promise.race([lines.next(), sleep(20_000).then(() => ({ done: true, value: undefined }))]);
      if (result.done || !result.value) throw new Error('the child process said nothing');
      return JSON.parse(result.value);
    };
    try {
      expect(await next()).toEqual({ loading: true });
      await sleep(300);
      await cluster!.kill();
      await sleep(1000);
      await cluster!.start();
      child.stdin!.write('check\n');
      const report = await next();
      console.info(`transactional load in a child: ${report.faults} closed-socket writes survived; transactions succeeded ${report.recoveredMs} ms after the restart`);
      expect(report).toMatchObject({ recovered: true, rejections: 0 });
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 40_000);
});
