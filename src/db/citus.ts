import { sql } from 'drizzle-orm';
import type { Database, Executor } from './client.js';
import { colocationAnchor, distributionColumn, distributionPlan, distributionStatements, workerSessionSettings, type Placement } from './distribution.js';
import { executeRows } from './rows.js';

/**
 * The gateway on a Citus cluster (docs/scaling.md, "Distributing on Citus"): which node a database
 * is, whether its tables are placed as `distributionPlan` says, and the procedure that places them.
 * A database without the citus extension is plain PostgreSQL, and none of this applies.
 */

/** How the database at hand takes part in a Citus cluster. */
export type CitusRole = 'none' | 'coordinator' | 'worker';

export async function citusRole(db: Executor): Promise<CitusRole> {
  const [extension] = await executeRows<{ present: boolean }>(db, sql`select exists (select 1 from pg_extension where extname = 'citus') as present`);
  if (!extension?.present) return 'none';
  // The coordinator is group 0; a node registered as a worker gets its own group. A database with
  // the extension and no cluster yet is group 0 too: it becomes the coordinator.
  const [group] = await executeRows<{ id: number }>(db, sql`select groupid as id from pg_dist_local_group`);
  return Number(group?.id ?? 0) === 0 ? 'coordinator' : 'worker';
}

/** Said when DATABASE_URL names a worker: tables made there would be outside the cluster's. */
export function workerRefusal(setting: string): string {
  return `${setting} points at a Citus worker; the gateway connects to the coordinator, which routes each statement to the worker holding its account (docs/scaling.md, "Distributing on Citus")`;
}

interface PartitionRow {
  table: string;
  method: string;
  colocation: number;
  column: string | null;
}

/**
 * The tables of the coordinator's database that are not placed as the plan says, each with what is
 * wrong: not distributed at all (still a plain table, or coordinator-local), distributed on another
 * column, or not colocated with the anchor. Empty when every table is placed.
 */
export async function placementProblems(db: Executor): Promise<string[]> {
  const rows = await executeRows<PartitionRow>(
    db,
    sql`
    select p.logicalrelid::regclass::text as "table", p.partmethod::text as "method", p.colocationid as "colocation",
      case when p.partmethod = 'h' then column_to_column_name(p.logicalrelid, p.partkey) end as "column"
    from pg_dist_partition p`,
  );
  const placed = new Map(rows.map((row) => [row.table, row]));
  const anchor = placed.get(colocationAnchor);
  const problems: string[] = [];
  for (const { table, kind } of distributionPlan()) {
    const row = placed.get(table);
    if (!row) problems.push(`${table}: not distributed (a plain table of the coordinator)`);
    else if (kind === 'reference' && row.method !== 'n') problems.push(`${table}: should be a reference table`);
    else if (kind === 'distributed' && row.method !== 'h')
      problems.push(`${table}: ${row.method === 'n' ? 'a coordinator-local table' : 'not hash-distributed'}, where it should be distributed on ${distributionColumn}`);
    else if (kind === 'distributed' && row.column !== distributionColumn) problems.push(`${table}: distributed on ${row.column}, not ${distributionColumn}`);
    else if (kind === 'distributed' && anchor && row.colocation !== anchor.colocation) problems.push(`${table}: not colocated with ${colocationAnchor}`);
  }
  return problems;
}

/**
 * What start-up says of a coordinator whose tables are not placed, naming them and the fix;
 * undefined on plain PostgreSQL and on a coordinator whose tables are all placed. (A worker is
 * refused before the migrations, `workerRefusal`.)
 */
export async function placementRefusal(db: Executor): Promise<string | undefined> {
  if ((await citusRole(db)) !== 'coordinator') return undefined;
  const problems = await placementProblems(db);
  if (!problems.length) return undefined;
  return [
    `DATABASE_URL points at a Citus coordinator whose tables are not distributed as docs/scaling.md says (${problems.length} of ${distributionPlan().length}):`,
    ...problems.map((problem) => `  ${problem}`),
    'Distribute them with `npm run cli -- db distribute` (same DATABASE_URL), then start again.',
  ].join('\n');
}

/**
 * Places every table not yet placed, in one transaction: the procedure of docs/scaling.md, less
 * the tables a previous run placed (a new table from a later migration, for example). Answers the
 * tables placed. The database's session settings are set again on every run, so a cluster placed
 * before they were part of the procedure, or a worker added since, gets them. Citus copies the
 * rows a table already has to the shards, so on a database with data this takes as long as reading
 * it all once.
 */
export async function distribute(db: Database): Promise<Placement[]> {
  const placed = new Set((await executeRows<{ table: string }>(db, sql`select logicalrelid::regclass::text as "table" from pg_dist_partition`)).map((row) => row.table));
  const pending = distributionPlan().filter((placement) => !placed.has(placement.table));
  if (!pending.length) {
    await db.execute(sql.raw(workerSessionSettings));
    return [];
  }
  const names = new Set(pending.map((placement) => placement.table));
  // The documented statements, less those for tables already placed, in a transaction of the
  // connection pool's (its own `begin` and `commit`).
  const statements = distributionStatements().filter((statement) => {
    if (statement === 'begin;' || statement === 'commit;') return false;
    const table = /^select create_(?:reference|distributed)_table\('(\w+)'/.exec(statement)?.[1];
    return table === undefined || names.has(table);
  });
  await db.transaction(async (tx) => {
    for (const statement of statements) {
      await tx.execute(sql.raw(statement)).catch((error: unknown) => {
        // Drizzle's message is the statement alone; Citus's reason is in the driver's error.
        const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
        const hint = (error instanceof Error && (error.cause as { hint?: string } | undefined)?.hint) || undefined;
        throw new Error(`${statement} failed: ${reason}${hint ? ` (${hint})` : ''}; nothing was distributed`, { cause: error });
      });
    }
  });
  return pending;
}
