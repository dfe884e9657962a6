import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { executeRows } from '../../src/db/rows.js';
import { activityDefinitions, apiHits, members } from '../../src/db/schema/index.js';
import { createApplication } from '../../src/modules/tenancy/tenancy.service.js';
import { insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { bundleGateway, startGatewayProcess } from '../support/gateway-process.js';
import { freePort, postgresBinaries, startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { killAtEnd, temporaryDirectory } from '../support/leftovers.js';

/**
 * Faults under load, counted Jepsen-style: what the clients were promised against what was stored.
 *  - PostgreSQL killed (kill -9 of the postmaster) and restarted while REST records (sync and
 *    queued), recordActivities batches and registrations run: every acknowledged write stored, none
 *    twice (clients retry what was not acknowledged, with the same marker or email, as a client
 *    should); every answer meanwhile a clear 503 with code 20; /readyz says so; no gateway restart.
 *  - Redis killed under load: the rate limits fall back to the process and still limit; nothing fails.
 *  - SIGTERM under load: every request in flight is answered, and its usage count is flushed.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const bin = postgresBinaries();
if (!bin) console.warn('PostgreSQL fault tests skipped: no PostgreSQL server binaries (initdb, postgres, pg_ctl); set PG_BIN');

/** The bundled gateway, shared by the tests that run it as a process of its own. */
let script: string | undefined;
const gatewayScript = async () => (script ??= await bundleGateway('faults'));
afterAll(() => {
  if (script) fs.rmSync(path.dirname(script), { recursive: true, force: true });
});

describe.skipIf(!bin)('PostgreSQL killed under write load', () => {
  let cluster: PgCluster | undefined;
  let tenant: Tenant;
  let activity: number;
  let memberIds: number[];

  beforeAll(async () => {
    cluster = await startPgCluster({ bin });
    const database = await openDatabase({ kind: 'postgres', url: cluster.url(), readUrl: undefined, poolSize: 2 });
    try {
      const created = await createApplication(database.db, { accountName: 'Faults', name: 'ingest', plan: 'advanced' });
      tenant = { accountId: created.account.id, applicationId: created.application.id, apiKey: created.apiKey };
      const [definition] = await database.db.insert(activityDefinitions).values({ accountId: tenant.accountId, name: 'Faulted', type: 'Custom', points: 1, oneTime: false, tracking: {} }).returning();
      activity = definition.id;
      memberIds = await insertMembers(
        { database } as TestGateway,
        tenant,
        Array.from({ length: 20 }, () => ({})),
      );
    } finally {
      await database.close();
    }
  }, 60_000);

  afterAll(async () => {
    await cluster?.destroy();
  }, 30_000);

  it('loses no acknowledged write and stores none twice, answering 503 with code 20 while down', async () => {
    // The gateway runs as in production, in its own process with its own process handlers.
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = await startGatewayProcess(await gatewayScript(), port, { DATABASE_URL: cluster!.url() });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const statuses = new Map<string, number>();
    const unclear: string[] = [];
    const acknowledged = { sync: new Set<string>(), queued: new Set<string>(), batch: new Set<string>(), registered: new Set<string>() };
    let stop = false;
    const send = async (method: string, url: string, body?: unknown) => {
      try {
        const headers = { 'x-api-key': tenant.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
        const response = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
        const text = await response.text();
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const key = response.status === 200 ? '200' : `${response.status} ${parsed?.error?.type ?? parsed?.errors?.[0]?.extensions?.code ?? 'no body'}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (response.status !== 200 && key !== '503 DATABASE_UNAVAILABLE' && unclear.length < 5) unclear.push(`${key}: ${text.slice(0, 200)}`);
        return { status: response.status, body: parsed };
      } catch (error) {
        statuses.set('no answer', (statuses.get('no answer') ?? 0) + 1);
        if (unclear.length < 5) unclear.push(`no answer: ${(error as Error).message}`);
        return { status: 0, body: undefined };
      }
    };
    /** Sends one write until it is acknowledged (the same tag each time, as a client retries), or gives up. */
    const untilAcknowledged = async (attempt: () => Promise<boolean>) => {
      for (let n = 0; n < 200; n += 1) {
        if (await attempt()) return true;
        await sleep(50);
      }
      return false;
    };
    const member = (n: number) => String(memberIds[n % memberIds.length]);

    const restRecorder = (client: number, queued: boolean) => async () => {
      for (let seq = 0; !stop; seq += 1) {
        const tag = `${queued ? 'q' : 's'}${client}-${seq}`;
        const query = new URLSearchParams({ activityid: String(activity), id: member(seq), category: tag, marker: tag, ...(queued ? { async: '1' } : {}) });
        if (await untilAcknowledged(async () => (await send('POST', `/v1.1/activity/record?${query}`)).status === 200)) acknowledged[queued ? 'queued' : 'sync'].add(tag);
      }
    };
    const batcher = (client: number) => async () => {
      for (let seq = 0; !stop; seq += 1) {
        const tags = Array.from({ length: 10 }, (_, i) => `b${client}-${seq}-${i}`);
        const input = tags.map((tag, i) => ({ activityId: String(activity), memberId: member(seq + i), category: tag, marker: tag }));
        const ok = await untilAcknowledged(async () => {
          const { status, body } = await send('POST', '/graphql', { query: 'mutation ($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created repeated } }', variables: { input } });
          return status === 200 && body?.data?.recordActivities.created + body?.data?.recordActivities.repeated === tags.length;
        });
        if (ok) tags.forEach((tag) => acknowledged.batch.add(tag));
      }
    };
    const registrar = (client: number) => async () => {
      for (let seq = 0; !stop; seq += 1) {
        const email = `fault-${client}-${seq}@example.com`;
        const query = new URLSearchParams({ service: 'email', email, password: 'a-password-1' });
        if (await untilAcknowledged(async () => (await send('POST', `/v1.1/member/register?${query}`)).status === 200)) acknowledged.registered.add(email);
      }
    };

    const load = Promise.all([restRecorder(0, false), restRecorder(1, false), restRecorder(0, true), batcher(0), batcher(1), registrar(0), registrar(1)].map((client) => client()));
    let database: DatabaseHandle | undefined;
    try {
      await sleep(1000);
      const before = Object.values(acknowledged).reduce((n, set) => n + set.size, 0);
      await cluster!.kill();
      await sleep(300);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      await sleep(700);
      await cluster!.start();
      const restarted = performance.now();
      await sleep(1500);
      stop = true;
      await load;
      const settledMs = Math.round(performance.now() - restarted);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      // The queue's worker stores what was queued; wait for it to be empty.
      database = await openDatabase({ kind: 'postgres', url: cluster!.url(), readUrl: undefined, poolSize: 2 });
      for (let n = 0; n < 200; n += 1) {
        const [queue] = await executeRows<{ n: number }>(database.db, sql`select count(*)::int as n from activity_queue where account_id = ${tenant.accountId}`);
        if (Number(queue.n) === 0) break;
        await sleep(50);
      }
      const rows = await executeRows<{ category: string; n: number }>(database.db, sql`select category, count(*)::int as n from activity_records where account_id = ${tenant.accountId} group by category`);
      const stored = new Map(rows.map((row) => [row.category, Number(row.n)]));
      const lost = [...acknowledged.sync, ...acknowledged.queued, ...acknowledged.batch].filter((tag) => stored.get(tag) !== 1);
      const twice = [...stored].filter(([, n]) => n > 1);
      const emails = await executeRows<{ email: string; n: number }>(
        database.db,
        sql`select email, count(*)::int as n from members where account_id = ${tenant.accountId} and email like 'fault-%' group by email`,
      );
      const registeredTwice = emails.filter((row) => Number(row.n) > 1);
      const registrationsLost = [...acknowledged.registered].filter((email) => !emails.some((row) => row.email === email));
      console.info(
        `postgres kill -9 under load: acknowledged ${acknowledged.sync.size} sync, ${acknowledged.queued.size} queued, ${acknowledged.batch.size} batched records and ` +
          `${acknowledged.registered.size} registrations (${before} writes before the kill); answers ${JSON.stringify(Object.fromEntries(statuses))}; ` +
          `lost ${lost.length + registrationsLost.length}, stored twice ${twice.length + registeredTwice.length}; every client done ${settledMs} ms after the restart`,
      );
      expect(unclear).toEqual([]);
      expect(statuses.get('503 DATABASE_UNAVAILABLE') ?? 0).toBeGreaterThan(0);
      expect(Object.values(acknowledged).every((set) => set.size > 0)).toBe(true);
      expect(lost).toEqual([]);
      expect(twice).toEqual([]);
      expect(registrationsLost).toEqual([]);
      expect(registeredTwice).toEqual([]);
      // The same process answered throughout: it never exited.
      expect(child.exitCode).toBeNull();
    } finally {
      stop = true;
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      child.kill('SIGKILL');
      await database?.close();
    }
  }, 90_000);
});

describe('Redis killed under load', () => {
  let redis: ChildProcess | undefined;
  let t: TestGateway | undefined;
  const redisBin = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => fs.existsSync(file));

  afterAll(async () => {
    redis?.kill('SIGKILL');
    await t?.close();
  });

  it.skipIf(!redisBin)(
    'keeps answering, and keeps limiting, on the in-process fallback',
    async () => {
      // A Redis of this test's own (never the shared one), on a free port, without persistence.
      const port = await freePort();
      redis = killAtEnd(spawn(redisBin!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const open = await new Promise<boolean>((resolve) => {
          const socket = net.connect(port, '127.0.0.1');
          socket.once('connect', () => (socket.end(), resolve(true)));
          socket.once('error', () => resolve(false));
        });
        if (open) break;
        await sleep(50);
      }
      const limit = 150;
      t = await startTestGateway({ REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: String(limit) });
      const tenant = await t.tenant('advanced');
      const statuses: number[] = [];
      const bodies: string[] = [];
      const call = async () => {
        const response = await t!.request({ url: '/v1.1/app/info', headers: { 'x-api-key': tenant.apiKey } });
        statuses.push(response.statusCode);
        if (response.statusCode !== 200 && response.json().error?.code !== 6) bodies.push(response.body);
      };
      // Load through Redis, the kill in the middle of it, then more than a minute's budget on the fallback.
      const load = Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let i = 0; i < 25; i += 1) await call();
        }),
      );
      await sleep(50);
      redis.kill('SIGKILL');
      await load;
      const afterKill = statuses.length;
      for (let i = 0; i < limit + 20; i += 1) await call();
      const fallback = statuses.slice(afterKill);
      console.info(
        `redis killed under load: ${statuses.length} calls, ${statuses.filter((s) => s === 200).length} answered 200, ${statuses.filter((s) => s === 429).length} limited (429), other ${bodies.length}`,
      );
      expect(bodies).toEqual([]);
      expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
      // The fallback still limits: past the minute's budget, calls are refused.
      expect(fallback.slice(-10).every((status) => status === 429)).toBe(true);
    },
    60_000,
  );
});

describe('SIGTERM under load', () => {
  let dataDir: string;
  let tenant: Tenant;

  beforeAll(async () => {
    dataDir = temporaryDirectory('sigterm');
    const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
    try {
      const created = await createApplication(database.db, { accountName: 'Shutdown', name: 'drained', plan: 'advanced' });
      tenant = { accountId: created.account.id, applicationId: created.application.id, apiKey: created.apiKey };
    } finally {
      await database.close();
    }
  }, 60_000);

  it('answers every request in flight and flushes their usage before it exits', async () => {
    const port = await freePort();
    // The usage would only be flushed hourly: whatever is in the table was flushed by the shutdown.
    const child = await startGatewayProcess(await gatewayScript(), port, { DATA_DIR: dataDir, DATABASE_URL: '', USAGE_FLUSH_SECONDS: '3600' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const answered: number[] = [];
    /** Requests sent before the signal that reached the gateway after its close began: not started, answered 503. */
    const refused: unknown[] = [];
    /**
     * Requests sent on a kept-alive connection in the instant the gateway closed it as idle (the
     * close ends idle connections at once): the request and the close cross, and the connection is
     * reset before the gateway reads the request. Any HTTP server that closes an idle connection has
     * this race, and clients send such a request again; that it was not started is checked below,
     * by the members stored.
     */
    const reset: string[] = [];
    const failed: string[] = [];
    let inFlight = 0;
    let signalled = false;
    const clients = 6;
    const client = async (index: number) => {
      for (let seq = 0; !signalled; seq += 1) {
        inFlight += 1;
        try {
          const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
            body: JSON.stringify({
              query: 'mutation ($input: RegisterMemberInput!) { registerMember(input: $input) { member { id } } }',
              variables: { input: { credentials: { network: 'email', email: `drain-${index}-${seq}@example.com`, password: 'a-password-1' } } },
            }),
          });
          const text = await response.text();
          if (response.status === 503) refused.push(JSON.parse(text));
          else answered.push(response.status);
        } catch (error) {
          const cause = (error as Error & { cause?: Error & { code?: string } }).cause;
          const message = `${(error as Error).message} ${String(cause ?? '')}`;
          if (signalled && cause?.code === 'ECONNRESET') reset.push(message);
          else failed.push(message);
        } finally {
          inFlight -= 1;
        }
      }
    };
    const load = Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
    while (answered.length < 20) await sleep(10);
    // Registrations hash a password each: several are in flight at the signal.
    while (inFlight === 0) await sleep(1);
    const inFlightAtSignal = inFlight;
    signalled = true;
    child.kill('SIGTERM');
    await load;
    expect(await exited).toBe(0);

    const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
    try {
      const [hits] = await database.db
        .select({ n: sql<number>`coalesce(sum(${apiHits.hits}), 0)::int` })
        .from(apiHits)
        .where(and(eq(apiHits.accountId, tenant.accountId), eq(apiHits.applicationId, tenant.applicationId)));
      const [registered] = await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(members)
        .where(eq(members.accountId, tenant.accountId));
      console.info(
        `SIGTERM under load: ${inFlightAtSignal} requests in flight at the signal; ${answered.length} answered, ${refused.length} arrived after the close began (503), ${reset.length} reset on an idle connection, ${failed.length} failed; ${Number(hits.n)} hits flushed; ${Number(registered.n)} members stored`,
      );
      expect(failed).toEqual([]);
      // At most one per client: each stops after its request that crosses the signal.
      expect(reset.length).toBeLessThanOrEqual(clients);
      for (const body of refused) expect(body).toMatchObject({ errors: [{ extensions: { code: 'SHUTTING_DOWN', aeCode: 20 } }] });
      expect(answered.every((status) => status === 200)).toBe(true);
      expect(Number(hits.n)).toBe(answered.length);
      expect(Number(registered.n)).toBe(answered.length);
    } finally {
      await database.close();
    }
  }, 90_000);
});
