import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { listAuditEvents } from '../modules/audit/audit.js';
import { auditConnection, auditFilterOf } from '../modules/audit/audit.resolver.js';
import { AuditEventConnection, AuditFilterInput } from '../modules/audit/audit.types.js';
import { staffCaller, type ConsoleRule } from './auth.js';
import type { ConsoleContext } from './context.js';

/** The console's "Audit log" and a fan's Audit tab: the same reads as the API's auditEvents, for the session's account. */
@Resolver()
export class ConsoleAuditResolver {
  @Authorized<ConsoleRule>('audit.read')
  @Query(() => AuditEventConnection, { description: "The account's audit log, newest first (audit.read): the same entries and filter as the API's auditEvents." })
  async auditEvents(
    @Ctx() context: ConsoleContext,
    @Arg('filter', () => AuditFilterInput, { nullable: true, description: 'Entries matching every field given.' }) filter: AuditFilterInput | null,
    @Arg('first', () => Int, { nullable: true, defaultValue: 50, description: 'Entries per page: 1 to 200; more is cut to 200.' }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: 'A cursor (pageInfo.endCursor): the page continues after that entry.' }) after: string | null,
  ): Promise<AuditEventConnection> {
    const page = await listAuditEvents(context.database.db, staffCaller(context).accountId, auditFilterOf(filter), { first: first ?? 50, after: after ?? undefined });
    return auditConnection(page, after);
  }
}
