import { useState, type FormEvent } from 'react';
import { RecordRetentionDocument, SetRecordRetentionDocument } from '../generated/graphql.js';
import { Field, FormError, Loading, Status, fieldError, formText } from '../ui.js';
import { useMutation, useQuery } from '../use-query.js';

/** How long the account keeps its activity records: shown to everyone, changed by those who manage settings. */
export function RecordRetention({ manages }: { manages: boolean }) {
  const answer = useQuery(RecordRetentionDocument, {});
  const save = useMutation(SetRecordRetentionDocument);
  const [message, setMessage] = useState<string>();
  const retention = answer.data?.recordRetention;

  async function set(months: number | null) {
    const saved = await save.run({ months });
    if (!saved) return;
    const kept = saved.setRecordRetention.months;
    setMessage(kept === null ? 'Every record is kept.' : `Records older than ${kept} months leave within the hour.`);
    answer.refetch();
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = formText(new FormData(event.currentTarget), 'months');
    void set(text === '' ? null : Number(text));
  }

  return (
    <section className="card stack" aria-labelledby="retention-heading">
      <h2 id="retention-heading">Record retention</h2>
      {!retention && <Loading what="the retention" />}
      {retention && (
        <>
          <p>
            {retention.months === null ? 'Every activity record is kept.' : `Activity records older than ${retention.months} months are removed.`} Daily totals, statistics and rankings keep what removed
            records added.
          </p>
          {manages && (
            <form className="stack" onSubmit={submit}>
              <Field
                label="Months of records to keep"
                name="months"
                type="number"
                min={retention.minimumMonths}
                max={retention.maximumMonths}
                defaultValue={retention.months ?? ''}
                error={fieldError(save.error, 'months')}
                hint={`At least ${retention.minimumMonths}, the longest ranking window. Leave empty to keep every record.`}
              />
              <FormError error={save.error} fields={['months']} />
              <button type="submit" className="primary" disabled={save.pending}>
                Save retention
              </button>
            </form>
          )}
        </>
      )}
      <FormError error={answer.error} />
      <Status message={message} />
    </section>
  );
}
