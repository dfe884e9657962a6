import { useMemo } from 'react';
import { Link, Redirect, Route, Router, Switch, useLocation } from 'wouter';
import type { Permission } from '../../../../modules/staff/permissions.js';
import { AccountPage, TwoFactorSetup } from './account/account.js';
import { ApplicationsPage } from './applications/applications.js';
import { AuditPage } from './audit/audit-log.js';
import { DashboardPage } from './dashboard/dashboard.js';
import { FanPage } from './fans/fan-page.js';
import { FanSearch } from './fans/search.js';
import { ViewerDocument } from './generated/graphql.js';
import { postJson } from './request.js';
import { SegmentsPage } from './segments/segments.js';
import { AcceptInvite, SignIn } from './sign-in.js';
import { StaffPage } from './staff/staff.js';
import { Loading } from './ui.js';
import { useQuery } from './use-query.js';
import { useViewer, ViewerContext, type Viewer } from './viewer.js';

/** The navigation's entries, each shown only to a role that holds its permission. */
const sections: { path: string; label: string; permission?: Permission }[] = [
  { path: '/fans', label: 'Fans', permission: 'fans.read' },
  { path: '/segments', label: 'Segments', permission: 'segments.read' },
  { path: '/dashboard', label: 'Dashboard', permission: 'stats.read' },
  { path: '/audit', label: 'Audit log', permission: 'audit.read' },
  { path: '/staff', label: 'Staff', permission: 'staff.manage' },
  { path: '/applications', label: 'Applications', permission: 'applications.manage' },
  { path: '/account', label: 'Account' },
];

function allowedSections(viewer: Viewer) {
  return sections.filter((section) => !section.permission || viewer.permissions.includes(section.permission));
}

export function App() {
  return (
    <Router base="/console">
      <Console />
    </Router>
  );
}

function Console() {
  const viewer = useQuery(ViewerDocument, {});
  const [location, navigate] = useLocation();
  const state = useMemo(() => (viewer.data?.viewer ? { viewer: viewer.data.viewer, refresh: viewer.refetch } : null), [viewer.data, viewer.refetch]);

  // The one-time link carries its token after `#`, which never reaches a server.
  const inviteToken = location === '/invite' ? window.location.hash.slice(1) : '';
  if (inviteToken) return <AcceptInvite token={inviteToken} onSignedIn={viewer.refetch} />;
  if (!viewer.data && !viewer.error) return <Loading what="the console" />;
  if (viewer.error && !viewer.error.signedOut) {
    return (
      <main className="narrow">
        <h1>Marquee console</h1>
        <p className="error" role="alert">
          {viewer.error.message}
        </p>
      </main>
    );
  }
  if (!state)
    return (
      <SignIn
        onSignedIn={(setUpSecondFactor) => {
          if (setUpSecondFactor) navigate('/account');
          viewer.refetch();
        }}
      />
    );
  return (
    <ViewerContext.Provider value={state}>
      <Shell />
    </ViewerContext.Provider>
  );
}

function Shell() {
  const { viewer, refresh } = useViewer();
  const [location] = useLocation();
  // A session that still owes its second factor reaches nothing else (the server answers nothing else).
  const allowed = viewer.secondFactorOwed ? sections.filter((section) => !section.permission) : allowedSections(viewer);
  const home = allowed[0].path;

  async function signOut() {
    await postJson('/console/session/end', {}).catch(() => undefined);
    refresh();
  }

  return (
    <>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        <p className="brand">
          Marquee <span>console</span>
        </p>
        <nav aria-label="Console">
          <ul>
            {allowed.map((section) => (
              <li key={section.path}>
                <Link href={section.path} aria-current={location === section.path || location.startsWith(`${section.path}/`) ? 'page' : undefined}>
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            {viewer.email} · {viewer.role} · {viewer.account.name}
          </span>
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="content" tabIndex={-1}>
        {viewer.secondFactorOwed ? (
          <>
            <h1>Set up two-factor sign-in</h1>
            <p>The account requires a code from an authenticator app at sign-in. Set yours up to go on.</p>
            <TwoFactorSetup />
          </>
        ) : (
          <Switch>
            <Route path="/">
              <Redirect to={home} replace />
            </Route>
            <Route path="/fans" component={FanSearch} />
            <Route path="/fans/:id">{(params) => <Redirect to={`/fans/${params.id}/profile`} replace />}</Route>
            <Route path="/fans/:id/:tab" component={FanPage} />
            <Route path="/segments" component={SegmentsPage} />
            <Route path="/dashboard" component={DashboardPage} />
            <Route path="/audit" component={AuditPage} />
            <Route path="/staff" component={StaffPage} />
            <Route path="/applications" component={ApplicationsPage} />
            <Route path="/account" component={AccountPage} />
            <Route path="/invite">
              <Redirect to={home} replace />
            </Route>
            <Route>
              <h1>Not found</h1>
              <p>
                No screen of the console is at this address. <Link href={home}>Back to the console</Link>
              </p>
            </Route>
          </Switch>
        )}
      </main>
    </>
  );
}
