import { csrfHeaders, errorOfBody } from './request.js';

/** Hands a Blob to the browser as a file download (an object URL on a transient link, released after). */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** GETs one of the console's file routes with the session cookie; a refusal throws the server's error. */
export async function fetchFile(path: string, signal?: AbortSignal): Promise<Response> {
  const response = await fetch(path, { headers: csrfHeaders, signal });
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    throw errorOfBody(body, response.status);
  }
  return response;
}

/** The file name the server gave (content-disposition), or the fallback. */
export function fileNameOf(response: Response, fallback: string): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  return /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallback;
}

export interface CsvProgress {
  rows: number;
  total: number;
}

/**
 * Streams a CSV export: reads the body chunk by chunk, counting finished rows against the
 * x-total-rows header as they arrive (a newline inside a quoted cell is not a row's end: quotes
 * are counted, a doubled quote toggling twice), and gives back the whole file as a Blob.
 */
export async function streamCsv(path: string, signal: AbortSignal, onProgress: (progress: CsvProgress) => void): Promise<{ blob: Blob; filename: string; progress: CsvProgress }> {
  const response = await fetchFile(path, signal);
  const total = Number(response.headers.get('x-total-rows') ?? 0);
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let lines = 0;
  let quoted = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    for (const byte of value) {
      if (byte === 0x22) quoted = !quoted;
      else if (byte === 0x0a && !quoted) lines += 1;
    }
    // The first line is the header.
    onProgress({ rows: Math.max(0, lines - 1), total });
  }
  const progress = { rows: Math.max(0, lines - 1), total };
  onProgress(progress);
  return { blob: new Blob(chunks as BlobPart[], { type: 'text/csv' }), filename: fileNameOf(response, 'export.csv'), progress };
}
