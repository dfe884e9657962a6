import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { Logger } from 'drizzle-orm/logger';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { Config } from '../config.js';
import { countRoundTrip } from './roundtrips.js';
import { migrationsFolder } from './paths.js';
import { copyTemplateInto, readTemplate } from './pglite-template.js';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
/** The common face of both drivers: same query builder, same schema, same SQL. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** What a `db.transaction` callback receives; services accept either. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  kind: 'pglite' | 'postgres';
  db: Database;
  /** Reads that may lag slightly (statistics) go here: the replica when one is configured. */
  read: Database;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const roundTripLogger: Logger = { logQuery: () => countRoundTrip() };

export type DatabaseOptions = Config['database'] | { kind: 'pglite-memory' };

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.kind === 'postgres') return openPostgres(options.url, options.readUrl, options.poolSize);
  return openPglite(options.kind === 'pglite' ? options.dataDir : undefined);
}

async function openPglite(dataDir: string | undefined): Promise<DatabaseHandle> {
  let isNew = !dataDir || !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (dataDir && isNew && !fs.existsSync(dataDir) && copyTemplateInto(dataDir)) isNew = false;
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const template = isNew ? readTemplate() : undefined;
  const client = await PGlite.create(dataDir, template ? { loadDataDir: template } : {});
  const db = drizzlePglite(client, { schema, logger: roundTripLogger, casing: 'snake_case' }) as unknown as Database;
  await migratePglite(db as never, { migrationsFolder });
  return {
    kind: 'pglite',
    db,
    read: db,
    ping: async () => {
      await client.query('select 1');
    },
    close: async () => {
      await client.close();
    },
  };
}

/**
 * Several gateways may start at once against one database: a session lock lets one apply the
 * migrations while the others wait, then find nothing left to do. A single-connection client keeps
 * the lock and the migration on the same session.
 */
async function migrateUnderLock(url: string): Promise<void> {
  const migrator = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrator`select pg_advisory_lock(7305861)`;
    await migratePostgres(drizzlePostgres(migrator), { migrationsFolder });
    await migrator`select pg_advisory_unlock(7305861)`;
  } finally {
    await migrator.end({ timeout: 5 });
  }
}

async function openPostgres(url: string, readUrl: string | undefined, poolSize: number): Promise<DatabaseHandle> {
  const client = postgres(url, { max: poolSize, onnotice: () => {} });
  const db = drizzlePostgres(client, { schema, logger: roundTripLogger, casing: 'snake_case' }) as unknown as Database;
  await migrateUnderLock(url);
  const readClient = readUrl ? postgres(readUrl, { max: poolSize, onnotice: () => {} }) : undefined;
  const read = readClient
    ? (drizzlePostgres(readClient, { schema, logger: roundTripLogger, casing: 'snake_case' }) as unknown as Database)
    : db;
  return {
    kind: 'postgres',
    db,
    read,
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: async () => {
      await Promise.all([client.end({ timeout: 5 }), readClient?.end({ timeout: 5 })]);
    },
  };
}
