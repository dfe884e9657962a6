import { AuditEventsDocument, DeleteMemberDocument, MemberExportDocument, type AuditEventsQuery, type AuditFilter } from '../../generated/graphql.js';
import { invalidParameter } from '../../core/errors.js';
import { formatTimestamp } from '../../lib/time.js';
import { routeParams } from '../error-params.js';
import { deleteRoute, idFromPath } from '../route-forms.js';
import { defineRoute } from '../route.js';
import type { Params } from '../params.js';

/** A page of the audit log holds at most this many entries (modules/audit, maxAuditPage). */
const maxAuditLimit = 200;

/** `actor`: a kind alone (`api_key`, `staff`, `system`) or a kind and its id (`api_key:12`, `staff:3`). */
function actorOf(params: Params): Pick<AuditFilter, 'actorType' | 'actorId'> {
  const value = params.boundedString('actor', 40);
  if (value === undefined) return {};
  const match = /^(api_key|staff|system)(?::(\d{1,10}))?$/i.exec(value.trim());
  if (!match || (match[1].toLowerCase() === 'system' && match[2])) throw invalidParameter('actor', 'expected api_key, staff or system, or api_key:<key id> or staff:<staff id>');
  return { actorType: match[1].toLowerCase(), ...(match[2] ? { actorId: match[2] } : {}) };
}

type AuditNode = AuditEventsQuery['auditEvents']['nodes'][number];

/** One entry of the log as the interface's records are written: named fields, times in UTC. */
function auditRecord(node: AuditNode) {
  return {
    ID: node.id,
    Time: formatTimestamp(new Date(node.occurredAt)),
    ActorType: node.actor.type,
    ActorID: node.actor.id,
    ActorLabel: node.actor.label,
    Action: node.action,
    TargetType: node.target?.type ?? null,
    TargetID: node.target?.id ?? null,
    Outcome: node.outcome,
    Details: node.details,
    IP: node.ip,
    UserAgent: node.userAgent,
    RequestID: node.requestId,
  };
}

export const auditLogRoute = defineRoute({
  methods: ['GET'],
  path: '/account/audit',
  description:
    'The account\'s audit log, newest first: every change made with the account\'s API keys, by its staff and by the CLI (docs/console.md, "Audit log"). ' +
    'Any application key of the account reads it. `limit` is 1 to 200 (default 50); the next page is `cursor=<nextCursor>`.',
  response: 'AuditLog',
  examples: { action: 'fan.erase', from: '2024-01-01 00:00:00' },
  document: AuditEventsDocument,
  variables(params) {
    const { offset, limit } = params.limit('limit', { limit: 50, max: maxAuditLimit });
    if (offset > 0) throw invalidParameter('limit', "the log pages by cursor: give 'n' alone and pass nextCursor as cursor");
    const member = params.string('member');
    if (member !== undefined && !/^\d{1,10}$/.test(member)) throw invalidParameter('member', 'expected a member id');
    const filter: AuditFilter = {
      ...actorOf(params),
      action: params.boundedString('action', 60),
      memberId: member,
      from: params.timestamp('from')?.toISOString(),
      to: params.timestamp('to')?.toISOString(),
    };
    return { filter, first: limit, after: params.boundedString('cursor', 200) };
  },
  errorParam: routeParams({ actorType: 'actor', actorId: 'actor', memberId: 'member', after: 'cursor', first: 'limit' }),
  shape: ({ auditEvents }) => ({
    totalSize: auditEvents.nodes.length,
    items: auditEvents.nodes.map(auditRecord),
    hasMore: auditEvents.pageInfo.hasNextPage,
    nextCursor: auditEvents.pageInfo.hasNextPage ? auditEvents.pageInfo.endCursor : null,
  }),
});

export const memberExportRoute = defineRoute({
  methods: ['GET'],
  path: '/member/:id/export',
  description:
    'Everything stored about a member, as one JSON document (GDPR articles 15 and 20; docs/privacy.md lists its parts, times in ISO 8601). A merged member’s id answers as the survivor. Recorded in the audit log as fan.export.',
  response: 'MemberExport',
  document: MemberExportDocument,
  variables: idFromPath,
  shape: ({ memberExport }) => memberExport,
});

export const deleteMemberRoute = deleteRoute(
  '/member/:id/delete',
  'Erase a member (GDPR article 17): the member, their services, opt-ins, records, rollups and kept totals, sessions, tokens and mails; statistics and rankings answer as if the member had never been. Recorded in the audit log as fan.erase.',
  DeleteMemberDocument,
);

export const privacyRoutes = [memberExportRoute, deleteMemberRoute, auditLogRoute];
