import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { auditOriginOf } from '../audit/audit.js';
import { memberId } from '../members/members.envelope.js';
import { eraseMember } from './member-erase.js';
import { exportMember } from './member-export.js';

/** The data requests of the public API: a fan's export (articles 15 and 20) and erasure (article 17), docs/privacy.md. */
@Resolver()
export class PrivacyResolver {
  @Authorized()
  @Query(() => GraphQLJSONObject, {
    description: 'Everything stored about a member, as one JSON document (docs/privacy.md lists its parts; schemaVersion names its layout). ' + 'Recorded in the audit log as fan.export.',
  })
  async memberExport(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The member's id; a merged member's id answers as the survivor." }) id: string,
  ): Promise<Record<string, unknown>> {
    const document = await exportMember(context.database.db, caller.accountId, memberId(id), auditOriginOf(context, caller));
    // Dates as ISO text, as every other answer gives them.
    return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  }

  @Authorized()
  @Mutation(() => Boolean, {
    description:
      'Erases a member and everything personal of theirs (docs/privacy.md): records, rollups and kept totals, opt-ins, services, sessions, ' +
      'tokens and mails; statistics and rankings answer as if the member had never been. Recorded in the audit log as fan.erase.',
  })
  deleteMember(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The member's id; a merged member's id acts on the survivor." }) id: string,
  ): Promise<boolean> {
    return eraseMember(context.database.db, caller.accountId, memberId(id), auditOriginOf(context, caller), context.identity.emailHmac);
  }
}
