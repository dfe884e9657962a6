import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import type { Progress } from '../../src/db/migrations.js';

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or a new PostgreSQL
 * database next to TEST_DATABASE_URL (dropped again by `close`), so files never see each other's rows.
 */
export async function createTestDatabase(options: { progress?: Progress } = {}): Promise<DatabaseHandle> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return openDatabase({ kind: 'pglite-memory' }, options);
  const name = `marquee_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ kind: 'postgres', url: url.toString(), readUrl: undefined, poolSize: 5 }, options);
  return {
    ...handle,
    async close() {
      await handle.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
