import { useRef, useState } from 'react';
import { saveBlob, streamCsv } from '../download.js';
import { SegmentsDocument, type SegmentsQuery } from '../generated/graphql.js';
import { Loading, Status, Table, dateTime, number } from '../ui.js';
import { useQuery } from '../use-query.js';
import { useCan } from '../viewer.js';

type Segment = SegmentsQuery['segments'][number];

export function SegmentsPage() {
  const answer = useQuery(SegmentsDocument, {});
  const canExport = useCan('segments.export');
  return (
    <>
      <h1>Segments</h1>
      {answer.error ? (
        <p className="error" role="alert">
          {answer.error.message}
        </p>
      ) : !answer.data ? (
        <Loading what="segments" />
      ) : (
        <Table<Segment>
          caption="The account's segments"
          rows={answer.data.segments}
          rowKey={(segment) => segment.id}
          empty="No segment yet."
          columns={[
            { label: 'Segment', cell: (segment) => segment.name },
            { label: 'Label', cell: (segment) => segment.label ?? '—' },
            { label: 'Kind', cell: (segment) => (segment.kind === 'filter' ? 'Filter' : 'List') },
            { label: 'Created', cell: (segment) => dateTime(segment.createdAt) },
            { label: 'Export', cell: (segment) => (canExport ? <CsvExport path={segment.exportUrl} name={segment.name} /> : '—') },
          ]}
        />
      )}
    </>
  );
}

/**
 * "Export CSV": the file streams in while a progress bar counts its rows against the total the
 * server announced (x-total-rows); the status line is read out every tenth of the way; Cancel stops
 * the download (and so the server's reading); at the end the browser saves the file.
 */
export function CsvExport({ path, name }: { path: string; name: string }) {
  const [state, setState] = useState<{ running: boolean; rows: number; total: number; message?: string; kind?: 'info' | 'error' }>({ running: false, rows: 0, total: 0 });
  const controller = useRef<AbortController>(undefined);
  const announced = useRef(-1);

  async function start() {
    const abort = new AbortController();
    controller.current = abort;
    announced.current = -1;
    setState({ running: true, rows: 0, total: 0, message: `Exporting ${name}…`, kind: 'info' });
    try {
      const { blob, filename, progress } = await streamCsv(path, abort.signal, ({ rows, total }) => {
        const tenth = total > 0 ? Math.floor((rows / total) * 10) : 0;
        // The live region speaks at each tenth, not at every chunk.
        const message = tenth > announced.current ? `${name}: ${tenth * 10}% exported (${number(rows)} of ${number(total)} rows).` : undefined;
        if (message) announced.current = tenth;
        setState((previous) => ({ ...previous, rows, total, message: message ?? previous.message }));
      });
      saveBlob(blob, filename);
      setState({ running: false, rows: progress.rows, total: progress.total, message: `${name}: ${number(progress.rows)} rows exported.`, kind: 'info' });
    } catch (error) {
      const cancelled = abort.signal.aborted;
      setState((previous) => ({ ...previous, running: false, message: cancelled ? `${name}: export cancelled.` : (error as Error).message, kind: cancelled ? 'info' : 'error' }));
    }
  }

  return (
    <div className="export">
      {state.running ? (
        <button type="button" onClick={() => controller.current?.abort()}>
          Cancel
        </button>
      ) : (
        <button type="button" onClick={() => void start()} aria-label={`Export CSV of ${name}`}>
          Export CSV
        </button>
      )}
      {(state.running || state.total > 0) && <progress max={Math.max(state.total, 1)} value={Math.min(state.rows, Math.max(state.total, 1))} aria-label={`Export of ${name}`} />}
      <Status message={state.message} kind={state.kind} />
    </div>
  );
}
