import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/client.js';
import { appliedMigration } from '../../db/migrations.js';
import { executeRows } from '../../db/rows.js';
import { recordAudit, type AuditOrigin } from '../audit/audit.js';
import { findAccountByName } from '../tenancy/tenancy.queries.js';
import { exportFormat, exportRows, exportVersion, type ExportEnd, type ExportHeader, type TransferProgress } from './transfer-format.js';
import { transferTables, type GlobalTable, type TransferTable } from './transfer-tables.js';

/** Rows one insert statement takes. */
const insertRows = 1_000;

type Row = Record<string, unknown>;

/** What an import refuses, with what to do about it; it has written nothing (or rolled it back). */
export class ImportRefused extends Error {}

export interface ImportSummary {
  accountId: number;
  name: string;
  /** The source's account id. */
  exportedId: number;
  rows: number;
  /** How the global ids were given again: old → new, per table. */
  remapped: Record<GlobalTable, number>;
}

const tables = new Map(transferTables.map((table) => [table.name, table]));

/**
 * Reads one account's export (transfer-format.ts) and stores it, in one transaction: a file cut
 * short, a row the database refuses or an interrupted process leaves the database as it was. The
 * account, its applications, keys and staff get ids of this database (a staff member who already
 * signs in here keeps their own, password and all); every other row keeps its id under the new
 * account id, its table's identity moved past it. API keys keep working: a key is stored as its
 * digest, which moves with it. Refused, writing nothing, when the database already holds an account
 * of that name or is at another migration than the export.
 */
export async function importAccount(db: Database, input: Readable, { progress = () => {}, origin }: { progress?: TransferProgress; origin?: AuditOrigin } = {}): Promise<ImportSummary> {
  // The input's failure (gzip finding the file cut, a read error) ends the lines; it is thrown in their place.
  let failure: Error | undefined;
  input.once('error', (error) => (failure ??= error));
  const lines = readline.createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (failure) throw failure;
  const header = parseHeader(first.done ? '' : first.value);
  await checkTarget(db, header);
  const total = exportRows(header);
  try {
    return await db.transaction(async (tx) => {
      const ids = new IdMaps();
      let buffered: { table: TransferTable; rows: Row[] } | undefined;
      let rows = 0;
      let read = 0;
      let ended: ExportEnd | undefined;
      const flush = async () => {
        if (!buffered?.rows.length) return;
        await insert(tx, buffered.table, buffered.rows, ids.accountId);
        rows += buffered.rows.length;
        progress({ table: buffered.table.name, rows, total });
        buffered.rows = [];
      };
      for (let next = await lines.next(); !next.done; next = await lines.next()) {
        if (failure) throw failure;
        if (ended) throw new ImportRefused('the export goes on after its last line: it is not one file');
        const line = JSON.parse(next.value) as { t?: string; r?: Row } & Partial<ExportEnd>;
        if (line.end) {
          ended = line as ExportEnd;
          continue;
        }
        const table = tables.get(line.t ?? '');
        if (!table || !line.r) throw new ImportRefused(`the export holds a row of ${JSON.stringify(line.t)}, which this version does not move`);
        read += 1;
        if (buffered?.table !== table) {
          await flush();
          buffered = { table, rows: [] };
        }
        const row = await ids.rewrite(tx, table, line.r);
        if (row) buffered.rows.push(row);
        if (buffered.rows.length >= insertRows) await flush();
      }
      if (failure) throw failure;
      await flush();
      // A file cut short (a copy that stopped, a disk that filled) ends before its last line.
      if (!ended) throw new ImportRefused('the export ends before its last line: the file is incomplete, and nothing was imported');
      if (ended.rows !== total || read !== total)
        throw new ImportRefused(`the export's header says ${total} rows, its last line ${ended.rows}, and it holds ${read}: the file is damaged, and nothing was imported`);
      for (const table of transferTables) if (table.identity) await advanceIdentity(tx, table, ids.accountId);
      const accountId = ids.accountId;
      if (origin) {
        await recordAudit(tx, accountId, origin, {
          action: 'account.import',
          target: { type: 'account', id: String(accountId) },
          details: { exportedId: header.account.id, rows: total, exportedAt: header.exportedAt },
        });
      }
      return { accountId, name: header.account.name, exportedId: header.account.id, rows: total, remapped: ids.counts() };
    });
  } finally {
    void lines.return?.(undefined);
  }
}

function parseHeader(line: string): ExportHeader {
  let header: Partial<ExportHeader>;
  try {
    header = JSON.parse(line) as Partial<ExportHeader>;
  } catch {
    throw new ImportRefused('the file is not an account export (its first line is not JSON; is it gzip-compressed as `account export` writes it?)');
  }
  if (header.format !== exportFormat) throw new ImportRefused('the file is not an account export of Marquee');
  if (header.version !== exportVersion) throw new ImportRefused(`the export is of format version ${header.version}; this version reads ${exportVersion}`);
  return header as ExportHeader;
}

/** Refuses a database at another migration, or one that holds an account of the name already. */
async function checkTarget(db: Database, header: ExportHeader): Promise<void> {
  const migration = await appliedMigration(db);
  if (migration !== header.migration) {
    throw new ImportRefused(
      `the export was made by a gateway at another migration (${header.migration}) than this database's (${migration}): upgrade the older of the two to the other's version, then export or import again`,
    );
  }
  const existing = await findAccountByName(db, header.account.name);
  if (existing) throw new ImportRefused(`this database already holds an account named ${JSON.stringify(header.account.name)} (id ${existing.id}): nothing was imported`);
}

/** The new ids of the global rows met so far, and the rewriting of each row's references to them. */
class IdMaps {
  private readonly maps: Record<GlobalTable, Map<number, number>> = { accounts: new Map(), applications: new Map(), api_keys: new Map(), staff_users: new Map() };

  get accountId(): number {
    const [id] = this.maps.accounts.values();
    if (id === undefined) throw new ImportRefused('the export holds no account row');
    return id;
  }

  counts(): Record<GlobalTable, number> {
    return Object.fromEntries(Object.entries(this.maps).map(([table, map]) => [table, map.size])) as Record<GlobalTable, number>;
  }

  /** The row as this database stores it; undefined when it is stored already (a staff member who signs in here). */
  async rewrite(tx: Transaction, table: TransferTable, row: Row): Promise<Row | undefined> {
    for (const { column, to } of table.references) if (row[column] !== null && row[column] !== undefined) row[column] = this.mapped(to, row[column]);
    if (table.name === 'audit_events') this.rewriteAuditIds(row);
    if (!table.ownIds) return row;
    const old = Number(row.id);
    if (table.ownIds === 'staff_users') {
      const [existing] = await executeRows<{ id: number }>(tx, sql`select id from staff_users where lower(email) = lower(${String(row.email)})`);
      if (existing) {
        this.maps.staff_users.set(old, Number(existing.id));
        return undefined;
      }
    }
    const [{ id }] = await executeRows<{ id: string }>(tx, sql`select nextval(pg_get_serial_sequence(${table.name}, 'id'))::text as id`);
    this.maps[table.ownIds].set(old, Number(id));
    row.id = Number(id);
    return row;
  }

  private mapped(table: GlobalTable, value: unknown): number {
    const id = this.maps[table].get(Number(value));
    if (id === undefined) throw new ImportRefused(`a row refers to ${table} ${String(value)}, which the export does not hold before it`);
    return id;
  }

  /** The log names its actors and targets by id without keys: a staff member, a key, an application, the account. */
  private rewriteAuditIds(row: Row): void {
    const actor = { staff: 'staff_users', api_key: 'api_keys' } as const;
    const target = { staff: 'staff_users', key: 'api_keys', application: 'applications', account: 'accounts' } as const;
    const actorTable = actor[row.actor_type as keyof typeof actor];
    const actorId = actorTable && this.maps[actorTable].get(Number(row.actor_id));
    if (actorId !== undefined) row.actor_id = actorId;
    const targetTable = target[row.target_type as keyof typeof target];
    const targetId = targetTable && this.maps[targetTable].get(Number(row.target_id));
    if (targetId !== undefined) row.target_id = String(targetId);
  }
}

/**
 * One statement for many rows: PostgreSQL makes them from their JSON, column by column, as
 * `to_jsonb` wrote them. The account is named as a parameter, as every statement names it, so on a
 * Citus cluster the rows go to its shard.
 */
async function insert(tx: Transaction, table: TransferTable, rows: Row[], accountId: number): Promise<void> {
  const columns = sql.join(
    table.columns.map((column) => sql.identifier(column)),
    sql`, `,
  );
  const values = sql.join(
    table.columns.map((column) => (column === 'account_id' ? sql`${accountId}::int` : sql`r.${sql.identifier(column)}`)),
    sql`, `,
  );
  await tx.execute(
    sql`insert into ${sql.identifier(table.name)} (${columns}) overriding system value select ${values} from jsonb_populate_recordset(null::${sql.identifier(table.name)}, ${JSON.stringify(rows)}::jsonb) r`,
  );
}

/** The table's identity is moved past the ids the import kept, so the next row drawn does not meet one. */
async function advanceIdentity(tx: Transaction, table: TransferTable, accountId: number): Promise<void> {
  const column = table.identity!;
  const sequence = sql`pg_get_serial_sequence(${table.name}, ${column})`;
  await tx.execute(
    sql`select setval(${sequence}, m.id) from (select max(${sql.identifier(column)}) as id from ${sql.identifier(table.name)} where account_id = ${accountId}) m
      where m.id > coalesce(pg_sequence_last_value(${sequence}::regclass), 0)`,
  );
}
