import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { RequestStatements } from '../../src/db/request-statements.js';
import { runCounted } from '../../src/db/roundtrips.js';
import { executeRows } from '../../src/db/rows.js';
import { createTestDatabase } from '../support/database.js';

/**
 * One account's slow statements hold at most its share of the pool (db/connection-shares.ts): with
 * four connections and a share of two, another account's statement is answered while the first
 * account's four slow ones run, instead of waiting behind them (a feed filtered by emails on tables
 * never analysed ran 11–30 s per statement and another tenant waited 30 s). PostgreSQL only: the
 * embedded database is one connection, taken in turn.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)("an account's share of the pool", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase({ poolSize: 4 });
  });
  afterAll(() => handle?.close());

  /** Runs `work` as a request of `account`, with no statement timeout. */
  const asRequestOf = <T>(account: number, work: () => Promise<T>) => {
    const statements = new RequestStatements(0);
    statements.owner = `account:${account}`;
    return runCounted({ count: 0, statements }, work);
  };

  it("answers another account while one account's slow statements and transactions run", async () => {
    // Every connection open first, so none of them is waiting to connect.
    await Promise.all(Array.from({ length: 4 }, () => executeRows(handle.db, sql`select pg_sleep(0.05)`)));
    let slowSettled = 0;
    const slow = [
      ...Array.from({ length: 3 }, () => asRequestOf(1, () => executeRows(handle.db, sql`select pg_sleep(2)`))),
      asRequestOf(1, () => handle.db.transaction((tx) => executeRows(tx, sql`select pg_sleep(2)`))),
    ].map((statement) => statement.finally(() => (slowSettled += 1)));
    // Sent once the slow ones have been handed to the pool.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [other] = await asRequestOf(2, () => executeRows<{ answer: number }>(handle.db, sql`select 42 as answer`));
    expect(other).toEqual({ answer: 42 });
    // Answered while every slow statement of the other account was still running or waiting its turn.
    expect(slowSettled).toBe(0);
    await Promise.all(slow);
  }, 30_000);

  it('lets a transaction send statements outside it while it holds the whole share', async () => {
    const small = await createTestDatabase({ poolSize: 2 });
    try {
      // A share of one: the transaction holds it, and the request's statement beside it does not wait for itself.
      const answer = await asRequestOf(3, () =>
        small.db.transaction(async (tx) => {
          await executeRows(tx, sql`select 1`);
          const [row] = await executeRows<{ n: number }>(small.db, sql`select 7 as n`);
          return row.n;
        }),
      );
      expect(answer).toBe(7);
    } finally {
      await small.close();
    }
  }, 30_000);
});
