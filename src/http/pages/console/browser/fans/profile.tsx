import { useState, type FormEvent } from 'react';
import { UpdateFanDocument, type FanProfileInput } from '../generated/graphql.js';
import { Field, FormError, Status, dateTime, fieldError, number, formText } from '../ui.js';
import { useMutation } from '../use-query.js';
import type { FanDetail } from './fan-page.js';

const fields: { name: Exclude<keyof FanProfileInput & keyof FanDetail, 'gender'> | 'gender'; label: string; type?: string; hint?: string }[] = [
  { name: 'firstName', label: 'First name' },
  { name: 'surname', label: 'Surname' },
  { name: 'email', label: 'Email address', type: 'email' },
  { name: 'username', label: 'Username' },
  { name: 'country', label: 'Country', hint: 'Two letters: GB, BR, US…' },
  { name: 'gender', label: 'Gender', hint: 'M, F or OTHER' },
  { name: 'birthDate', label: 'Birth date', type: 'date' },
];

/**
 * The profile, editable when the fan's record allows it. Saving is pessimistic: the form shows what
 * the server kept, after it answered; a refusal is shown against the field it names.
 */
export function ProfileTab({ fan, onSaved }: { fan: FanDetail; onSaved: () => void }) {
  const update = useMutation(UpdateFanDocument);
  const [saved, setSaved] = useState<string>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(undefined);
    const form = new FormData(event.currentTarget);
    // The server validates (the form has noValidate): its refusal is shown on the field it names.
    // Only what changed is sent, so the audit entry names only those fields.
    const input: FanProfileInput = {};
    for (const field of fields) {
      const value = formText(form, field.name).trim();
      if (value !== (fan[field.name] ?? '')) (input as Record<string, string | null>)[field.name] = value === '' ? null : value;
    }
    if (Object.keys(input).length === 0) return setSaved('Nothing changed.');
    const answer = await update.run({ id: fan.id, input });
    if (answer) {
      setSaved('Profile saved.');
      onSaved();
    }
  }

  const figures = (
    <dl className="facts">
      <div>
        <dt>Member id</dt>
        <dd>{fan.id}</dd>
      </div>
      <div>
        <dt>Joined</dt>
        <dd>{dateTime(fan.createdAt)}</dd>
      </div>
      <div>
        <dt>Last sign-in</dt>
        <dd>{dateTime(fan.lastLoginAt)}</dd>
      </div>
      <div>
        <dt>Points</dt>
        <dd>{number(fan.standing.points)}</dd>
      </div>
      <div>
        <dt>Rank</dt>
        <dd>{fan.standing.position ?? '—'}</dd>
      </div>
    </dl>
  );

  if (!fan.can.edit) {
    return (
      <>
        {figures}
        <dl className="facts">
          {fields.map((field) => (
            <div key={field.name}>
              <dt>{field.label}</dt>
              <dd>{fan[field.name] ?? '—'}</dd>
            </div>
          ))}
        </dl>
      </>
    );
  }
  return (
    <>
      {figures}
      <form className="card stack profile" noValidate onSubmit={(event) => void submit(event)} aria-label="Edit profile" key={JSON.stringify(fields.map((field) => fan[field.name]))}>
        <div className="form-grid">
          {fields.map((field) => (
            <Field
              key={field.name}
              label={field.label}
              name={field.name}
              type={field.type ?? 'text'}
              autoComplete="off"
              hint={field.hint}
              defaultValue={fan[field.name] ?? ''}
              maxLength={200}
              error={fieldError(update.error, field.name)}
            />
          ))}
        </div>
        <FormError error={update.error} fields={fields.map((field) => field.name)} />
        <div className="row">
          <button type="submit" className="primary" disabled={update.pending}>
            {update.pending ? 'Saving…' : 'Save profile'}
          </button>
          <Status message={saved} />
        </div>
      </form>
    </>
  );
}
