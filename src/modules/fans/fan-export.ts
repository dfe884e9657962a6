import { Readable, Transform, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import { and } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { AppError, invalidParameter, notFound } from '../../core/errors.js';
import { compileFilter } from '../../filters/compile.js';
import type { MemberFilter } from '../../filters/member-filter.types.js';
import { listingWindow, resolveWindow } from '../../filters/window.js';
import type { WindowInput } from '../../filters/window.types.js';
import { recordAudit, type AuditOrigin } from '../audit/audit.js';
import { findSegment } from '../segments/segments.queries.js';
import { countExport, exportBatch, exportColumns, type ExportRow, type ExportSource } from './fan-export.queries.js';

export type { ExportSource } from './fan-export.queries.js';

/** Rows per batch: one short statement each; the next is read only once the client took the last. */
export const exportBatchRows = 5000;
/** The most rows one export lists; a larger one is refused before anything is sent (narrow the filter). */
export const maxExportRows = 5_000_000;

/** The fans of a segment of the account (a list segment's current opt-ins, a filter segment's computed members). */
export async function segmentSource(db: Executor, accountId: number, segmentId: number): Promise<ExportSource & { name: string }> {
  const segment = await findSegment(db, accountId, segmentId);
  if (!segment) throw notFound('Segment');
  return { kind: segment.kind === 'filter' ? 'filter-segment' : 'list-segment', accountId, segmentId, name: segment.name };
}

/**
 * The fans a member filter keeps (the listings' filter, rest/filter-params.ts): its member
 * conditions, and those of its activity conditions that can be said of a member (a brand's members,
 * a network identity), as the plain listings read them. The window is the listings' (any-of and
 * all-of activities are read in it).
 */
export async function filterSource(db: Executor, accountId: number, filter: MemberFilter, window: WindowInput | undefined): Promise<ExportSource> {
  const compiled = await compileFilter(db, accountId, filter, resolveWindow(window, listingWindow));
  const conditions = [compiled.member(), compiled.withoutRecords()].filter((condition) => condition !== undefined);
  return { kind: 'filter', accountId, condition: conditions.length ? and(...conditions) : undefined };
}

/** How many rows the export will send: counted before the first byte, so the console can show progress. */
export async function exportTotal(db: Executor, source: ExportSource): Promise<number> {
  const total = await countExport(db, source, maxExportRows);
  if (total > maxExportRows) throw new AppError('INVALID_PARAMETER', `An export lists at most ${maxExportRows.toLocaleString('en')} fans: narrow the filter.`, 'filter');
  return total;
}

/**
 * The source's rows, batch after batch by member id. Run through a stream, the next batch is read
 * only when the stream asks for more (the client took what was sent); when the stream is destroyed
 * (the client went away), the generator is closed and reads nothing more. `onBatch` sees each batch's size.
 */
export async function* exportRows(db: Executor, source: ExportSource, options: { batchRows?: number; onBatch?: (rows: number) => void } = {}): AsyncGenerator<ExportRow> {
  const batchRows = options.batchRows ?? exportBatchRows;
  if (!Number.isInteger(batchRows) || batchRows < 1) throw invalidParameter('batchRows', 'at least 1');
  let after = 0;
  for (;;) {
    const rows = await exportBatch(db, source, after, batchRows);
    options.onBatch?.(rows.length);
    for (const row of rows) yield row;
    if (rows.length < batchRows) return;
    after = rows[rows.length - 1].id;
  }
}

/**
 * The CSV of the rows as a stream: a header, Windows line ends and a byte-order mark (Excel reads
 * UTF-8 then), and every cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab,
 * carriage return first) escaped with a leading quote. Errors of either side end both (pipeline).
 */
export function csvOf(rows: AsyncIterable<ExportRow>, onDone: (error: Error | null | undefined) => void): Transform {
  const stringifier = stringify({ bom: true, escape_formulas: true, record_delimiter: 'windows', header: true, columns: Object.keys(exportColumns) });
  return pipeline(Readable.from(rows), stringifier, onDone);
}

/** The audit entry of an export, written before its first row goes out. */
export function recordExport(db: Executor, accountId: number, origin: AuditOrigin, details: { segmentId?: number; filter?: MemberFilter; rows: number }): Promise<void> {
  const filterFields = details.filter ? Object.keys(details.filter).filter((name) => (details.filter as Record<string, unknown>)[name] !== undefined) : undefined;
  return recordAudit(db, accountId, origin, {
    action: 'segment.export',
    target: details.segmentId !== undefined ? { type: 'segment', id: String(details.segmentId) } : undefined,
    details: { rows: details.rows, ...(filterFields ? { filter: filterFields.sort() } : {}) },
  });
}
