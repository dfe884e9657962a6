import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distribute, placementProblems, placementRefusal } from '../../src/db/citus.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { colocationAnchor, distributionPlan } from '../../src/db/distribution.js';
import { executeRows } from '../../src/db/rows.js';
import { sessionSettings } from '../../src/db/session-settings.js';
import { citusWorkers, createTestDatabase, databaseUrl } from '../support/database.js';

/**
 * Where the gateway starts (docs/scaling.md, "The procedure"): on plain PostgreSQL nothing is
 * asked; on a Citus coordinator every table must be placed, and a worker is refused before any
 * migration. The cluster half runs with TEST_CITUS=1 (test/support/database.ts).
 */

describe('start-up on plain PostgreSQL', () => {
  it.skipIf(process.env.TEST_CITUS === '1')('asks nothing of a database without the citus extension', async () => {
    const database = await createTestDatabase();
    try {
      expect(await placementRefusal(database.db)).toBeUndefined();
    } finally {
      await database.close();
    }
  });
});

describe.skipIf(process.env.TEST_CITUS !== '1')('start-up and the procedure on a Citus cluster', () => {
  let database: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase({ distribute: false });
  }, 120_000);

  afterAll(async () => {
    await database?.close();
  });

  it('refuses a coordinator whose tables are not distributed, naming each', async () => {
    const refusal = await placementRefusal(database.db);
    expect(refusal).toContain(`not distributed as docs/scaling.md says (${distributionPlan().length} of ${distributionPlan().length})`);
    expect(refusal).toContain('members: not distributed (a plain table of the coordinator)');
    expect(refusal).toContain('accounts: not distributed (a plain table of the coordinator)');
    expect(refusal).toContain('npm run cli -- db distribute');
  });

  it('refuses a worker before applying any migration', async () => {
    const name = new URL(database.url!).pathname.slice(1);
    const worker = databaseUrl(citusWorkers(process.env.TEST_DATABASE_URL!)[0], name);
    await expect(openDatabase({ kind: 'postgres', url: worker, readUrl: undefined, poolSize: 1 })).rejects.toThrow('DATABASE_URL points at a Citus worker');
    const client = await openDatabase({ kind: 'postgres', url: database.url!, readUrl: undefined, poolSize: 1 });
    await client.close();
  });

  it('distributes every table as the plan says, once', { timeout: 300_000 }, async () => {
    const placed = await distribute(database.db);
    expect(placed.map((placement) => placement.table).sort()).toEqual(
      distributionPlan()
        .map((placement) => placement.table)
        .sort(),
    );
    expect(await placementProblems(database.db)).toEqual([]);
    expect(await placementRefusal(database.db)).toBeUndefined();
    const rows = await executeRows<{ table: string; method: string; colocation: number }>(
      database.db,
      sql`
      select logicalrelid::regclass::text as "table", partmethod::text as "method", colocationid as "colocation" from pg_dist_partition`,
    );
    const anchor = rows.find((row) => row.table === colocationAnchor)!;
    for (const { table, kind } of distributionPlan()) {
      expect(
        rows.find((row) => row.table === table),
        table,
      ).toMatchObject(kind === 'reference' ? { method: 'n' } : { method: 'h', colocation: anchor.colocation });
    }
    expect(await distribute(database.db)).toEqual([]);
  });

  it("gives every node's database the gateway's session settings, for the sessions the coordinator opens on the workers", async () => {
    const name = new URL(database.url!).pathname.slice(1);
    const expected = Object.entries(sessionSettings)
      .map(([setting, value]) => `${setting}=${value}`)
      .sort();
    for (const url of [database.url!, ...citusWorkers(process.env.TEST_DATABASE_URL!).map((worker) => databaseUrl(worker, name))]) {
      const node = postgres(url, { max: 1, onnotice: () => {} });
      try {
        // What a new session of the node's database starts with, as a worker's session for a shard does.
        const [row] = await node`select coalesce(array(select unnest(s.setconfig) order by 1), '{}') as settings
          from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase where d.datname = ${name} and s.setrole = 0`;
        expect(row?.settings ?? [], url).toEqual(expect.arrayContaining(expected));
        const [{ jit }] = await node`show jit`;
        expect(jit, url).toBe(sessionSettings.jit);
      } finally {
        await node.end();
      }
    }
  });
});
