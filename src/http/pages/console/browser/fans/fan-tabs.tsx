import { AuditLog } from '../audit/audit-log.js';
import { FanActivityDocument } from '../generated/graphql.js';
import { useCursorTrail } from '../paging.js';
import { Loading, Pager, Table, dateTime, number } from '../ui.js';
import { useQuery } from '../use-query.js';
import type { FanDetail } from './fan-page.js';

export function ServicesTab({ fan }: { fan: FanDetail }) {
  return (
    <Table
      caption="Linked services"
      rows={fan.services}
      rowKey={(service) => `${service.network}:${service.userId}`}
      empty="No service linked."
      columns={[
        { label: 'Network', cell: (service) => service.network },
        { label: 'User id', cell: (service) => service.userId },
        { label: 'Username', cell: (service) => service.username ?? '—' },
        { label: 'Linked', cell: (service) => dateTime(service.linkedAt) },
      ]}
    />
  );
}

export function OptInsTab({ fan }: { fan: FanDetail }) {
  return (
    <Table
      caption="Opt-ins"
      rows={fan.optIns}
      rowKey={(optIn) => optIn.name}
      empty="No opt-in recorded."
      columns={[
        { label: 'Opt-in', cell: (optIn) => optIn.name },
        { label: 'State', cell: (optIn) => (optIn.optedIn ? 'Opted in' : 'Opted out') },
        { label: 'Since', cell: (optIn) => dateTime(optIn.updatedAt) },
      ]}
    />
  );
}

export function ActivityTab({ fanId }: { fanId: string }) {
  const trail = useCursorTrail();
  const answer = useQuery(FanActivityDocument, { id: fanId, first: 25, after: trail.after });
  if (answer.error) return <p className="error">{answer.error.message}</p>;
  if (!answer.data?.fan) return <Loading what="activity" />;
  const { edges, pageInfo } = answer.data.fan.activity;
  return (
    <>
      <Table
        caption="Activity, newest first"
        rows={edges.map((edge) => edge.node)}
        rowKey={(item) => item.id}
        empty="No activity recorded."
        columns={[
          { label: 'When', cell: (item) => dateTime(item.completedAt) },
          { label: 'Activity', cell: (item) => item.activity },
          { label: 'Network', cell: (item) => item.network ?? '—' },
          { label: 'Points', cell: (item) => number(item.points), numeric: true },
        ]}
      />
      <Pager hasPrevious={trail.hasPrevious} hasNext={pageInfo.hasNextPage} onPrevious={trail.previous} onNext={() => trail.next(pageInfo.endCursor)} />
    </>
  );
}

export function SessionsTab({ fan }: { fan: FanDetail }) {
  return (
    <Table
      caption="Sessions"
      rows={fan.sessions}
      rowKey={(session) => session.id}
      empty="No open session."
      columns={[
        { label: 'Started', cell: (session) => dateTime(session.createdAt) },
        { label: 'Last seen', cell: (session) => dateTime(session.lastSeenAt) },
        { label: 'Network', cell: (session) => session.network ?? '—' },
        { label: 'Device', cell: (session) => session.userAgent ?? '—' },
      ]}
    />
  );
}

export function EmailsTab({ fan }: { fan: FanDetail }) {
  return (
    <Table
      caption="Emails sent"
      rows={fan.emails}
      rowKey={(email) => email.id}
      empty="No email sent."
      columns={[
        { label: 'Sent', cell: (email) => dateTime(email.sentAt) },
        { label: 'Kind', cell: (email) => email.kind },
        { label: 'Subject', cell: (email) => email.subject },
        { label: 'Status', cell: (email) => email.status },
      ]}
    />
  );
}

export function AuditTab({ fanId }: { fanId: string }) {
  return <AuditLog fanId={fanId} />;
}
