import type { Executor } from '../../db/client.js';
import { notFound } from '../../core/errors.js';
import { recordAudit, listAuditEvents, type AuditEventRow, type AuditOrigin } from '../audit/audit.js';
import { findMember, type MemberRow } from '../members/members.queries.js';
import * as q from './privacy.queries.js';

/** The version of the export's layout: raised when a field changes meaning or goes. */
export const memberExportVersion = 1;

type Rows<T extends (...args: never[]) => unknown> = Awaited<ReturnType<T>>;

/**
 * Everything stored about one fan (GDPR articles 15 and 20), as one JSON document. Secrets that
 * open something (network tokens, password hashes, the access token, digests of sessions, tokens
 * and links) are left out: they are the gateway's, not information about the fan. docs/privacy.md
 * lists each part.
 */
export interface MemberExport {
  schemaVersion: number;
  exportedAt: string;
  accountId: number;
  memberId: number;
  /** Members merged into this one: their ids now answer as this member. */
  mergedMemberIds: number[];
  profile: Omit<MemberRow, 'accountId' | 'accessTokenHash' | 'accessTokenSealed' | 'sessionGeneration' | 'mergedIntoId'>;
  services: Rows<typeof q.servicesForExport>;
  optIns: Rows<typeof q.optInsForExport>;
  segments: Rows<typeof q.segmentsForExport>;
  domains: Rows<typeof q.domainsForExport>;
  activityRecords: Rows<typeof q.recordsPage>;
  loginEvents: Rows<typeof q.loginEventsPage>;
  sessions: Rows<typeof q.sessionsForExport>;
  signInTokens: Rows<typeof q.signInTokensForExport>;
  emails: Rows<typeof q.emailsForExport>;
  emailLinks: Rows<typeof q.emailLinksForExport>;
  presaveResults: Rows<typeof q.presaveResultsForExport>;
  /** Audit entries about the fan (target fan, this member id). */
  auditEvents: Omit<AuditEventRow, 'accountId'>[];
}

/** Reads a keyset-paged list whole, one bounded statement per page. */
async function allPages<Row extends { id: number }>(read: (after: { at: Date; id: number } | undefined) => Promise<Row[]>, at: (row: Row) => Date): Promise<Row[]> {
  const all: Row[] = [];
  let after: { at: Date; id: number } | undefined;
  for (;;) {
    const page = await read(after);
    all.push(...page);
    if (page.length < q.exportPageSize) return all;
    const last = page[page.length - 1];
    after = { at: at(last), id: last.id };
  }
}

async function auditAbout(db: Executor, accountId: number, memberId: number) {
  const events: AuditEventRow[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listAuditEvents(db, accountId, { targetType: 'fan', targetId: String(memberId) }, { first: 200, after });
    events.push(...page.events);
    if (!page.hasNextPage) return events.map(({ accountId: _account, ...event }) => event);
    after = page.endCursor;
  }
}

/**
 * The export of a fan of the account (a merged member's id answers as its survivor; another
 * account's id, or none, is NOT_FOUND), recorded in the audit log as `fan.export` by `origin`.
 */
export async function exportMember(db: Executor, accountId: number, memberId: number, origin: AuditOrigin): Promise<MemberExport> {
  const member = await findMember(db, accountId, memberId);
  if (!member) throw notFound('Member');
  const id = member.id;
  const { accountId: _account, accessTokenHash: _hash, accessTokenSealed: _sealed, sessionGeneration: _generation, mergedIntoId: _merged, ...profile } = member;
  const [mergedMemberIds, addresses] = await Promise.all([q.mergedShellIds(db, accountId, id), q.addressesOf(db, accountId, [id])]);
  const document: MemberExport = {
    schemaVersion: memberExportVersion,
    exportedAt: new Date().toISOString(),
    accountId,
    memberId: id,
    mergedMemberIds,
    profile,
    services: await q.servicesForExport(db, accountId, id),
    optIns: await q.optInsForExport(db, accountId, id),
    segments: await q.segmentsForExport(db, accountId, id),
    domains: await q.domainsForExport(db, accountId, id),
    activityRecords: await allPages(
      (after) => q.recordsPage(db, accountId, id, after),
      (row) => row.completedAt,
    ),
    loginEvents: await allPages(
      (after) => q.loginEventsPage(db, accountId, id, after),
      (row) => row.createdAt,
    ),
    sessions: await q.sessionsForExport(db, accountId, id),
    signInTokens: await q.signInTokensForExport(db, accountId, id),
    emails: await q.emailsForExport(db, accountId, id, addresses),
    emailLinks: await q.emailLinksForExport(db, accountId, id),
    presaveResults: await q.presaveResultsForExport(db, accountId, id),
    auditEvents: await auditAbout(db, accountId, id),
  };
  await recordAudit(db, accountId, origin, { action: 'fan.export', target: { type: 'fan', id: String(id) } });
  return document;
}
