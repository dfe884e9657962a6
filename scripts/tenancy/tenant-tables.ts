import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { is } from 'drizzle-orm';
import * as schema from '../../src/db/schema/index.js';

/** What the statement check needs to know of the schema. */
export interface TenancyTables {
  /** Tables with an `account_id` column: every reference to one must be held to one account. */
  tenant: ReadonlySet<string>;
  /** The accounts table itself, held to one account by its `id`. */
  accounts: string;
  /** Tables without `account_id` (global data: signing keys, …), left alone. */
  global: ReadonlySet<string>;
  /** Tables whose rows are only ever inserted (the audit log): any UPDATE, DELETE or TRUNCATE of one fails the check. */
  appendOnly: ReadonlySet<string>;
}

/** The tenant tables as the Drizzle schema defines them, so that a new table is covered as soon as it exists. */
export function tenancyTablesFromSchema(): TenancyTables {
  const tenant = new Set<string>();
  const global = new Set<string>();
  for (const value of Object.values(schema)) {
    if (!is(value, PgTable)) continue;
    const { name, columns } = getTableConfig(value);
    (columns.some((column) => column.name === 'account_id') ? tenant : global).add(name);
  }
  const accounts = getTableConfig(schema.accounts).name;
  global.delete(accounts);
  const appendOnly = new Set([getTableConfig(schema.auditEvents).name]);
  return { tenant, accounts, global, appendOnly };
}
