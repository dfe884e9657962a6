import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, lockTimeoutMs, type MigrationOptions } from '../../src/db/migrations.js';
import { temporaryDirectory } from '../support/leftovers.js';
import { holdInTransaction } from '../support/lock-waits.js';

/**
 * The runner on folders of its own, on the test database (PGlite, or a new PostgreSQL database next
 * to TEST_DATABASE_URL): a concurrent index outside a transaction, an index a failed build left
 * INVALID built again, and on PostgreSQL a migration that gives way to another session's lock and
 * is tried again. Each migration is recorded once, as Drizzle records it.
 */

const adminUrl = process.env.TEST_DATABASE_URL;

/** One session, as the gateway's migrator has: PGlite, or a single connection to a database of its own. */
interface Session {
  db: unknown;
  query(text: string): Promise<Record<string, unknown>[]>;
  /** Another connection to the same database (PostgreSQL only). */
  other?: postgres.Sql;
  close(): Promise<void>;
}

async function openSession(): Promise<Session> {
  if (!adminUrl) {
    const client = new PGlite();
    return { db: drizzlePglite(client), query: async (text) => (await client.query<Record<string, unknown>>(text)).rows, close: () => client.close() };
  }
  const name = `marquee_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const other = postgres(url.toString(), { max: 1, onnotice: () => {} });
  return {
    db: drizzlePostgres(client),
    query: (text) => client.unsafe(text),
    other,
    async close() {
      await Promise.all([client.end(), other.end()]);
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** The time the journal gives the nth migration, which Drizzle records as created_at. */
const when = (index: number) => 1_800_000_000_000 + index * 1000;

/** A migrations folder as drizzle-kit writes one: the files and the journal naming them in order. */
function migrationsFolder(migrations: [tag: string, statements: string[]][]): string {
  const folder = temporaryDirectory('migrations');
  fs.mkdirSync(path.join(folder, 'meta'));
  const entries = migrations.map(([tag], index) => ({ idx: index, version: '7', when: when(index), tag, breakpoints: true }));
  fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify({ version: '7', dialect: 'postgresql', entries }));
  for (const [tag, statements] of migrations) fs.writeFileSync(path.join(folder, `${tag}.sql`), statements.join('--> statement-breakpoint\n'));
  return folder;
}

/** What Drizzle records of each applied migration: the file's SHA-256 and the journal's time. */
function expectedRecords(folder: string, tags: string[]): { hash: string; created_at: number }[] {
  return tags.map((tag, index) => ({
    hash: createHash('sha256')
      .update(fs.readFileSync(path.join(folder, `${tag}.sql`), 'utf8'))
      .digest('hex'),
    created_at: when(index),
  }));
}

async function records(session: Session): Promise<{ hash: string; created_at: number }[]> {
  const rows = await session.query('select hash, created_at from drizzle.__drizzle_migrations order by id');
  return rows.map((row) => ({ hash: String(row.hash), created_at: Number(row.created_at) }));
}

async function indexValid(session: Session, index: string): Promise<boolean | undefined> {
  const [row] = await session.query(`select indisvalid as valid from pg_index where indexrelid = to_regclass('${index}')`);
  return row ? Boolean(row.valid) : undefined;
}

const things: [string, string[]] = [
  '0000_things',
  ['CREATE TABLE "things" ("id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY, "name" text NOT NULL)', `INSERT INTO "things" ("name") SELECT 'thing ' || g FROM generate_series(1, 500) g`],
];

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

async function apply(folder: string, options: Omit<MigrationOptions, 'migrationsFolder'> = {}): Promise<string[]> {
  const messages: string[] = [];
  await applyMigrations(session!.db, (message) => void messages.push(message), { ...options, migrationsFolder: folder });
  return messages;
}

describe('a migration with a concurrent index', () => {
  it('runs outside a transaction, is recorded once as Drizzle records it, and leaves no lock timeout behind', async () => {
    session = await openSession();
    const folder = migrationsFolder([things, ['0001_things_name_index', ['CREATE INDEX CONCURRENTLY IF NOT EXISTS "things_name_idx" ON "things" USING btree ("name")']]]);

    const messages = await apply(folder);
    expect(messages[0]).toBe('applying 2 migrations');
    expect(messages[2]).toMatch(/^migration 2\/2 0001_things_name_index applied in \d+ ms$/);
    expect(await indexValid(session, 'things_name_idx')).toBe(true);
    expect(await records(session)).toEqual(expectedRecords(folder, ['0000_things', '0001_things_name_index']));
    expect((await session.query('show lock_timeout'))[0].lock_timeout).toBe('0');

    expect(await apply(folder)).toEqual([]);
    expect(await records(session)).toHaveLength(2);
  });

  it('drops an index a failed build left INVALID and builds it again on the next start', async () => {
    session = await openSession();
    const uniqueNames: [string, string[]] = ['0001_things_name_key', ['CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "things_name_key" ON "things" USING btree ("name")']];
    const folder = migrationsFolder([things, uniqueNames]);
    await apply(migrationsFolder([things]));
    // A duplicate name fails the build after the index was made: it stays, INVALID.
    await session.query(`insert into "things" ("name") values ('thing 1')`);

    await expect(apply(folder)).rejects.toThrow(/^migration 0001_things_name_key failed: could not create unique index "things_name_key"; Failed query: CREATE UNIQUE INDEX/);
    expect(await indexValid(session, 'things_name_key')).toBe(false);
    expect(await records(session)).toHaveLength(1);

    await session.query(`delete from "things" where "id" = (select max("id") from "things")`);
    const messages = await apply(folder);
    expect(messages).toContain('migration 0001_things_name_key: dropping the invalid index "things_name_key" an interrupted build left');
    expect(await indexValid(session, 'things_name_key')).toBe(true);
    expect(await records(session)).toEqual(expectedRecords(folder, ['0000_things', '0001_things_name_key']));
  });

  it('runs again from its start after an interruption, as drizzle-kit writes it: an index built already is kept, one dropped already passes', async () => {
    session = await openSession();
    // drizzle-kit's `index(…).concurrently()`: no IF NOT EXISTS.
    const indexes: [string, string[]] = [
      '0001_things_indexes',
      [
        'CREATE INDEX CONCURRENTLY "things_name_idx" ON "things" USING btree ("name")',
        'DROP INDEX CONCURRENTLY "things_old_idx"',
        'CREATE INDEX CONCURRENTLY "things_id_name_idx" ON "things" USING btree ("id","name")',
      ],
    ];
    await apply(migrationsFolder([things]));
    // A start stopped after the first two statements: the first index is built, the old one gone.
    await session.query('CREATE INDEX CONCURRENTLY "things_name_idx" ON "things" USING btree ("name")');
    const folder = migrationsFolder([things, indexes]);

    const messages = await apply(folder);
    expect(messages).toContain('migration 0001_things_indexes: the index "things_name_idx" is built already');
    expect(await indexValid(session, 'things_name_idx')).toBe(true);
    expect(await indexValid(session, 'things_id_name_idx')).toBe(true);
    expect(await records(session)).toEqual(expectedRecords(folder, ['0000_things', '0001_things_indexes']));
  });
});

/**
 * Holds ACCESS SHARE on `things` from another session until `release` (a report reading the table
 * in a long transaction); any ALTER TABLE of it waits.
 */
function holdTable(other: postgres.Sql): Promise<{ release(): Promise<void> }> {
  return holdInTransaction(other, (tx) => tx`lock table things in access share mode`);
}

const addNote: [string, string[]] = ['0001_things_note', ['ALTER TABLE "things" ADD COLUMN "note" text']];

// PGlite has a single connection: no other session can hold a lock the migration waits for.
describe.skipIf(!adminUrl)('a migration waiting for a lock another session holds', () => {
  it(`gives way after ${lockTimeoutMs} ms, and is tried again after a pause until the lock is released`, { timeout: 30_000 }, async () => {
    session = await openSession();
    await apply(migrationsFolder([things]));
    const lock = await holdTable(session.other!);
    const folder = migrationsFolder([things, addNote]);

    const messages: string[] = [];
    let released: Promise<void> | undefined;
    const started = performance.now();
    await applyMigrations(
      session.db,
      (message) => {
        messages.push(message);
        // The long transaction ends once the migration has given way once.
        if (message.includes('for a lock')) released ??= lock.release();
      },
      { migrationsFolder: folder, lockRetryPausesMs: [200, 200, 200] },
    );
    await released;

    expect(messages).toContain(`migration 0001_things_note waited over ${lockTimeoutMs} ms for a lock (attempt 1 of 4); trying again in 200 ms`);
    expect(messages.filter((message) => message.includes('for a lock'))).toHaveLength(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(lockTimeoutMs);
    expect((await session.query(`select count(*)::int as n from information_schema.columns where table_name = 'things' and column_name = 'note'`))[0].n).toBe(1);
    expect(await records(session)).toEqual(expectedRecords(folder, ['0000_things', '0001_things_note']));
  });

  it('fails with the lock named once its tries are spent, and the next start applies it', { timeout: 30_000 }, async () => {
    session = await openSession();
    await apply(migrationsFolder([things]));
    const lock = await holdTable(session.other!);
    const folder = migrationsFolder([things, addNote]);

    const messages: string[] = [];
    const failure = await applyMigrations(session.db, (message) => void messages.push(message), { migrationsFolder: folder, lockRetryPausesMs: [50, 50] }).then(
      () => undefined,
      (error: Error) => error,
    );
    await lock.release();

    expect(failure?.message).toMatch(
      new RegExp(`^migration 0001_things_note failed: it waited over ${lockTimeoutMs} ms for a lock on each of 3 attempts; a long transaction holds a lock on a table it changes`),
    );
    expect(messages.filter((message) => message.includes('for a lock'))).toHaveLength(2);
    expect(await records(session)).toHaveLength(1);

    expect(await apply(folder)).toContainEqual(expect.stringMatching(/^migration 1\/1 0001_things_note applied in \d+ ms$/));
    expect(await records(session)).toEqual(expectedRecords(folder, ['0000_things', '0001_things_note']));
  });
});
