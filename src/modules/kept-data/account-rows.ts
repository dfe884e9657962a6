import { sql, type SQL } from 'drizzle-orm';
import { scoreWindowClaims } from '../../db/schema/index.js';

/**
 * The FROM and WHERE of an `INSERT … SELECT` of one account's kept rows that come from parameters
 * (`unnest`, `values`), with the account's claim row as `k`: select `k.account_id` for the
 * inserted `account_id`, then the rows' columns.
 *
 * Citus routes an `INSERT … SELECT` to the account's shard only when the inserted `account_id` is
 * a colocated table's distribution column, read where it is held to the account; given as a
 * parameter, it pulls the rows through the coordinator first, a statement more on every fold
 * step (docs/scaling.md). Every account has its claim row from its creation (migration 0032,
 * tenancy.queries.ts insertAccount) until it is deleted, so the join keeps every row. On
 * PostgreSQL it is one probe of a primary key.
 */
export function rowsOfAccount(accountId: number, rows: SQL): SQL {
  return sql`${scoreWindowClaims} k cross join ${rows} where k.account_id = ${accountId}`;
}
