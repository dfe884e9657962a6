/**
 * An account's export: gzip-compressed JSON lines. The first line is the header, then one line per
 * row (`{"t": table, "r": row}`, the row as PostgreSQL's `to_jsonb` writes it), table after table in
 * transferTables' order, and a last line that closes it (`{"end": true, "rows": n}`): an import
 * that does not reach it was given a cut file, and writes nothing.
 */
export const exportFormat = 'marquee-account';
export const exportVersion = 1;

export interface ExportHeader {
  format: typeof exportFormat;
  version: typeof exportVersion;
  /** When the newest migration of the source was created (drizzle's record): the target must be at the same one. */
  migration: number;
  exportedAt: string;
  account: { id: number; name: string };
  /** Rows per table, in the order they follow. */
  counts: Record<string, number>;
}

/** Every row the export holds, by its header's counts. */
export function exportRows(header: Pick<ExportHeader, 'counts'>): number {
  return Object.values(header.counts).reduce((sum, n) => sum + n, 0);
}

export interface ExportEnd {
  end: true;
  rows: number;
}

/** Rows moved so far of a table, and of the whole account, for a progress bar. */
export type TransferProgress = (step: { table: string; rows: number; total: number }) => void;
