import fs from 'node:fs';
import path from 'node:path';
import { sql, TransactionRollbackError } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { distributionPlan, distributionProblems, distributionStatements, keepLinkedTablesPlain, referenceTables } from '../../src/db/distribution.js';
import { projectRoot } from '../../src/db/paths.js';
import { executeRows } from '../../src/db/rows.js';
import { createTestDatabase } from '../support/database.js';

/**
 * The migrated schema, read from the database's catalog, distributes on Citus (docs/scaling.md):
 * a new table, key or link that would not fails here.
 */

let database: DatabaseHandle;

beforeAll(async () => {
  // The schema as the migrations leave it, before the procedure: what the catalog check reads.
  database = await createTestDatabase({ distribute: false });
});

afterAll(async () => {
  await database?.close();
});

describe('the schema on Citus', () => {
  it('has every table either a reference table or keyed, made unique and linked by account_id', async () => {
    expect(await distributionProblems(database.db)).toEqual([]);
  });

  it('distributes every table of the database, once', async () => {
    const tables = await executeRows<{ name: string }>(database.db, sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
    const distributed = distributionPlan().map((placement) => placement.table);
    expect([...distributed].sort()).toEqual(tables.map((table) => table.name).sort());
  });

  it('is documented with the statements the code makes', () => {
    const docs = fs.readFileSync(path.join(projectRoot, 'docs', 'scaling.md'), 'utf8');
    expect(docs).toContain(distributionStatements().join('\n'));
  });

  it('finds the tables that would not distribute', async () => {
    let problems: string[] = [];
    // Made and checked in a transaction that is rolled back, so the schema stays as migrated.
    await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`create table probe_global (id integer primary key)`);
        await tx.execute(sql`create table probe_tenant (
          account_id integer not null references accounts (id) on delete cascade,
          id integer primary key,
          token text unique,
          member_id integer,
          brand_id integer,
          foreign key (member_id, account_id) references members (account_id, id),
          foreign key (account_id, brand_id) references brands (account_id, id) on delete set null (brand_id))`);
        await tx.execute(sql`create function probe_touch() returns trigger language plpgsql as $$ begin return null; end $$`);
        await tx.execute(sql`create trigger probe_touched after insert on probe_tenant for each statement execute function probe_touch()`);
        await tx.execute(sql`create table probe_lookup (account_id integer, member_id integer, foreign key (account_id, member_id) references members (account_id, id))`);
        problems = await distributionProblems(tx, { references: [...referenceTables, 'probe_lookup', 'probe_missing'] });
        tx.rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof TransactionRollbackError)) throw error;
      });
    expect(problems.sort()).toEqual([
      'probe_global: no account_id column, and not a reference table',
      'probe_lookup: reference table with a foreign key (probe_lookup_account_id_member_id_fkey) to the distributed table members',
      'probe_missing: listed as a reference table, but there is no such table',
      'probe_tenant: foreign key probe_tenant_account_id_brand_id_fkey sets columns on delete through account_id',
      'probe_tenant: foreign key probe_tenant_member_id_account_id_fkey to members does not pair account_id with account_id',
      'probe_tenant: trigger probe_touched, and Citus does not distribute a table with triggers',
      'probe_tenant: unique index probe_tenant_pkey (id) lacks account_id',
      'probe_tenant: unique index probe_tenant_token_key (token) lacks account_id',
    ]);
    expect(await distributionProblems(database.db)).toEqual([]);
  });

  it('names no constraint or index with a number at its end: a name read from a shard loses its shard id that way (raceFailure)', async () => {
    const numbered = await executeRows<{ name: string }>(
      database.db,
      sql`
      select c.conname as name from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public' and c.conname ~ '_[0-9]+$'
      union all
      select indexname from pg_indexes where schemaname = 'public' and indexname ~ '_[0-9]+$'`,
    );
    expect(numbered).toEqual([]);
  });

  it('finds the tables that create_reference_table would make coordinator-local for good, when the procedure lets it', async () => {
    const statements = distributionStatements().filter((statement) => statement !== keepLinkedTablesPlain);
    const problems = await distributionProblems(database.db, { statements });
    const tables = distributionPlan()
      .filter((placement) => placement.kind === 'distributed')
      .map((placement) => placement.table);
    // Every distributed table with an identity id links to accounts or applications.
    expect(problems).toContain(
      "members: identity column id and a foreign key (members_account_id_accounts_id_fk) to the reference table accounts: create_reference_table('accounts') makes it coordinator-local, and Citus cannot then distribute it",
    );
    expect(problems.length).toBeGreaterThanOrEqual(12);
    for (const problem of problems) expect(tables).toContain(problem.split(':')[0]);
  });
});
