import { useRef, useState, type ChangeEvent } from 'react';
import { saveBlob, streamCsv } from '../download.js';
import { SegmentsDocument, type SegmentsQuery } from '../generated/graphql.js';
import { Field, Loading, Status, Table, dateTime, number } from '../ui.js';
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
      {canExport && <FilterExport />}
    </>
  );
}

/**
 * "Export fans by filter": the fans a few of the member filter's conditions keep, as CSV, without
 * saving a segment first. The form writes the same parameters /v1.1 takes (country, services,
 * brandid, paid_only, optedin) into the export's address; the server checks them.
 */
function FilterExport() {
  const [filter, setFilter] = useState({ country: '', services: '', brandid: '', paid: false, optedIn: false });
  const query = new URLSearchParams();
  if (filter.country.trim()) query.set('country', filter.country.trim());
  if (filter.services.trim()) query.set('services', filter.services.trim());
  if (filter.brandid.trim()) query.set('brandid', filter.brandid.trim());
  if (filter.paid) query.set('paid_only', '1');
  if (filter.optedIn) query.set('optedin', '1');
  const text = (name: 'country' | 'services' | 'brandid') => ({
    name,
    value: filter[name],
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      const value = event.currentTarget.value;
      setFilter((previous) => ({ ...previous, [name]: value }));
    },
  });
  return (
    <section className="card stack" aria-labelledby="filter-export-heading">
      <h2 id="filter-export-heading">Export fans by filter</h2>
      <div className="filters">
        <Field label="Countries" hint="ISO codes, comma-separated (GB,IE)" {...text('country')} />
        <Field label="Networks" hint="spotify,youtube…" {...text('services')} />
        <Field label="Brand id" inputMode="numeric" {...text('brandid')} />
        <div className="check">
          <input id="filter-paid" type="checkbox" checked={filter.paid} onChange={(event) => setFilter({ ...filter, paid: event.currentTarget.checked })} />
          <label htmlFor="filter-paid">Paid accounts only</label>
        </div>
        <div className="check">
          <input id="filter-opted-in" type="checkbox" checked={filter.optedIn} onChange={(event) => setFilter({ ...filter, optedIn: event.currentTarget.checked })} />
          <label htmlFor="filter-opted-in">Opted in only</label>
        </div>
      </div>
      <CsvExport path={`/console/fans/export.csv?${query}`} name="the filtered fans" />
    </section>
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
