import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { distribute } from '../../src/db/citus.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { distributionStatements } from '../../src/db/distribution.js';
import type { Progress } from '../../src/db/migrations.js';
import { migrationsFolder } from '../../src/db/paths.js';

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
export async function createTestDatabase(options: { progress?: Progress; distribute?: boolean; poolSize?: number } = {}): Promise<DatabaseHandle> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return openDatabase({ kind: 'pglite-memory' }, options);
  const name = `marquee_test_${randomBytes(6).toString('hex')}`;
  const nodes = [adminUrl, ...citusWorkers(adminUrl)];
  const admins = nodes.map((url) => postgres(url, { max: 1, onnotice: () => {} }));
  const fromTemplate = process.env.TEST_CITUS === '1' && options.distribute !== false && (await hasCitusTemplate(admins[0]));
  if (fromTemplate) await copyCitusTemplate(name, admins);
  else for (const admin of admins) await admin.unsafe(`create database ${name}`);
  const url = databaseUrl(adminUrl, name);
  if (!fromTemplate && (nodes.length > 1 || process.env.TEST_CITUS === '1')) await prepareCluster(name, nodes);
  const handle = await openDatabase({ kind: 'postgres', url, readUrl: undefined, poolSize: options.poolSize ?? 5 }, options);
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

/**
 * Under TEST_CITUS, each file's database is copied on every node from one migrated, distributed
 * database (made once per run by the global setup): making a cluster database the slow way (the
 * extension on three nodes, the migrations, the tables distributed) takes 15–60 s on a busy
 * machine, a copy a second or two. Its name carries a hash of the migrations and the procedure's
 * statements, so a template of an older schema is never used. Migrations and the procedure still
 * run on the copy (they find nothing to do): the template is an accelerator, not a source of truth.
 */
export function citusTemplateName(): string {
  const hash = createHash('sha256');
  for (const file of fs
    .readdirSync(migrationsFolder)
    .filter((entry) => entry.endsWith('.sql'))
    .sort()) {
    hash.update(file).update(fs.readFileSync(path.join(migrationsFolder, file)));
  }
  hash.update(distributionStatements().join('\n'));
  return `marquee_citus_template_${hash.digest('hex').slice(0, 12)}`;
}

/**
 * Whether the coordinator has the whole template, marked so by a comment once it is distributed (a
 * run whose global setup made none makes each database the slow way).
 */
async function hasCitusTemplate(coordinator: postgres.Sql): Promise<boolean> {
  const found = await coordinator`select 1 from pg_database d
    where d.datname = ${citusTemplateName()} and shobj_description(d.oid, 'pg_database') = ${templateComplete}`;
  return found.length > 0;
}

const templateComplete = 'marquee test template, migrated and distributed';

/** Makes the template on every node unless the coordinator has it (global setup, TEST_CITUS only). */
export async function ensureCitusTemplate(): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (process.env.TEST_CITUS !== '1' || !adminUrl) return;
  const template = citusTemplateName();
  const nodes = [adminUrl, ...citusWorkers(adminUrl)];
  const admins = nodes.map((url) => postgres(url, { max: 1, onnotice: () => {} }));
  try {
    if (await hasCitusTemplate(admins[0])) return;
    for (const admin of admins) await admin.unsafe(`drop database if exists ${template} with (force)`);
    for (const admin of admins) await admin.unsafe(`create database ${template}`);
    await prepareCluster(template, nodes);
    const handle = await openDatabase({ kind: 'postgres', url: databaseUrl(adminUrl, template), readUrl: undefined, poolSize: 2 });
    try {
      await distribute(handle.db);
    } finally {
      await handle.close();
    }
    await admins[0].unsafe(`comment on database ${template} is '${templateComplete}'`);
  } finally {
    for (const admin of admins) await admin.end();
  }
}

/**
 * `create database … template` on every node. A copy needs its template free of sessions, and
 * Citus keeps a maintenance daemon connected to every database with the extension: it is ended
 * first (it starts again when a session next opens the database), and the copy retried while
 * another file's copy races it.
 */
async function copyCitusTemplate(name: string, admins: postgres.Sql[]): Promise<void> {
  const template = citusTemplateName();
  for (const admin of admins) {
    for (let attempt = 1; ; attempt += 1) {
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${template} and pid <> pg_backend_pid()`;
      try {
        await admin.unsafe(`create database ${name} template ${template}`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  }
  // Tables a test makes get few shards, as the template's did.
  await admins[0].unsafe(`alter database ${name} set citus.shard_count = 4`);
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
