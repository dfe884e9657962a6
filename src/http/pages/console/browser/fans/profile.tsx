import { useState, type FormEvent } from 'react';
import { UpdateFanDocument, type FanProfileInput } from '../generated/graphql.js';
import { Field, FormError, Status, dateTime, fieldError, number, formText } from '../ui.js';
import { useMutation } from '../use-query.js';
import type { FanDetail } from './fan-page.js';

const fields: { name: keyof FanProfileInput; label: string; type?: string; autoComplete?: string }[] = [
  { name: 'firstName', label: 'First name', autoComplete: 'off' },
  { name: 'lastName', label: 'Last name', autoComplete: 'off' },
  { name: 'email', label: 'Email address', type: 'email', autoComplete: 'off' },
  { name: 'username', label: 'Username', autoComplete: 'off' },
  { name: 'country', label: 'Country (two letters)', autoComplete: 'off' },
  { name: 'gender', label: 'Gender', autoComplete: 'off' },
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
    // Only what changed is sent, so the audit entry names only those fields.
    const input: FanProfileInput = {};
    for (const field of fields) {
      const value = formText(form, field.name).trim();
      if (value !== (fan[field.name] ?? '')) input[field.name] = value === '' ? null : value;
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
        <dt>Points</dt>
        <dd>{fan.score ? number(fan.score.points) : '—'}</dd>
      </div>
      <div>
        <dt>Rank</dt>
        <dd>{fan.score?.rank ? number(fan.score.rank) : '—'}</dd>
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
      <form className="card stack profile" onSubmit={(event) => void submit(event)} aria-label="Edit profile" key={JSON.stringify(fields.map((field) => fan[field.name]))}>
        <div className="form-grid">
          {fields.map((field) => (
            <Field
              key={field.name}
              label={field.label}
              name={field.name}
              type={field.type ?? 'text'}
              autoComplete={field.autoComplete}
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
