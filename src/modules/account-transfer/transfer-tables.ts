import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../../db/schema/index.js';

/**
 * The tables one account's export holds, in an order its import can insert them (every table after
 * those its keys refer to), read from the schema itself: a table added to src/db/schema/ is moved
 * with the account without a change here.
 */

/** Tables whose rows are named by a single global id: an import gives each row a new one and rewrites every reference. */
export type GlobalTable = 'accounts' | 'applications' | 'api_keys' | 'staff_users';
const globalTables: readonly GlobalTable[] = ['accounts', 'applications', 'api_keys', 'staff_users'];

export interface TransferTable {
  name: string;
  /** Its columns, in the table's order. */
  columns: string[];
  /** How the export finds the account's rows: by `account_id`, the account itself, or its staff. */
  rowsOf: 'account_id' | 'account' | 'staff';
  /** The global table whose ids this table's own `id` are, when they are (then remapped). */
  ownIds?: GlobalTable;
  /** Columns holding another global table's ids (its keys' columns), rewritten on import. */
  references: { column: string; to: GlobalTable }[];
  /** The identity column a kept id is drawn from, advanced past the imported ids after an import. */
  identity?: string;
}

const isGlobal = (name: string): name is GlobalTable => (globalTables as readonly string[]).includes(name);

/**
 * Every table but those of no account: the signing keys of member tokens are the gateway's own
 * (tokens issued by the source's gateway do not verify on the target's), and the migrations'
 * record is the target's.
 */
const notMoved = new Set(['signing_keys']);

/** The table as an export moves it; undefined for a table of no account. */
function describe(table: PgTable): (TransferTable & { dependsOn: string[] }) | undefined {
  const config = getTableConfig(table);
  const columns = config.columns.map((column) => column.name);
  if (notMoved.has(config.name) || (!columns.includes('account_id') && config.name !== 'accounts' && config.name !== 'staff_users')) return undefined;
  const references: TransferTable['references'] = [];
  const dependsOn = new Set<string>();
  for (const key of config.foreignKeys) {
    const reference = key.reference();
    const target = getTableConfig(reference.foreignTable).name;
    if (target !== config.name) dependsOn.add(target);
    if (isGlobal(target) && reference.foreignColumns.length === 1 && reference.foreignColumns[0].name === 'id') references.push({ column: reference.columns[0].name, to: target });
  }
  // The account's own id, referenced without a key by the tables whose account key was dropped for speed.
  if (columns.includes('account_id') && !references.some((reference) => reference.column === 'account_id')) references.push({ column: 'account_id', to: 'accounts' });
  dependsOn.add('accounts');
  dependsOn.delete(config.name);
  const identity = config.columns.find((column) => (column as unknown as { generatedIdentity?: unknown }).generatedIdentity)?.name;
  return {
    name: config.name,
    columns,
    rowsOf: config.name === 'accounts' ? 'account' : config.name === 'staff_users' ? 'staff' : 'account_id',
    ownIds: isGlobal(config.name) ? config.name : undefined,
    references,
    identity: isGlobal(config.name) ? undefined : identity,
    dependsOn: [...dependsOn],
  };
}

/** Kahn's order over the keys between the moved tables, ties by name, so every export lists them alike. */
function inInsertOrder(tables: (TransferTable & { dependsOn: string[] })[]): TransferTable[] {
  const names = new Set(tables.map((table) => table.name));
  const waiting = new Map(tables.map((table) => [table.name, table.dependsOn.filter((name) => names.has(name))]));
  const ordered: TransferTable[] = [];
  while (waiting.size) {
    const ready = [...waiting].filter(([, needs]) => needs.every((name) => !waiting.has(name))).map(([name]) => name);
    if (!ready.length) throw new Error(`the tables' keys form a cycle: ${[...waiting.keys()].join(', ')}`);
    for (const name of ready.sort()) {
      waiting.delete(name);
      const { dependsOn: _, ...table } = tables.find((candidate) => candidate.name === name)!;
      ordered.push(table);
    }
  }
  return ordered;
}

export const transferTables: readonly TransferTable[] = inInsertOrder(
  (Object.values(schema) as unknown[])
    .filter((value): value is PgTable => value instanceof PgTable)
    .map(describe)
    .filter((table) => table !== undefined),
);
