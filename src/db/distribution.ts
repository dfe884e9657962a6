import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './client.js';
import { executeRows } from './rows.js';
import * as schema from './schema/index.js';
import { sessionSettings } from './session-settings.js';

/**
 * How the schema spreads over a Citus cluster (docs/scaling.md, "Distributing on Citus"). Every
 * table is distributed on `account_id`, colocated with the others, except these reference tables,
 * which Citus copies whole to every node:
 * - `accounts`, `applications` and `api_keys`: small, read on every request, and how a request finds
 *   its account in the first place (an API key is looked up by its digest alone). Keeping them whole
 *   lets `api_keys_key_hash_key` and `accounts_name_key` stay unique on their own, and lets every
 *   tenant table keep its foreign key to them.
 * - `signing_keys`: the gateway's JWT keys, which belong to no account.
 * - `staff_users`: the console's staff, people who may belong to several accounts; signing in finds
 *   them by email alone, and their roles and sessions (distributed) keep a foreign key to them.
 * A reference table may only have foreign keys to reference tables.
 */
export const referenceTables: readonly string[] = ['accounts', 'applications', 'api_keys', 'signing_keys', 'staff_users'];

/** The column every other table is distributed on. */
export const distributionColumn = 'account_id';

/** The distributed table the others are colocated with (it depends only on reference tables). */
export const colocationAnchor = 'members';

/** How one table is placed on a cluster. */
export interface Placement {
  table: string;
  kind: 'reference' | 'distributed';
}

/**
 * Every table of the schema and how it is placed, in an order Citus accepts: a table comes after
 * every table its foreign keys name, reference tables first, then the colocation anchor.
 */
export function distributionPlan(): Placement[] {
  // By name: the order of a module's exports differs between Node and the test runner.
  const tables = (Object.values(schema) as unknown[])
    .filter((value): value is PgTable => is(value, PgTable))
    .map((table) => getTableConfig(table))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const dependencies = new Map(tables.map((table) => [table.name, table.foreignKeys.map((key) => getTableConfig(key.reference().foreignTable).name)]));
  const isReference = (name: string) => referenceTables.includes(name);
  // Reference tables, then the anchor, then the rest; each group by name, a table held back until
  // what it references is placed.
  const wanted = [
    ...tables.filter((table) => isReference(table.name)),
    ...tables.filter((table) => table.name === colocationAnchor),
    ...tables.filter((table) => !isReference(table.name) && table.name !== colocationAnchor),
  ].map((table) => table.name);
  const placed: string[] = [];
  while (placed.length < wanted.length) {
    const next = wanted.find((name) => !placed.includes(name) && dependencies.get(name)!.every((other) => other === name || placed.includes(other)));
    if (!next) throw new Error(`foreign keys form a cycle among ${wanted.filter((name) => !placed.includes(name)).join(', ')}`);
    placed.push(next);
  }
  return placed.map((table) => ({ table, kind: isReference(table) ? 'reference' : 'distributed' }));
}

/**
 * The setting the procedure turns off for its own transaction. On by default, it makes
 * `create_reference_table` turn every plain table with a foreign key to the new reference table
 * into a coordinator-local ("Citus local") table, and such a table with an identity column can then
 * never be distributed ("cannot complete operation on a table with identity column": Citus cannot
 * re-create an identity column when it converts a table, citusdata/citus#7750 and #7888). Every
 * such table is distributed a few statements later in the same transaction, where its foreign keys
 * to the reference tables are checked and kept: the conversion would only be undone. No table is
 * left local, and the setting only changes what Citus does to plain tables, which there are none
 * of once the transaction commits.
 */
export const keepLinkedTablesPlain = 'set local citus.enable_local_reference_table_foreign_keys = off;';

/**
 * The gateway's session settings (session-settings.ts), made the database's own. Citus propagates
 * `alter database … set` to every node it knows, and the workers' sessions that run the shards'
 * statements, opened by the coordinator, take them from there: without it every statement the
 * planner sizes as large was JIT-compiled on the worker (20–26 ms, paid by each ranking's
 * correction statement alone, while it ran in 1 ms). The database is named by the session's own,
 * so the statement is the same on every cluster. Harmless to repeat: the procedure runs it again
 * each time (after adding a worker, for instance).
 */
export const workerSessionSettings = `do $$ begin ${Object.entries(sessionSettings)
  .map(([name, value]) => `execute format('alter database %I set ${name} = %L', current_database(), '${value}');`)
  .join(' ')} end $$;`;

/** The statement that places one table. */
export function placementStatement({ table, kind }: Placement): string {
  if (kind === 'reference') return `select create_reference_table('${table}');`;
  if (table === colocationAnchor) return `select create_distributed_table('${table}', '${distributionColumn}');`;
  return `select create_distributed_table('${table}', '${distributionColumn}', colocate_with => '${colocationAnchor}');`;
}

/**
 * The statements that distribute the schema on a Citus coordinator, as one transaction: the two
 * settings above, every table's placement, and the removal of the rows the coordinator's own tables kept
 * (`create_distributed_table` copies them to the shards and leaves the originals on disk, unseen).
 */
export function distributionStatements(): string[] {
  return [
    'begin;',
    keepLinkedTablesPlain,
    workerSessionSettings,
    ...distributionPlan().map(placementStatement),
    'select truncate_local_data_after_distributing_table(logicalrelid) from pg_dist_partition;',
    'commit;',
  ];
}

interface TableRow {
  table: string;
  accountType: string | null;
}
interface UniqueRow {
  table: string;
  index: string;
  columns: string[];
}
interface IdentityRow {
  table: string;
  column: string;
}
interface TriggerRow {
  table: string;
  trigger: string;
}
interface ForeignKeyRow {
  table: string;
  name: string;
  references: string;
  columns: string[];
  foreignColumns: string[];
  onDelete: string;
  onUpdate: string;
}

/** What the catalog check compares the database with; the defaults are the project's. */
export interface DistributionRules {
  references?: readonly string[];
  /** The procedure's statements: whether they keep tables linked to reference tables plain. */
  statements?: readonly string[];
}

/** pg_constraint's action codes: set null, set default, cascade. */
const setsColumns = ['n', 'd'];

/**
 * What would stop Citus from distributing the database's tables as `distributionStatements` says,
 * read from its catalog: a table that is neither a reference table nor has `account_id`; a unique
 * key (primary key, unique constraint or unique index) without `account_id`; a foreign key between
 * distributed tables that does not pair `account_id` with `account_id`; a foreign key through
 * `account_id` that sets columns on delete or update (Citus refuses `set null` and `set default`
 * there, even PostgreSQL 15's `set null (column)`); a reference table with a foreign key to a
 * distributed one; a table with an identity column linked to a reference table, when the procedure
 * lets `create_reference_table` make it coordinator-local first (see `keepLinkedTablesPlain`); a
 * trigger on a table to distribute (Citus refuses such a table, short of `citus.enable_unsafe_triggers`,
 * which this project does not use: a trigger would run on the shard's node, where a transition table
 * cannot meet other distributed tables and an advisory lock protects nothing the coordinator sees).
 * Empty when the schema distributes.
 */
export async function distributionProblems(db: Executor, rules: DistributionRules = {}): Promise<string[]> {
  const { references = referenceTables, statements = distributionStatements() } = rules;
  const tables = await executeRows<TableRow>(
    db,
    sql`
    select t.table_name as "table", c.data_type as "accountType"
    from information_schema.tables t
    left join information_schema.columns c on c.table_schema = t.table_schema and c.table_name = t.table_name and c.column_name = ${distributionColumn}
    where t.table_schema = 'public' and t.table_type = 'BASE TABLE'
    order by 1`,
  );
  const uniques = await executeRows<UniqueRow>(
    db,
    sql`
    select t.relname as "table", i.relname as "index",
      array(select a.attname::text from unnest(x.indkey::int2[]) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum
        where k.n <= x.indnkeyatts order by k.n) as "columns"
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = 'public' and x.indisunique
    order by 1, 2`,
  );
  const foreignKeys = await executeRows<ForeignKeyRow>(
    db,
    sql`
    select t.relname as "table", c.conname as "name", r.relname as "references",
      array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.n) as "columns",
      array(select a.attname::text from unnest(c.confkey) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum order by k.n) as "foreignColumns",
      c.confdeltype::text as "onDelete", c.confupdtype::text as "onUpdate"
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_class r on r.oid = c.confrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = 'public' and c.contype = 'f'
    order by 1, 2`,
  );

  const identities = await executeRows<IdentityRow>(
    db,
    sql`
    select table_name as "table", column_name as "column" from information_schema.columns
    where table_schema = 'public' and is_identity = 'YES' order by 1, 2`,
  );
  const triggers = await executeRows<TriggerRow>(
    db,
    sql`
    select t.relname as "table", g.tgname as "trigger"
    from pg_trigger g
    join pg_class t on t.oid = g.tgrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = 'public' and not g.tgisinternal
    order by 1, 2`,
  );

  const problems: string[] = [];
  const isReference = (table: string) => references.includes(table);
  const present = new Set(tables.map((row) => row.table));
  for (const table of references) if (!present.has(table)) problems.push(`${table}: listed as a reference table, but there is no such table`);
  const accountTypes = new Set<string>();
  const unplaced = new Set<string>();
  for (const { table, accountType } of tables) {
    if (isReference(table)) continue;
    if (accountType) accountTypes.add(accountType);
    else {
      problems.push(`${table}: no ${distributionColumn} column, and not a reference table`);
      unplaced.add(table);
    }
  }
  // Colocated tables must share the distribution column's type.
  if (accountTypes.size > 1) problems.push(`${distributionColumn} has several types (${[...accountTypes].join(', ')}), so the tables cannot be colocated`);
  for (const { table, index, columns } of uniques) {
    if (!isReference(table) && !unplaced.has(table) && !columns.includes(distributionColumn)) problems.push(`${table}: unique index ${index} (${columns.join(', ')}) lacks ${distributionColumn}`);
  }
  for (const key of foreignKeys) {
    if (isReference(key.table)) {
      if (!isReference(key.references)) problems.push(`${key.table}: reference table with a foreign key (${key.name}) to the distributed table ${key.references}`);
      continue;
    }
    const position = key.columns.indexOf(distributionColumn);
    if (!isReference(key.references) && (position < 0 || key.foreignColumns[position] !== distributionColumn)) {
      problems.push(`${key.table}: foreign key ${key.name} to ${key.references} does not pair ${distributionColumn} with ${distributionColumn}`);
    }
    if (position >= 0 && setsColumns.includes(key.onDelete)) problems.push(`${key.table}: foreign key ${key.name} sets columns on delete through ${distributionColumn}`);
    if (position >= 0 && [...setsColumns, 'c'].includes(key.onUpdate)) problems.push(`${key.table}: foreign key ${key.name} changes ${distributionColumn} on update`);
  }
  if (!statements.includes(keepLinkedTablesPlain)) {
    for (const { table, column } of identities) {
      if (isReference(table)) continue;
      const link = foreignKeys.find((key) => key.table === table && isReference(key.references));
      if (link)
        problems.push(
          `${table}: identity column ${column} and a foreign key (${link.name}) to the reference table ${link.references}: create_reference_table('${link.references}') makes it coordinator-local, and Citus cannot then distribute it`,
        );
    }
  }
  for (const { table, trigger } of triggers) {
    if (isReference(table) || unplaced.has(table)) continue;
    problems.push(`${table}: trigger ${trigger}, and Citus does not distribute a table with triggers`);
  }
  return problems;
}
