import { useState, type FormEvent } from 'react';
import { fetchFile, fileNameOf, saveBlob } from '../download.js';
import { EndFanSessionsDocument, EraseFanDocument, MergeFansDocument, MergePreviewDocument, SendFanPasswordResetDocument } from '../generated/graphql.js';
import { fanName } from '../paging.js';
import type { RequestError } from '../request.js';
import { Dialog, Field, FormError, Loading, Status, Table, fieldError, number, formText } from '../ui.js';
import { useMutation, useQuery } from '../use-query.js';
import type { FanDetail } from './fan-page.js';

/** The fan's actions, each shown only when the fan's record (`can`, from the viewer's role) allows it. */
export function FanActions({ fan, onChanged, onGone }: { fan: FanDetail; onChanged: () => void; onGone: (message: string) => void }) {
  const [message, setMessage] = useState<{ text: string; kind: 'info' | 'error' }>();
  const [dialog, setDialog] = useState<'erase' | 'merge'>();
  const endSessions = useMutation(EndFanSessionsDocument);
  const sendReset = useMutation(SendFanPasswordResetDocument);
  const [exporting, setExporting] = useState(false);

  const failure = endSessions.error ?? sendReset.error;

  async function exportData() {
    setExporting(true);
    try {
      const response = await fetchFile(`/console/fans/${encodeURIComponent(fan.id)}/export.json`);
      saveBlob(await response.blob(), fileNameOf(response, `fan-${fan.id}.json`));
      setMessage({ text: 'Export downloaded.', kind: 'info' });
    } catch (error) {
      setMessage({ text: (error as Error).message, kind: 'error' });
    } finally {
      setExporting(false);
    }
  }

  return (
    <div className="actions">
      <div className="buttons">
        {fan.can.export && (
          <button type="button" onClick={() => void exportData()} disabled={exporting}>
            Export data
          </button>
        )}
        {fan.can.sessions && (
          <button
            type="button"
            disabled={endSessions.pending}
            onClick={() =>
              void endSessions.run({ id: fan.id }).then((answer) => {
                if (!answer) return;
                setMessage({ text: 'Every session of the fan was ended.', kind: 'info' });
                onChanged();
              })
            }
          >
            End sessions
          </button>
        )}
        {fan.can.reset && (
          <button
            type="button"
            disabled={sendReset.pending || !fan.email}
            onClick={() => void sendReset.run({ id: fan.id }).then((answer) => answer !== undefined && setMessage({ text: `A password reset email was sent to ${fan.email}.`, kind: 'info' }))}
          >
            Send password reset
          </button>
        )}
        {fan.can.merge && (
          <button type="button" onClick={() => setDialog('merge')}>
            Merge
          </button>
        )}
        {fan.can.erase && (
          <button type="button" className="danger" onClick={() => setDialog('erase')}>
            Erase
          </button>
        )}
      </div>
      <Status message={failure?.message ?? message?.text} kind={failure ? 'error' : message?.kind} />
      {fan.can.erase && <EraseDialog fan={fan} open={dialog === 'erase'} onClose={() => setDialog(undefined)} onErased={() => onGone(`${fanName(fan)} was erased.`)} />}
      {fan.can.merge && (
        <MergeDialog
          fan={fan}
          open={dialog === 'merge'}
          onClose={() => setDialog(undefined)}
          onMerged={(other) => {
            setDialog(undefined);
            setMessage({ text: `Fan ${other} was merged into this fan.`, kind: 'info' });
            onChanged();
          }}
        />
      )}
    </div>
  );
}

/** Erase asks for the fan's email typed out: it cannot be undone, and the server checks the same address. */
function EraseDialog({ fan, open, onClose, onErased }: { fan: FanDetail; open: boolean; onClose: () => void; onErased: () => void }) {
  const erase = useMutation(EraseFanDocument);
  const [typed, setTyped] = useState('');
  const expected = fan.email ?? fan.id;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if ((await erase.run({ id: fan.id, confirmEmail: typed.trim() })) !== undefined) onErased();
  }

  return (
    <Dialog
      open={open}
      title={`Erase ${fanName(fan)}?`}
      onClose={() => {
        setTyped('');
        erase.reset();
        onClose();
      }}
    >
      <form method="dialog" className="stack" onSubmit={(event) => void submit(event)}>
        <p className="warning">
          This is irreversible. Everything stored about the fan goes: profile, services, opt-ins, activity and its totals, sessions and emails. The audit log keeps that it happened, without their personal
          data.
        </p>
        <Field
          label={fan.email ? "Type the fan's email to confirm" : "Type the fan's member id to confirm"}
          name="confirmEmail"
          autoComplete="off"
          spellCheck={false}
          value={typed}
          onChange={(event) => setTyped(event.currentTarget.value)}
          hint={expected}
          error={fieldError(erase.error, 'confirmEmail')}
        />
        <FormError error={erase.error} fields={['confirmEmail']} />
        <div className="row end">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="danger" disabled={typed.trim().toLowerCase() !== expected.toLowerCase() || erase.pending}>
            Erase permanently
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Merge: the other fan's id, then the server's preview of what moves into this fan, then the merge itself. */
function MergeDialog({ fan, open, onClose, onMerged }: { fan: FanDetail; open: boolean; onClose: () => void; onMerged: (otherId: string) => void }) {
  const [otherId, setOtherId] = useState<string>();
  const merge = useMutation(MergeFansDocument);
  const close = () => {
    setOtherId(undefined);
    merge.reset();
    onClose();
  };

  return (
    <Dialog open={open} title={`Merge another fan into ${fanName(fan)}`} onClose={close}>
      <form
        method="dialog"
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          setOtherId(formText(new FormData(event.currentTarget), 'otherId').trim());
        }}
      >
        <Field label="The other fan's member id" name="otherId" inputMode="numeric" autoComplete="off" required hint="That fan's record moves into this one, then that fan is gone." />
        <div className="row end">
          <button type="submit">Preview</button>
        </div>
      </form>
      {otherId && (
        <MergePreview
          keepId={fan.id}
          otherId={otherId}
          pending={merge.pending}
          error={merge.error}
          onCancel={close}
          onConfirm={() =>
            void merge.run({ keepId: fan.id, otherId }).then((answer) => {
              if (answer) {
                setOtherId(undefined);
                onMerged(otherId);
              }
            })
          }
        />
      )}
    </Dialog>
  );
}

function MergePreview({ keepId, otherId, pending, error, onCancel, onConfirm }: { keepId: string; otherId: string; pending: boolean; error?: RequestError; onCancel: () => void; onConfirm: () => void }) {
  const preview = useQuery(MergePreviewDocument, { keepId, otherId });
  if (preview.error)
    return (
      <p className="error" role="alert">
        {preview.error.message}
      </p>
    );
  if (!preview.data) return <Loading what="the preview" />;
  const { keep, other, moves, fields, networkConflicts, optInsClosed } = preview.data.mergePreview;
  const movements = [
    { what: 'Activity records', count: moves.records },
    { what: 'Linked services', count: moves.services },
    { what: 'Opt-ins', count: moves.optIns },
  ];
  return (
    <div className="stack">
      <p>
        <strong>{fanName(other)}</strong> ({other.id}) moves into <strong>{fanName(keep)}</strong> ({keep.id}), then {fanName(other)} is gone.
      </p>
      <Table
        caption="What moves"
        rows={movements}
        rowKey={(move) => move.what}
        empty=""
        columns={[
          { label: 'What', cell: (move) => move.what },
          { label: 'Count', cell: (move) => number(move.count), numeric: true },
        ]}
      />
      {fields.length > 0 && (
        <Table
          caption="Profile after the merge"
          rows={fields}
          rowKey={(field) => field.field}
          empty=""
          columns={[
            { label: 'Field', cell: (field) => (field.conflict ? `${field.field} (differs)` : field.field) },
            { label: 'Kept', cell: (field) => field.keep ?? '—' },
            { label: 'Other', cell: (field) => field.other ?? '—' },
            { label: 'Result', cell: (field) => field.result ?? '—' },
          ]}
        />
      )}
      {networkConflicts.length > 0 && <p className="warning">Both fans have a {networkConflicts.join(', ')} account: the kept fan’s stays, the other’s is dropped.</p>}
      {optInsClosed > 0 && <p>{number(optInsClosed)} opt-in(s) held by both are closed on the merged fan.</p>}
      <FormError error={error} />
      <div className="row end">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
          Merge these fans
        </button>
      </div>
    </div>
  );
}
