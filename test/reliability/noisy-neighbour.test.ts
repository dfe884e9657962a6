import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { runFlood, seedFlood, type FloodTenants } from '../../bench/flood.js';
import { createTestDatabase } from '../support/database.js';
import { testSecretKey } from '../support/gateway.js';
import { bundleGateway, startGatewayProcess } from '../support/gateway-process.js';
import { temporaryDirectory } from '../support/leftovers.js';
import { freePort } from '../support/pg-cluster.js';

/**
 * One basic key sends 600 pages of 150 members with their extended data at once (issue 56, item
 * 3): each priced under the heavy threshold, they all ran at once and took the gateway from 239 MB
 * to 1.9 GB while another tenant waited 50 s. The gateway runs as its own process (its resident
 * memory is what is measured) with the default settings and the image's heap ceiling
 * (src/heap-ceiling.ts: without it, V8 alone took the growth anywhere from 230 to 490 MB), on
 * PGlite or on PostgreSQL (TEST_DATABASE_URL). How long the other tenant waits is the benchmark's
 * to measure (bench/noisy-neighbour.ts); here it must be answered, every time, while the flood runs.
 */
let child: ChildProcess | undefined;
let database: DatabaseHandle | undefined;
let tenants: FloodTenants;
let port: number;

beforeAll(async () => {
  const env: Record<string, string> = { USAGE_FLUSH_SECONDS: '3600' };
  if (process.env.TEST_DATABASE_URL) {
    database = await createTestDatabase();
    tenants = await seedFlood(database.db, { secretKey: testSecretKey });
    env.DATABASE_URL = database.url!;
  } else {
    const dataDir = temporaryDirectory('noisy-neighbour');
    const seeded = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
    try {
      tenants = await seedFlood(seeded.db, { secretKey: testSecretKey });
    } finally {
      await seeded.close();
    }
    Object.assign(env, { DATA_DIR: dataDir, DATABASE_URL: '' });
  }
  port = await freePort();
  child = await startGatewayProcess(await bundleGateway('noisy-neighbour'), port, env);
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
  }
  await database?.close();
});

describe('one key flooding pages priced under the heavy threshold', () => {
  it('leaves the gateway under +300 MB, refuses past its queue, and answers another tenant throughout', async () => {
    const result = await runFlood({ port, pid: child!.pid!, tenants, floods: 600 });
    // Shown with the failure: what the flood did.
    const summary = JSON.stringify(result);
    expect(result.rss.growthMb, summary).toBeLessThan(300);
    // None fail otherwise than by a refusal of the key's bounded queue (429).
    expect(
      Object.keys(result.statuses).filter((status) => status !== '200' && status !== '429'),
      summary,
    ).toEqual([]);
    // On PostgreSQL the flood overflows the queue every time (230–430 refused in local runs). On
    // PGlite the gateway runs each statement on its own event loop, between its reads of the
    // arriving calls, and whether they ever outnumber the queue depends on how fast the client
    // sends: on a loaded machine all 600 were answered (memory-bounds.test.ts checks the bound itself).
    if (process.env.TEST_DATABASE_URL) expect(result.statuses['429'] ?? 0, summary).toBeGreaterThan(0);
    // Every read of the other tenant was answered while the flood ran.
    expect(result.other.failed, summary).toBe(0);
    expect(result.other.reads, summary).toBeGreaterThanOrEqual(10);
  }, 240_000);
});
