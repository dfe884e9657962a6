import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import { auditActions } from '../../../../../modules/audit/audit.actions.js';
import { AuditEventsDocument, type AuditEventsQuery, type AuditFilter } from '../generated/graphql.js';
import { useCursorTrail } from '../paging.js';
import { Loading, Pager, Table, dateTime, formText } from '../ui.js';
import { useQuery } from '../use-query.js';

type AuditRow = AuditEventsQuery['auditEvents']['nodes'][number];

const filterParams = ['actor', 'actorType', 'action', 'fan', 'from', 'to'] as const;

const actorTypes = [
  { value: 'staff', label: 'Staff' },
  { value: 'api_key', label: 'API key' },
  { value: 'system', label: 'The gateway (CLI, jobs)' },
];

/** `actor=staff:12` in the URL: one actor, chosen by following their name in the list. */
function actorParam(value: string | null): { actorType?: string; actorId?: string } {
  const match = value ? /^(\w+):(\d+)$/.exec(value) : null;
  return match ? { actorType: match[1], actorId: match[2] } : {};
}

/** A day typed in a date field, as the instant it starts (from) or ends (to), in the viewer's time zone. */
function dayBound(value: string | null, end: boolean): string | undefined {
  if (!value) return undefined;
  const date = new Date(`${value}T00:00:00`);
  if (end) date.setDate(date.getDate() + 1);
  return date.toISOString();
}

function target(row: AuditRow) {
  if (!row.target) return '—';
  if (row.target.type === 'fan') return <Link href={`/fans/${row.target.id}/profile`}>fan {row.target.id}</Link>;
  return `${row.target.type} ${row.target.id}`;
}

/** The audit log page: every entry of the account, filtered by the URL's actor, action, fan and dates. */
export function AuditPage() {
  return (
    <>
      <h1>Audit log</h1>
      <AuditLog />
    </>
  );
}

/** The audit list, on its own page or on a fan's Audit tab (then always about that fan). */
export function AuditLog({ fanId }: { fanId?: string }) {
  const [params, setParams] = useSearchParams();
  const trail = useCursorTrail();
  const chosenActor = actorParam(params.get('actor'));
  const filter: AuditFilter = {
    actorType: chosenActor.actorType ?? (params.get('actorType') || undefined),
    actorId: chosenActor.actorId,
    action: params.get('action') || undefined,
    memberId: fanId ?? (params.get('fan') || undefined),
    from: dayBound(params.get('from'), false),
    to: dayBound(params.get('to'), true),
  };
  const filterBy = (name: string, value: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.delete('page');
      next.set(name, value);
      return next;
    });
  const answer = useQuery(AuditEventsDocument, { filter, first: 50, after: trail.after });
  const filtered = filterParams.some((name) => params.get(name));

  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    // The actor chosen from the list stays until cleared.
    if (params.get('actor')) next.set('actor', params.get('actor')!);
    for (const name of filterParams) {
      const value = formText(form, name).trim();
      if (value) next.set(name, value);
    }
    setParams(next);
  }

  return (
    <>
      <form className="filters" onSubmit={apply} aria-label="Filter the audit log" key={params.toString()}>
        <div className="field">
          <label htmlFor="audit-actor-type">Actor</label>
          <select id="audit-actor-type" name="actorType" defaultValue={params.get('actorType') ?? ''}>
            <option value="">Anyone</option>
            {actorTypes.map((type) => (
              <option key={type.value} value={type.value}>
                {type.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <select id="audit-action" name="action" defaultValue={params.get('action') ?? ''}>
            <option value="">Any action</option>
            {Object.keys(auditActions).map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </div>
        {!fanId && (
          <div className="field">
            <label htmlFor="audit-fan">Fan id</label>
            <input id="audit-fan" name="fan" inputMode="numeric" defaultValue={params.get('fan') ?? ''} maxLength={40} />
          </div>
        )}
        <div className="field">
          <label htmlFor="audit-from">From</label>
          <input id="audit-from" name="from" type="date" defaultValue={params.get('from') ?? ''} />
        </div>
        <div className="field">
          <label htmlFor="audit-to">To</label>
          <input id="audit-to" name="to" type="date" defaultValue={params.get('to') ?? ''} />
        </div>
        <div className="row">
          <button type="submit" className="primary">
            Filter
          </button>
          {filtered && (
            <button type="button" onClick={() => setParams({})}>
              Clear filters
            </button>
          )}
        </div>
      </form>
      {params.get('actor') && (
        <p className="chip">
          Only the entries of one actor.{' '}
          <button
            type="button"
            className="link"
            onClick={() =>
              setParams((current) => {
                const next = new URLSearchParams(current);
                next.delete('actor');
                next.delete('page');
                return next;
              })
            }
          >
            Show everyone’s
          </button>
        </p>
      )}
      {answer.error ? (
        <p className="error" role="alert">
          {answer.error.message}
        </p>
      ) : !answer.data ? (
        <Loading what="the audit log" />
      ) : (
        <>
          <Table<AuditRow>
            caption={fanId ? 'Audit entries about this fan, newest first' : 'Audit entries, newest first'}
            rows={answer.data.auditEvents.nodes}
            rowKey={(row) => row.id}
            empty="No audit entry matches."
            columns={[
              { label: 'When', cell: (row) => dateTime(row.occurredAt) },
              {
                label: 'Actor',
                cell: (row) =>
                  row.actor.id ? (
                    <button type="button" className="link" title="Only this actor’s entries" onClick={() => filterBy('actor', `${row.actor.type}:${row.actor.id}`)}>
                      {row.actor.label}
                    </button>
                  ) : (
                    row.actor.label
                  ),
              },
              { label: 'Action', cell: (row) => <span title={auditActions[row.action as keyof typeof auditActions]}>{row.action}</span> },
              { label: 'Target', cell: target },
              { label: 'Outcome', cell: (row) => row.outcome },
              { label: 'Address', cell: (row) => row.ip ?? '—' },
            ]}
          />
          <Pager hasPrevious={trail.hasPrevious} hasNext={answer.data.auditEvents.pageInfo.hasNextPage} onPrevious={trail.previous} onNext={() => trail.next(answer.data?.auditEvents.pageInfo.endCursor)} />
        </>
      )}
    </>
  );
}
