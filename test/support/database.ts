import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { distribute } from '../../src/db/citus.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import type { Progress } from '../../src/db/migrations.js';

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or a new PostgreSQL
 * database next to TEST_DATABASE_URL (dropped again by `close`), so files never see each other's rows.
 *
 * With TEST_CITUS=1, TEST_DATABASE_URL names a Citus coordinator and TEST_CITUS_WORKERS its workers
 * (`host:port,host:port`, reached with the coordinator's user and password): the database is made
 * on every node with the extension, the workers are registered, and after the migrations the
 * tables are distributed as docs/scaling.md says (`db distribute`), so every test runs on shards;
 * `distribute: false` leaves them as the migrations made them.
 */
export async function createTestDatabase(options: { progress?: Progress; distribute?: boolean } = {}): Promise<DatabaseHandle> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return openDatabase({ kind: 'pglite-memory' }, options);
  const name = `marquee_test_${randomBytes(6).toString('hex')}`;
  const nodes = [adminUrl, ...citusWorkers(adminUrl)];
  const admins = nodes.map((url) => postgres(url, { max: 1, onnotice: () => {} }));
  for (const admin of admins) await admin.unsafe(`create database ${name}`);
  const url = databaseUrl(adminUrl, name);
  if (nodes.length > 1 || process.env.TEST_CITUS === '1') await prepareCluster(name, nodes);
  const handle = await openDatabase({ kind: 'postgres', url, readUrl: undefined, poolSize: 5 }, options);
  if (process.env.TEST_CITUS === '1' && options.distribute !== false) await distribute(handle.db);
  return {
    ...handle,
    async close() {
      await handle.close();
      for (const admin of admins) {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    },
  };
}

/** The workers' admin URLs under TEST_CITUS: the coordinator's, with each worker's host and port. */
export function citusWorkers(adminUrl: string): string[] {
  if (process.env.TEST_CITUS !== '1') return [];
  const workers = (process.env.TEST_CITUS_WORKERS ?? '').split(',').filter(Boolean);
  if (!workers.length) throw new Error('TEST_CITUS=1 needs TEST_CITUS_WORKERS (host:port,host:port)');
  return workers.map((worker) => {
    const url = new URL(adminUrl);
    url.host = worker;
    return url.toString();
  });
}

export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The extension on every node, the coordinator and workers registered in the new database. */
async function prepareCluster(name: string, [coordinator, ...workers]: string[]): Promise<void> {
  for (const node of [...workers, coordinator]) {
    const client = postgres(databaseUrl(node, name), { max: 1, onnotice: () => {} });
    try {
      await client`create extension citus`;
      if (node !== coordinator) continue;
      const { hostname, port } = new URL(coordinator);
      await client`select citus_set_coordinator_host(${hostname}, ${Number(port || 5432)})`;
      for (const worker of workers) {
        const address = new URL(worker);
        await client`select citus_add_node(${address.hostname}, ${Number(address.port || 5432)})`;
      }
      // Few shards: a test's rows are few, and each shard is a table to create on a worker.
      await client.unsafe(`alter database ${name} set citus.shard_count = 4`);
    } finally {
      await client.end();
    }
  }
}
