import { Link, useLocation, useParams } from 'wouter';
import { FanDocument, type FanQuery } from '../generated/graphql.js';
import { fanName } from '../paging.js';
import { Loading } from '../ui.js';
import { useQuery } from '../use-query.js';
import { useCan } from '../viewer.js';
import { FanActions } from './fan-actions.js';
import { ActivityTab, AuditTab, EmailsTab, OptInsTab, ServicesTab, SessionsTab } from './fan-tabs.js';
import { ProfileTab } from './profile.js';

export type FanDetail = FanQuery['fan'];

const tabs = [
  { id: 'profile', label: 'Profile' },
  { id: 'services', label: 'Services' },
  { id: 'opt-ins', label: 'Opt-ins' },
  { id: 'activity', label: 'Activity' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'emails', label: 'Emails' },
  { id: 'audit', label: 'Audit' },
] as const;

/** A fan's page: their name (or email) as its heading, the actions their record allows, and one routable tab per part of the record. */
export function FanPage() {
  const { id, tab } = useParams<{ id: string; tab: string }>();
  const [, navigate] = useLocation();
  const auditAllowed = useCan('audit.read');
  const answer = useQuery(FanDocument, { id });
  const visibleTabs = tabs.filter((candidate) => candidate.id !== 'audit' || auditAllowed);

  if (answer.error?.code === 'NOT_FOUND') {
    return (
      <>
        <h1>No such fan</h1>
        <p>
          No fan of this account has the id {id}. <Link href="/fans">Search fans</Link>
        </p>
      </>
    );
  }
  if (answer.error) {
    return (
      <>
        <h1>Fan {id}</h1>
        <p className="error" role="alert">
          {answer.error.message}
        </p>
      </>
    );
  }
  if (!answer.data) return <Loading what="the fan" />;
  const fan = answer.data.fan;
  const current = visibleTabs.find((candidate) => candidate.id === tab) ?? visibleTabs[0];

  return (
    <>
      <p className="crumbs">
        <Link href="/fans">Fans</Link> / {fan.id}
      </p>
      <h1>{fanName(fan)}</h1>
      <FanActions fan={fan} onChanged={answer.refetch} onGone={(message) => navigate(`/fans?erased=${encodeURIComponent(message)}`)} />
      <nav aria-label="Fan" className="tabs">
        <ul>
          {visibleTabs.map((candidate) => (
            <li key={candidate.id}>
              <Link href={`/fans/${fan.id}/${candidate.id}`} aria-current={candidate.id === current.id ? 'page' : undefined}>
                {candidate.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <section className="tab-panel" aria-label={current.label}>
        {current.id === 'profile' && <ProfileTab fan={fan} onSaved={answer.refetch} />}
        {current.id === 'services' && <ServicesTab fan={fan} />}
        {current.id === 'opt-ins' && <OptInsTab fan={fan} />}
        {current.id === 'activity' && <ActivityTab fanId={fan.id} />}
        {current.id === 'sessions' && <SessionsTab fan={fan} />}
        {current.id === 'emails' && <EmailsTab fan={fan} />}
        {current.id === 'audit' && <AuditTab fanId={fan.id} />}
      </section>
    </>
  );
}
