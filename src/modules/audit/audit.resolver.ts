import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { invalidParameter } from '../../core/errors.js';
import { isId } from '../../lib/ids.js';
import { listAuditEvents, type AuditEventRow, type AuditFilter } from './audit.js';
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
    @Arg('first', () => Int, { nullable: true, defaultValue: 50, description: 'Entries per page: 1 to 200; more is cut to 200.' }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: 'A cursor (pageInfo.endCursor): the page continues after that entry.' }) after: string | null,
  ): Promise<AuditEventConnection> {
    const page = await listAuditEvents(context.database.db, caller.accountId, auditFilterOf(filter), { first: first ?? 50, after: after ?? undefined });
    return {
      nodes: page.events.map(toAuditEvent),
      pageInfo: { hasNextPage: page.hasNextPage, hasPreviousPage: Boolean(after), startCursor: null, endCursor: page.endCursor ?? null },
    };
  }
}
