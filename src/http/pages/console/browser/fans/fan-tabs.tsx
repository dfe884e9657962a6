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
      rowKey={(service) => service.id}
      empty="No service linked."
      columns={[
        { label: 'Network', cell: (service) => service.network },
        { label: 'User id', cell: (service) => service.uid },
        { label: 'Username', cell: (service) => service.username ?? '—' },
        { label: 'Linked', cell: (service) => dateTime(service.createdAt) },
        { label: 'Last sign-in', cell: (service) => dateTime(service.lastLoginAt) },
        { label: 'Token', cell: (service) => (service.valid ? 'Valid' : 'Expired or revoked') },
      ]}
    />
  );
}

export function OptInsTab({ fan }: { fan: FanDetail }) {
  return (
    <Table
      caption="Opt-ins, with their dates"
      rows={fan.optIns}
      rowKey={(optIn) => optIn.id}
      empty="No opt-in recorded."
      columns={[
        { label: 'Opt-in', cell: (optIn) => optIn.segmentName ?? optIn.brandName ?? 'All the account’s mail' },
        { label: 'Kind', cell: (optIn) => optIn.kind },
        { label: 'Opted in', cell: (optIn) => dateTime(optIn.optedInAt) },
        { label: 'Opted out', cell: (optIn) => (optIn.optedOutAt ? dateTime(optIn.optedOutAt) : 'Still in') },
      ]}
    />
  );
}

export function ActivityTab({ fanId }: { fanId: string }) {
  const trail = useCursorTrail();
  const answer = useQuery(FanActivityDocument, { id: fanId, first: 25, after: trail.after });
  if (answer.error) return <p className="error">{answer.error.message}</p>;
  if (!answer.data) return <Loading what="activity" />;
  const { nodes, pageInfo } = answer.data.fan.activity;
  return (
    <>
      <Table
        caption="Activity, newest first"
        rows={nodes}
        rowKey={(item) => item.id}
        empty="No activity recorded."
        columns={[
          { label: 'When', cell: (item) => dateTime(item.completedAt) },
          { label: 'Activity', cell: (item) => item.activityName },
          { label: 'Type', cell: (item) => item.activityType },
          { label: 'Network', cell: (item) => item.service ?? '—' },
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
      empty="No session."
      columns={[
        { label: 'Started', cell: (session) => dateTime(session.createdAt) },
        { label: 'Began with', cell: (session) => session.beganWith },
        { label: 'Expires', cell: (session) => dateTime(session.expiresAt) },
        { label: 'State', cell: (session) => (session.live ? 'Live' : 'Ended') },
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
        { label: 'Queued', cell: (email) => dateTime(email.createdAt) },
        { label: 'Kind', cell: (email) => email.kind },
        { label: 'Subject', cell: (email) => email.subject },
        { label: 'To', cell: (email) => email.recipient },
        { label: 'Status', cell: (email) => (email.sentAt ? `${email.status}, ${dateTime(email.sentAt)}` : email.status) },
      ]}
    />
  );
}

export function AuditTab({ fanId }: { fanId: string }) {
  return <AuditLog fanId={fanId} />;
}
