import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { Database } from '../../db/client.js';
import { recordAudit, type AuditOrigin } from '../audit/audit.js';
import { exportAccount } from './account-export.js';
import { importAccount, type ImportSummary } from './account-import.js';
import { exportRows, type ExportHeader, type TransferProgress } from './transfer-format.js';

/**
 * An account's export as a file (`marquee account export`, `marquee account import`): gzip over the
 * JSON lines of transfer-format.ts. The file holds what the database holds of the account, secrets
 * sealed and hashed as they are there: it is written for its owner alone (mode 600) and kept like a
 * backup.
 */

/** Writes the export to `file` (under a `.partial` name until it is whole, so a stopped export leaves no file that looks done). */
export async function exportAccountToFile(db: Database, accountId: number, file: string, { progress, origin }: { progress?: TransferProgress; origin: AuditOrigin }): Promise<ExportHeader> {
  if (fs.existsSync(file)) throw new Error(`${file} exists already: give another file.`);
  const partial = `${file}.partial`;
  const gzip = zlib.createGzip();
  const written = pipeline(gzip, fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
  try {
    const header = await exportAccount(db, accountId, gzip, progress);
    gzip.end();
    await written;
    fs.renameSync(partial, file);
    await recordAudit(db, accountId, origin, {
      action: 'account.export',
      target: { type: 'account', id: String(accountId) },
      details: { rows: exportRows(header) },
    });
    return header;
  } catch (error) {
    gzip.destroy();
    await written.catch(() => {});
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

/** Reads an export from `file` into the database, in one transaction (importAccount). */
export function importAccountFromFile(db: Database, file: string, options: { progress?: TransferProgress; origin: AuditOrigin }): Promise<ImportSummary> {
  const gunzip = zlib.createGunzip();
  // A file that cannot be read fails the import as a cut one does.
  fs.createReadStream(file)
    .once('error', (error) => gunzip.destroy(error))
    .pipe(gunzip);
  return importAccount(db, gunzip, options);
}
