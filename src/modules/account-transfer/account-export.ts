import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/client.js';
import { appliedMigration } from '../../db/migrations.js';
import { executeRows } from '../../db/rows.js';
import { exportFormat, exportRows, exportVersion, type ExportEnd, type ExportHeader, type TransferProgress } from './transfer-format.js';
import { transferTables, type TransferTable } from './transfer-tables.js';

/** Rows one fetch of a table's cursor reads: a few hundred kilobytes of JSON held at once. */
const fetchRows = 1_000;

/** The statement's condition that picks the account's rows of `table`; the id is a checked integer. */
export function rowsOf(table: TransferTable, accountId: number): string {
  if (table.rowsOf === 'account') return `id = ${accountId}`;
  if (table.rowsOf === 'staff') return `id in (select staff_id from staff_roles where account_id = ${accountId})`;
  return `account_id = ${accountId}`;
}

async function write(out: Writable, line: string): Promise<void> {
  if (!out.write(line + '\n')) await once(out, 'drain');
}

/**
 * Writes one account to `out` (transfer-format.ts), streaming: each table is read through a cursor,
 * a thousand rows at a time, in one read-only snapshot, so a large account is never held in memory
 * and the export is consistent while the gateways keep writing. Answers the rows written.
 */
export async function exportAccount(db: Database, accountId: number, out: Writable, progress: TransferProgress = () => {}): Promise<ExportHeader> {
  if (!Number.isSafeInteger(accountId) || accountId < 1) throw new Error(`No account ${accountId}.`);
  return db.transaction(
    async (tx) => {
      const [account] = await executeRows<{ id: number; name: string }>(tx, sql.raw(`select id, name from accounts where id = ${accountId}`));
      if (!account) throw new Error(`No account ${accountId}.`);
      const migration = await appliedMigration(tx);
      if (migration === undefined) throw new Error('The database has no migration applied: there is no account to export.');
      const counts: Record<string, number> = {};
      for (const table of transferTables) {
        const [row] = await executeRows<{ n: string }>(tx, sql.raw(`select count(*)::text as n from "${table.name}" where ${rowsOf(table, accountId)}`));
        counts[table.name] = Number(row.n);
      }
      const header: ExportHeader = {
        format: exportFormat,
        version: exportVersion,
        migration,
        exportedAt: new Date().toISOString(),
        account: { id: Number(account.id), name: account.name },
        counts,
      };
      await write(out, JSON.stringify(header));
      const total = exportRows(header);
      let rows = 0;
      for (const table of transferTables) {
        rows = await exportTable(tx, table, accountId, out, (done) => progress({ table: table.name, rows: rows + done, total }), rows);
      }
      const end: ExportEnd = { end: true, rows };
      await write(out, JSON.stringify(end));
      return header;
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

async function exportTable(tx: Transaction, table: TransferTable, accountId: number, out: Writable, progress: (done: number) => void, before: number): Promise<number> {
  const prefix = `{"t":${JSON.stringify(table.name)},"r":`;
  await tx.execute(sql.raw(`declare account_export no scroll cursor for select to_jsonb(t)::text as row from "${table.name}" t where ${rowsOf(table, accountId)}`));
  let done = 0;
  for (;;) {
    const batch = await executeRows<{ row: string }>(tx, sql.raw(`fetch forward ${fetchRows} from account_export`));
    // One write a fetch: a write is a compression job of its own, and a job a row took minutes at medium scale.
    if (batch.length) await write(out, batch.map(({ row }) => `${prefix}${row}}`).join('\n'));
    done += batch.length;
    progress(done);
    if (batch.length < fetchRows) break;
  }
  await tx.execute(sql`close account_export`);
  return before + done;
}
