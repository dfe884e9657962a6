import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { RequestStatements } from '../../src/db/request-statements.js';
import { runCounted } from '../../src/db/roundtrips.js';
import { executeRows } from '../../src/db/rows.js';
import { createTestDatabase } from '../support/database.js';

// A request's statement that times out while it waits behind another statement of the same
// connection. postgres.js (3.4.9), when such a statement had been sent behind the running one
// (pipelined) and was cancelled there, went on to the statement after it while the server still
// answered the cancelled one: that next statement, another request's, got the cancelled one's rows,
// and the cancelled one never settled. A request's statements are cancelled only once they run
// (db/request-statements.ts).
describe.skipIf(!process.env.TEST_DATABASE_URL)('a statement timed out while it waits for its connection', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    // One connection: the three statements are sure to share it.
    handle = await createTestDatabase({ poolSize: 1 });
  });
  afterAll(() => handle?.close());

  const settled = <T>(promise: Promise<T>) =>
    Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: { code?: string; cause?: { code?: string } }) => ({ code: error.cause?.code ?? error.code }),
      ),
      new Promise<{ pending: true }>((resolve) => setTimeout(() => resolve({ pending: true }), 5_000)),
    ]);

  it('settles alone, and the statements around it answer their own rows', async () => {
    // The connection open first: statements sent while it connects wait in the pool, unsent.
    await executeRows(handle.db, sql`select 1`);
    const running = settled(executeRows<{ v: string }>(handle.db, sql`select 'running' as v from pg_sleep(0.4)`));
    // Sent while the connection is busy, as a request whose statements time out after 100 ms.
    const request = { count: 0, statements: new RequestStatements(100) };
    const timedOut = settled(runCounted(request, () => executeRows<{ v: string }>(handle.db, sql`select 'timed out' as v`)));
    const next = settled(executeRows<{ v: string }>(handle.db, sql`select 'next' as v`));
    // A transaction's statements sent at once, on its connection, as a request's timed out after 100 ms.
    const inTransaction = settled(
      runCounted({ count: 0, statements: new RequestStatements(100) }, () =>
        handle.db.transaction(async (tx) => {
          const [slow, queued, last] = await Promise.all([
            executeRows<{ v: string }>(tx, sql`select 'slow' as v from pg_sleep(0.3)`),
            executeRows<{ v: string }>(tx, sql`select 'queued' as v`),
            executeRows<{ v: string }>(tx, sql`select 'last' as v`),
          ]);
          return [...slow, ...queued, ...last];
        }),
      ),
    );
    expect(await running).toEqual({ value: [{ v: 'running' }] });
    // Cancelled once it runs (query_canceled), or answered first: never left pending, never another's rows.
    expect([{ code: '57014' }, { value: [{ v: 'timed out' }] }]).toContainEqual(await timedOut);
    expect(await next).toEqual({ value: [{ v: 'next' }] });
    // The slow statement is cancelled (the transaction fails), or everything answers its own rows.
    const transaction = await inTransaction;
    if ('value' in transaction) expect(transaction.value).toEqual([{ v: 'slow' }, { v: 'queued' }, { v: 'last' }]);
    else expect(transaction).toEqual({ code: '57014' });
    expect(await executeRows(handle.db, sql`select 'after' as v`)).toEqual([{ v: 'after' }]);
  });
});
