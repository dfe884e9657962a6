import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseOptions } from '../../src/db/client.js';
import { executeRows } from '../../src/db/rows.js';
import { activityDefinitions } from '../../src/db/schema/index.js';
import { ActivityQueue } from '../../src/modules/activities/activities.queue.js';
import { createApplication } from '../../src/modules/tenancy/tenancy.service.js';
import { insertMembers } from '../support/activity-data.js';
import type { Tenant, TestGateway } from '../support/gateway.js';
import { bundleGateway, startGatewayProcess } from '../support/gateway-process.js';
import { freePort } from '../support/pg-cluster.js';
import { temporaryDirectory } from '../support/leftovers.js';
import { rollupAgainstRecords } from '../support/kept-differences.js';

/**
 * Nothing acknowledged is lost, nothing is stored twice: the gateway runs as a child process (on a
 * fresh PostgreSQL database next to TEST_DATABASE_URL, or on an embedded PGlite DATA_DIR), takes
 * `recordActivities` batches, single REST records and queued (`async=1`) REST records at once, and
 * is killed with SIGKILL while batches are in flight. Then, on the same database: every
 * acknowledged record is stored exactly once, a batch without an answer is stored whole or not at
 * all, the daily rollup equals the records, and the queue, worked through, leaves nothing behind.
 * Every record carries a unique tag in `category`; half of them also a marker.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const batchSize = 100;

interface Target {
  /** The child's database settings. */
  env: Record<string, string>;
  options: DatabaseOptions;
  /** Only one process may open an embedded database: the test opens it while the child is down. */
  exclusive: boolean;
  drop(): Promise<void>;
}

async function target(): Promise<Target> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dataDir = temporaryDirectory('durability');
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      options: { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
      exclusive: true,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `marquee_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    options: { kind: 'postgres', url: url.toString(), readUrl: undefined, poolSize: 5 },
    exclusive: false,
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

describe('recording through a kill -9 of the gateway', () => {
  let place: Target;
  let script: string;
  let tenant: Tenant;
  let activity: number;
  let memberIds: number[];

  beforeAll(async () => {
    [place, script] = await Promise.all([target(), bundleGateway('durability')]);
    const database = await openDatabase(place.options);
    try {
      const created = await createApplication(database.db, { accountName: 'Durability', name: 'ingest', plan: 'advanced' });
      tenant = { accountId: created.account.id, applicationId: created.application.id, apiKey: created.apiKey };
      const [definition] = await database.db.insert(activityDefinitions).values({ accountId: tenant.accountId, name: 'Listen', type: 'Listened', points: 2, oneTime: false, tracking: {} }).returning();
      activity = definition.id;
      memberIds = await insertMembers(
        { database } as TestGateway,
        tenant,
        Array.from({ length: 50 }, () => ({})),
      );
    } finally {
      await database.close();
    }
  }, 120_000);

  afterAll(async () => {
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
    await place?.drop();
  });

  it('keeps every acknowledged record exactly once, and an unanswered batch whole or not at all', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const gateway = await startGatewayProcess(script, port, place.env);
    const exited = new Promise<void>((resolve) => gateway.once('exit', () => resolve()));

    /** Tag → whether the gateway acknowledged it; batches by their tags. */
    const acknowledged = new Set<string>();
    const sent = new Set<string>();
    const unansweredBatches: string[][] = [];
    const counts = { batches: 0, singles: 0, queued: 0 };
    let inFlightBatches = 0;
    let stop = false;
    const member = (n: number) => String(memberIds[n % memberIds.length]);

    const batchClient = async (client: number) => {
      for (let seq = 0; !stop; seq += 1) {
        const tags = Array.from({ length: batchSize }, (_, i) => `b${client}-${seq}-${i}`);
        const input = tags.map((tag, i) => ({ activityId: String(activity), memberId: member(seq * batchSize + i), category: tag, ...(seq % 2 ? { marker: tag } : {}) }));
        tags.forEach((tag) => sent.add(tag));
        inFlightBatches += 1;
        try {
          const response = await fetch(`${base}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
            body: JSON.stringify({ query: 'mutation($input: [RecordActivityInput!]!) { recordActivities(input: $input) { created } }', variables: { input } }),
          });
          const body = (await response.json()) as { data?: { recordActivities?: { created: number } } };
          if (response.status !== 200 || body.data?.recordActivities?.created !== batchSize) throw new Error(JSON.stringify(body));
          tags.forEach((tag) => acknowledged.add(tag));
          counts.batches += 1;
        } catch (error) {
          unansweredBatches.push(tags);
          if (!stop) throw error;
        } finally {
          inFlightBatches -= 1;
        }
      }
    };

    const restClient = async (client: number, queued: boolean) => {
      for (let seq = 0; !stop; seq += 1) {
        const tag = `${queued ? 'q' : 'r'}${client}-${seq}`;
        const query = new URLSearchParams({
          apikey: tenant.apiKey,
          activityid: String(activity),
          id: member(seq + client),
          category: tag,
          ...(seq % 2 ? { marker: tag } : {}),
          ...(queued ? { async: '1' } : {}),
        });
        sent.add(tag);
        try {
          const response = await fetch(`${base}/v1.1/activity/record?${query}`, { method: 'POST' });
          const body = (await response.json()) as { Result?: boolean; Queued?: boolean };
          if (response.status !== 200 || body.Result !== true || body.Queued !== queued) throw new Error(JSON.stringify(body));
          acknowledged.add(tag);
          counts[queued ? 'queued' : 'singles'] += 1;
        } catch (error) {
          if (!stop) throw error;
        }
      }
    };

    const load = Promise.all([...[0, 1, 2].map((client) => batchClient(client)), ...[0, 1, 2, 3, 4, 5].map((client) => restClient(client, false)), ...[0, 1].map((client) => restClient(client, true))]);
    const failed = load.then(
      () => ({ error: new Error('the load ended before the kill') }),
      (error: unknown) => ({ error }),
    );

    // Enough of each kind acknowledged, then SIGKILL at a moment when batches are on their way. A
    // loaded machine only makes this slower: the wait gives up when the gateway stops answering
    // altogether (nothing acknowledged for a minute), not after a fixed time.
    let progress = JSON.stringify(counts);
    let lastProgress = Date.now();
    while (counts.batches < 5 || counts.singles < 50 || counts.queued < 20 || inFlightBatches === 0) {
      const early = await Promise.race([failed, sleep(1)]);
      if (early) throw early.error;
      if (JSON.stringify(counts) !== progress) [progress, lastProgress] = [JSON.stringify(counts), Date.now()];
      if (Date.now() - lastProgress > 60_000) throw new Error(`the gateway stopped acknowledging records: ${progress}`);
    }
    const inFlightAtKill = inFlightBatches;
    stop = true;
    gateway.kill('SIGKILL');
    await exited;
    await load.catch(() => {});
    expect(inFlightAtKill).toBeGreaterThan(0);

    const database = await openDatabase(place.options);
    try {
      // A queued record is acknowledged once it is in the queue; the queue's worker stores it later.
      await new ActivityQueue(database.db, pino({ level: 'silent' })).drain();
      const rows = await executeRows<{ category: string; n: number }>(database.db, sql`select category, count(*)::int as n from activity_records where account_id = ${tenant.accountId} group by category`);
      const stored = new Map(rows.map((row) => [row.category, Number(row.n)]));

      expect([...stored.entries()].filter(([, n]) => n !== 1)).toEqual([]);
      expect([...stored.keys()].filter((tag) => !sent.has(tag))).toEqual([]);
      expect([...acknowledged].filter((tag) => !stored.has(tag))).toEqual([]);
      for (const tags of unansweredBatches) {
        const present = tags.filter((tag) => stored.has(tag)).length;
        expect([0, tags.length]).toContain(present);
      }

      const queue = await executeRows<{ n: number }>(database.db, sql`select count(*)::int as n from activity_queue where account_id = ${tenant.accountId}`);
      expect(Number(queue[0].n)).toBe(0);
      // The rollup holds exactly the stored records: no transaction was left half-written.
      expect((await rollupAgainstRecords(database.db, tenant.accountId)).differences).toBe(0);

      const wholeUnanswered = unansweredBatches.filter((tags) => stored.has(tags[0])).length;
      console.info(
        `kill -9 (${place.exclusive ? 'PGlite' : 'PostgreSQL'}): acknowledged ${counts.batches} batches of ${batchSize}, ${counts.singles} single and ${counts.queued} queued records; ` +
          `${unansweredBatches.length} batches unanswered (${inFlightAtKill} in flight at the kill), ${wholeUnanswered} of them stored whole; ${stored.size} records stored`,
      );
    } finally {
      await database.close();
    }
    // A ceiling for a stuck run only; the wait above ends on the gateway's progress.
  }, 600_000);
});
