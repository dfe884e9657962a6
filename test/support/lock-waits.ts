import { sql } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Executor } from '../../src/db/client.js';
import { executeRows } from '../../src/db/rows.js';

/**
 * How many locks sessions of this database are waiting for: advisory locks, and row locks (whose
 * wait is on the holder's transaction id, of no database). On a Citus cluster a statement's row
 * locks are taken on the workers, where the coordinator's `pg_locks` does not see them:
 * `citus_lock_waits` adds the waits of every node, those of this database's sessions only (test
 * files running at the same time have databases of their own on the same cluster).
 */
export async function lockWaits(db: Executor): Promise<number> {
  const [{ citus }] = await executeRows<{ citus: boolean }>(db, sql`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  const [local] = await executeRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from pg_locks l
    join pg_stat_activity a on a.pid = l.pid where not l.granted and a.datname = current_database()`,
  );
  if (!citus) return Number(local.n);
  const [cluster] = await executeRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from citus_lock_waits w
    where exists (select 1 from citus_stat_activity a where a.global_pid = w.waiting_gpid and a.datname = current_database())`,
  );
  return Number(local.n) + Number(cluster.n);
}

/**
 * Runs `take` in a transaction of its own on `db` and keeps the transaction open, with whatever
 * locks `take` took, until `release` is called; resolves once they are held.
 */
export async function holdInTransaction(db: postgres.Sql, take: (tx: postgres.TransactionSql) => Promise<unknown>): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const held = new Promise<void>((resolve) => (locked = resolve));
  const transaction = db.begin(async (tx) => {
    await take(tx);
    locked();
    await released;
  });
  await Promise.race([held, transaction]);
  return {
    async release() {
      release();
      await transaction;
    },
  };
}

/**
 * Holds a member's row locked on the test's own connection until `release` is called; resolves
 * once the lock is held. The account is named, as every statement of the gateway does: Citus locks
 * rows only in a statement routed to one shard.
 */
export function holdMemberRow(db: postgres.Sql, accountId: number, memberId: number): Promise<{ release(): Promise<void> }> {
  return holdInTransaction(db, (tx) => tx`select id from members where account_id = ${accountId} and id = ${memberId} for update`);
}
