// The console's small building blocks on native elements: labelled fields whose server error is
// tied to them, a modal <dialog>, tables that turn into blocks on a phone, and a cursor pager.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import type { RequestError } from './request.js';

export function fieldError(error: RequestError | undefined, name: string): string | undefined {
  // The server names an input's field as `email` or by its path, `input.email`.
  return error?.param && (error.param === name || error.param.endsWith(`.${name}`)) ? error.message : undefined;
}

/** A form's error that names no field of it (a field's own error is shown beside the field). */
export function FormError({ error, fields = [] }: { error?: RequestError; fields?: string[] }) {
  if (!error || fields.some((name) => fieldError(error, name))) return null;
  return (
    <p className="error" role="alert">
      {error.message}
    </p>
  );
}

interface FieldProps extends React.InputHTMLAttributes<HTMLInputElement> {
  label: string;
  name: string;
  error?: string;
  hint?: string;
}

/** A labelled input; the server's error about it is read out with it (aria-describedby, aria-invalid). */
export function Field({ label, name, error, hint, ...input }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={described} {...input} />
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

/** A modal dialog (showModal: focus kept inside, Esc closes, the page behind inert) while `open`. */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>
  );
}

export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
  numeric?: boolean;
}

/** A table with a caption and column headers; below 600 px each row is a block, each cell captioned by its column (data-label). */
export function Table<T>({ caption, columns, rows, rowKey, empty }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string; empty: string }) {
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  return (
    <table className="blocks">
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.label} scope="col" className={column.numeric ? 'numeric' : undefined}>
              {column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((column) => (
              <td key={column.label} data-label={column.label} className={column.numeric ? 'numeric' : undefined}>
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "Previous" and "Next" over a cursor list; the cursors walked so far are kept by the caller (in the URL). */
export function Pager({ hasPrevious, hasNext, onPrevious, onNext }: { hasPrevious: boolean; hasNext: boolean; onPrevious: () => void; onNext: () => void }) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <div className="pager">
      <button type="button" onClick={onPrevious} disabled={!hasPrevious}>
        Previous
      </button>
      <button type="button" onClick={onNext} disabled={!hasNext}>
        Next
      </button>
    </div>
  );
}

/** A polite live region: what just happened, read out once. */
export function Status({ message, kind = 'info' }: { message?: string; kind?: 'info' | 'error' }) {
  return (
    <p className={`status status-${kind}`} role="status" aria-live="polite">
      {message ?? ''}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p className="loading">Loading {what}…</p>;
}

export function dateTime(value: string | null | undefined): string {
  if (!value) return '—';
  return new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function number(value: number): string {
  return new Intl.NumberFormat().format(value);
}

/** A form's text field by name ('' when absent: a file input is never read this way). */
export function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}
