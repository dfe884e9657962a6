import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import { auditActions } from '../../../../../modules/audit/audit.actions.js';
import { AuditEventsDocument, type AuditEventsQuery, type AuditFilter } from '../generated/graphql.js';
import { useCursorTrail } from '../paging.js';
import { Loading, Pager, Table, dateTime, formText } from '../ui.js';
import { useQuery } from '../use-query.js';

type AuditRow = AuditEventsQuery['auditEvents']['edges'][number]['node'];

const filterParams = ['actor', 'action', 'fan', 'from', 'to'] as const;

/** A day typed in a date field, as the instant it starts (from) or ends (to), in the viewer's time zone. */
function dayBound(value: string | null, end: boolean): string | undefined {
  if (!value) return undefined;
  const date = new Date(`${value}T00:00:00`);
  if (end) date.setDate(date.getDate() + 1);
  return date.toISOString();
}

function target(row: AuditRow) {
  if (!row.targetType) return '—';
  if (row.targetType === 'fan' && row.targetId) return <Link href={`/fans/${row.targetId}/profile`}>fan {row.targetId}</Link>;
  return `${row.targetType} ${row.targetId ?? ''}`.trim();
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
  const filter: AuditFilter = {
    actor: params.get('actor') || undefined,
    action: params.get('action') || undefined,
    fanId: fanId ?? (params.get('fan') || undefined),
    from: dayBound(params.get('from'), false),
    to: dayBound(params.get('to'), true),
  };
  const answer = useQuery(AuditEventsDocument, { filter, first: 50, after: trail.after });
  const filtered = filterParams.some((name) => params.get(name));

  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
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
          <label htmlFor="audit-actor">Actor</label>
          <input id="audit-actor" name="actor" defaultValue={params.get('actor') ?? ''} placeholder="Email or key" maxLength={200} />
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
            rows={answer.data.auditEvents.edges.map((edge) => edge.node)}
            rowKey={(row) => row.id}
            empty="No audit entry matches."
            columns={[
              { label: 'When', cell: (row) => dateTime(row.at) },
              { label: 'Actor', cell: (row) => `${row.actor} (${row.actorType.replace('_', ' ')})` },
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
