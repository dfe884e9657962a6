import { Arg, Authorized, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { invalidParameter } from '../../core/errors.js';
import { isId } from '../../lib/ids.js';
import { listAuditEvents, maxAuditPage, type AuditEventRow, type AuditFilter, type AuditPage } from './audit.js';
import { countAuditEvents } from './audit.queries.js';
import { AuditEvent, AuditEventConnection, AuditFilterInput } from './audit.types.js';

export function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: String(row.id),
    occurredAt: row.occurredAt,
    actor: { type: row.actorType, id: row.actorId === null ? null : String(row.actorId), label: row.actorLabel },
    action: row.action,
    target: row.targetType && row.targetId !== null ? { type: row.targetType, id: row.targetId } : null,
    outcome: row.outcome,
    details: row.details,
    ip: row.ip,
    userAgent: row.userAgent,
    requestId: row.requestId,
  };
}

/** A page of the log as its connection: nodes and edges, with `count` for totalCount (the API's field, read on request). */
export function auditConnection(page: AuditPage, after: string | null, count?: () => Promise<number>): AuditEventConnection {
  const nodes = page.events.map(toAuditEvent);
  return {
    nodes,
    edges: nodes.map((node, index) => ({ cursor: page.cursors[index], node })),
    pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: Boolean(after), startCursor: page.cursors[0] ?? null, endCursor: page.endCursor ?? null },
    count,
  };
}

const idOf = (value: string, param: string) => {
  const id = Number(value);
  if (!isId(id)) throw invalidParameter(param, 'expected an id');
  return id;
};

/** The GraphQL filter as the module reads it; `memberId` is the fan target. Errors name the filter's fields. */
export function auditFilterOf(input: AuditFilterInput | null | undefined): AuditFilter {
  const filter: AuditFilter = {};
  if (!input) return filter;
  if (input.actorType != null) filter.actorType = input.actorType;
  if (input.actorId != null) filter.actorId = idOf(input.actorId, 'actorId');
  if (input.action != null) filter.action = input.action;
  if (input.memberId != null && (input.targetType != null || input.targetId != null)) throw invalidParameter('memberId', 'give memberId or targetType and targetId, not both');
  if (input.memberId != null) Object.assign(filter, { targetType: 'fan', targetId: String(idOf(input.memberId, 'memberId')) });
  if (input.targetType != null) filter.targetType = input.targetType;
  if (input.targetId != null) filter.targetId = input.targetId;
  if (input.from != null) filter.from = input.from;
  if (input.to != null) filter.to = input.to;
  return filter;
}

@Resolver()
export class AuditResolver {
  @Authorized()
  @Query(() => AuditEventConnection, {
    description:
      "The account's audit log, newest first: every change made with the account's API keys, by its staff and by the CLI. " +
      "Any application key of the account reads the whole account's log; a member's token and the global key cannot.",
  })
  async auditEvents(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('filter', () => AuditFilterInput, { nullable: true, description: 'Entries matching every field given.' }) filter: AuditFilterInput | null,
    @Arg('first', () => Int, { nullable: true, defaultValue: 50, description: 'Entries per page: 1 to 200 (more is refused).' }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: 'A cursor (pageInfo.endCursor): the page continues after that entry.' }) after: string | null,
    @Arg('last', () => Int, { nullable: true, description: 'Not supported: the log reads newest first from its start, forward only. Refused when given.' }) last: number | null,
    @Arg('before', () => String, { nullable: true, description: 'Not supported: the log reads newest first from its start, forward only. Refused when given.' }) before: string | null,
  ): Promise<AuditEventConnection> {
    if (last !== null && last !== undefined) throw invalidParameter('last', 'the audit log reads forward only: page with first and after');
    if (before) throw invalidParameter('before', 'the audit log reads forward only: page with first and after');
    const size = first ?? 50;
    if (Number.isInteger(size) && size > maxAuditPage) throw invalidParameter('first', `expected at most ${maxAuditPage} entries per page`);
    const filterOf = auditFilterOf(filter);
    const page = await listAuditEvents(context.database.db, caller.accountId, filterOf, { first: size, after: after ?? undefined });
    return auditConnection(page, after, () => countAuditEvents(context.database.db, caller.accountId, filterOf));
  }
}

@Resolver(() => AuditEventConnection)
export class AuditEventConnectionResolver {
  @FieldResolver(() => Int, { description: 'Entries the filter keeps, all pages together; counted only when asked for.' })
  totalCount(@Root() connection: AuditEventConnection): Promise<number> {
    return connection.count ? connection.count() : Promise.resolve(connection.nodes.length);
  }
}
