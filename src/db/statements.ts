import { getTableColumns, is, Placeholder, type SQL, type Table } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';
import type { Executor } from './client.js';
import { countRoundTrip } from './roundtrips.js';
import { recordStatement } from './statement-log.js';

/**
 * Hand-written statements for hot read paths (the loaders behind every page of members). Drizzle
 * builds each statement's text anew on every call, sends it unnamed (parsed and planned again by
 * the server each time) and maps every column of every row through its column classes; on a page
 * of 100 members that was a large share of the gateway's time. These statements are fixed texts
 * with numbered parameters, sent as named prepared statements (postgres.js keeps one per
 * connection), and their rows are used as the driver reads them, with timestamps turned into Dates.
 *
 * They answer the same row types as the Drizzle queries they replace: the select lists come from
 * the table definitions (`columnsOf`), so a renamed or added column cannot drift out of them.
 */

interface PostgresJsClient {
  unsafe(text: string, params: unknown[], options: { prepare: boolean }): Promise<unknown[]>;
}
interface PgliteClient {
  query<T>(text: string, params: unknown[], options: { parsers: Record<number, (value: string) => unknown> }): Promise<{ rows: T[] }>;
}

/** PGlite answers timestamps and dates as text too, as Drizzle asks it to: one conversion for both drivers. */
const rawText = (value: string) => value;
const pgliteParsers = { 1082: rawText, 1083: rawText, 1114: rawText, 1184: rawText, 1186: rawText };

/**
 * The rows of a fixed statement. `text` must not vary between calls (values go in `params`):
 * each distinct text is prepared once per connection. Counted as one round trip.
 */
export function preparedRows<T>(db: Executor, text: string, params: unknown[]): Promise<T[]> {
  return fixedRows<T>(db, text, params, true);
}

/**
 * The rows of a fixed statement that PostgreSQL must plan with its values every time: sent
 * unnamed, for statements whose generic plan (which a prepared statement may switch to after five
 * executions) would be far worse than a plan made for the values. Counted as one round trip.
 */
export function plannedRows<T>(db: Executor, text: string, params: unknown[]): Promise<T[]> {
  return fixedRows<T>(db, text, params, false);
}

async function fixedRows<T>(db: Executor, text: string, params: unknown[], prepare: boolean): Promise<T[]> {
  const client = (db as unknown as { session: { client: PostgresJsClient | PgliteClient } }).session.client;
  countRoundTrip();
  // These statements bypass Drizzle's logger: the tenancy check's record needs them too.
  recordStatement?.(text, { direct: true });
  if ('unsafe' in client) return (await client.unsafe(text, params, { prepare })) as T[];
  return (await client.query<T>(text, params, { parsers: pgliteParsers })).rows;
}

/**
 * The rows of a statement built with Drizzle's `sql`, sent as a named prepared statement: for hot
 * statements whose text depends on their shape only (every value a parameter), so that each shape
 * is planned once per connection rather than on every call. Counted as one round trip.
 */
export function preparedRowsOf<T>(db: Executor, statement: SQL): Promise<T[]> {
  const query = (db as unknown as { dialect: PgDialect }).dialect.sqlToQuery(statement);
  return preparedRows<T>(db, query.sql, query.params);
}

/**
 * A statement built with Drizzle's `sql` once, its values named by `sql.placeholder(name)`: the
 * text is rendered on the first call, and every call sends it as a named prepared statement with
 * the values of its placeholders (each already in the driver's form). For a hot statement whose
 * building showed in the gateway's profile: Drizzle walks a statement's every chunk each time
 * preparedRowsOf renders it. Counted as one round trip.
 */
export function fixedStatement<Values extends Record<string, unknown>, T>(build: () => SQL): (db: Executor, values: Values) => Promise<T[]> {
  let rendered: { text: string; names: (keyof Values)[] } | undefined;
  return (db, values) => {
    if (!rendered) {
      const query = (db as unknown as { dialect: PgDialect }).dialect.sqlToQuery(build());
      const names = query.params.map((param) => {
        if (!is(param, Placeholder)) throw new Error(`a fixed statement takes its values as placeholders, not ${String(param)}`);
        return param.name;
      });
      rendered = { text: query.sql, names };
    }
    return preparedRows<T>(
      db,
      rendered.text,
      rendered.names.map((name) => values[name]),
    );
  };
}

/** A select list of some of a table's columns, named as Drizzle names them, and how to read its rows. */
export interface ColumnList<Row> {
  /** `"first_name" as "firstName", …`, for the statement's text. */
  sql: string;
  /** The same list with each column taken from `alias` (`members."first_name" as "firstName", …`), for statements that join. */
  from(alias: string): string;
  /** Timestamps (text from the driver) become Dates and 53-bit bigints numbers, in place; everything else is as read. */
  read(rows: Record<string, unknown>[]): Row[];
  /** `json_build_object('firstName', <alias>."first_name", …)`: a row as a JSON object, whose objects `read` reads. */
  jsonObject(alias: string): string;
}

/**
 * The select list of a table's columns (all, the named ones, or all but the named ones).
 * Only column kinds the driver already reads as Drizzle would (text, numbers, booleans, JSON,
 * dates as text) and timestamps are accepted; anything else throws at start.
 */
export function columnsOf<T extends Table, K extends keyof T['$inferSelect'] & string = keyof T['$inferSelect'] & string>(
  table: T,
  options: { only?: readonly K[]; except?: readonly (keyof T['$inferSelect'] & string)[] } = {},
): ColumnList<Pick<T['$inferSelect'], K>> {
  const all = getTableColumns(table) as Record<string, { name: string; dataType: string; columnType: string }>;
  const keys = (options.only ?? Object.keys(all)).filter((key) => !options.except?.includes(key as never));
  const dates: string[] = [];
  const bigints: string[] = [];
  const parts = keys.map((key) => {
    const column = all[key];
    if (!column) throw new Error(`no column ${key}`);
    if (column.dataType === 'date') dates.push(key);
    else if (column.columnType === 'PgBigInt53') bigints.push(key);
    else if (!['string', 'number', 'boolean', 'json'].includes(column.dataType)) {
      throw new Error(`column ${column.name} (${column.columnType}) is not read by hand-written statements`);
    }
    return `"${column.name}" as "${key}"`;
  });
  const convert = (row: Record<string, unknown>) => {
    for (const key of dates) {
      const value = row[key];
      if (value !== null && value !== undefined && !(value instanceof Date)) row[key] = new Date(value as string);
    }
    for (const key of bigints) {
      const value = row[key];
      if (value !== null && value !== undefined) row[key] = Number(value);
    }
  };
  return {
    sql: parts.join(', '),
    from: (alias) => parts.map((part) => `${alias}.${part}`).join(', '),
    jsonObject: (alias) => `json_build_object(${keys.map((key) => `'${key}', ${alias}."${all[key].name}"`).join(', ')})`,
    read(rows) {
      if (dates.length || bigints.length) for (const row of rows) convert(row);
      return rows as Pick<T['$inferSelect'], K>[];
    },
  };
}
