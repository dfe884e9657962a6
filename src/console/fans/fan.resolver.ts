import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { recordAudit } from '../../modules/audit/audit.js';
import { endFanSessions, eraseFan, mergeFans, mergePreview, sendFanPasswordReset, updateFan } from '../../modules/fans/fan-actions.js';
import { emailsOfFan, fanId, fanStanding, fanTimeline, loginEventsOfFan, optInsOfFan, requireFan, servicesOfFan, widgetSessionsOfFan } from '../../modules/fans/fan-page.js';
import { staffCaller, type ConsoleRule } from '../auth.js';
import type { ConsoleContext } from '../context.js';
import { fanAbilities, fanScopeOf, toFan } from './fan-mapping.js';
import {
  FanAbilitiesType,
  FanActivityConnectionType,
  FanEmailType,
  FanOptInType,
  FanProfileInput,
  FanServiceType,
  FanSessionType,
  FanSignInType,
  FanStandingType,
  FanType,
  MergePreviewType,
} from './fans.types.js';

/**
 * A fan's page and the changes staff make to a fan. Every field of the page is one statement (the
 * standing a few), read only when asked; opening a fan records `fan.view`, and each change writes
 * its own entry (modules/fans/fan-actions.ts).
 */
@Resolver(() => FanType)
export class FanResolver {
  @Authorized<ConsoleRule>('fans.read')
  @Query(() => FanType, { description: "A fan's page (fans.read); a merged fan's id answers their survivor. Recorded in the audit log as fan.view." })
  async fan(@Ctx() context: ConsoleContext, @Arg('id', () => ID, { description: "The fan's member id." }) id: string): Promise<FanType> {
    const { accountId } = staffCaller(context);
    const member = await requireFan(context.database.db, accountId, fanId(id));
    await recordAudit(context.database.db, accountId, context.audit, { action: 'fan.view', target: { type: 'fan', id: String(member.id) } });
    return toFan(member);
  }

  @FieldResolver(() => FanAbilitiesType, { description: "What the viewer's role allows on this fan." })
  can(@Ctx() context: ConsoleContext): FanAbilitiesType {
    return fanAbilities(staffCaller(context).role);
  }

  @FieldResolver(() => [FanServiceType], { description: "The fan's identities, oldest first." })
  services(@Root() fan: FanType, @Ctx() context: ConsoleContext): Promise<FanServiceType[]> {
    return servicesOfFan(context.database.db, staffCaller(context).accountId, fan.id);
  }

  @FieldResolver(() => [FanOptInType], { description: 'Every opt-in, current and past, newest first.' })
  optIns(@Root() fan: FanType, @Ctx() context: ConsoleContext): Promise<FanOptInType[]> {
    return optInsOfFan(context.database.db, staffCaller(context).accountId, fan.id);
  }

  @FieldResolver(() => FanStandingType, { description: 'Score and rank over the last week.' })
  async standing(@Root() fan: FanType, @Ctx() context: ConsoleContext): Promise<FanStandingType> {
    const standing = await fanStanding(context.database.read, staffCaller(context).accountId, fan.id);
    return { points: standing.points, activityCount: standing.activityCount, position: standing.position, windowStart: standing.window.start, windowEnd: standing.window.end };
  }

  @FieldResolver(() => FanActivityConnectionType, { description: "The fan's activity records, newest first." })
  async activity(
    @Root() fan: FanType,
    @Ctx() context: ConsoleContext,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Records per page, 1 to 100.' }) first: number,
    @Arg('after', () => String, { nullable: true, description: "The page before's endCursor." }) after: string | null,
  ): Promise<FanActivityConnectionType> {
    const page = await fanTimeline(context.database.db, staffCaller(context).accountId, fan.id, { first, after });
    return { nodes: page.records, pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor } };
  }

  @FieldResolver(() => [FanSessionType], { description: "The fan's sign-in widget sessions, newest first (at most 100)." })
  sessions(@Root() fan: FanType, @Ctx() context: ConsoleContext): Promise<FanSessionType[]> {
    return widgetSessionsOfFan(context.database.db, staffCaller(context).accountId, fan.id, fan.sessionGeneration);
  }

  @FieldResolver(() => [FanSignInType], { description: "The fan's registrations and sign-ins, newest first (at most 100)." })
  signIns(@Root() fan: FanType, @Ctx() context: ConsoleContext): Promise<FanSignInType[]> {
    return loginEventsOfFan(context.database.db, staffCaller(context).accountId, fan.id);
  }

  @FieldResolver(() => [FanEmailType], { description: 'Emails queued or sent to the fan, newest first (at most 100).' })
  emails(@Root() fan: FanType, @Ctx() context: ConsoleContext): Promise<FanEmailType[]> {
    return emailsOfFan(context.database.db, staffCaller(context).accountId, fan.id);
  }

  @Authorized<ConsoleRule>('fans.merge')
  @Query(() => MergePreviewType, { description: 'What merging otherId into keepId would do (fans.merge); changes nothing.' })
  async mergePreview(
    @Ctx() context: ConsoleContext,
    @Arg('keepId', () => ID, { description: 'The fan who stays.' }) keepId: string,
    @Arg('otherId', () => ID, { description: 'The fan merged into them.' }) otherId: string,
  ): Promise<MergePreviewType> {
    const preview = await mergePreview(context.database.db, staffCaller(context).accountId, fanId(keepId, 'keepId'), fanId(otherId, 'otherId'));
    return { ...preview, keep: toFan(preview.keep), other: toFan(preview.other) };
  }

  @Authorized<ConsoleRule>('fans.edit')
  @Mutation(() => FanType, { description: "Changes a fan's profile (fans.edit); the audit entry names the fields changed." })
  async updateFan(@Ctx() context: ConsoleContext, @Arg('id', () => ID) id: string, @Arg('input', () => FanProfileInput, { description: 'The fields to change.' }) input: FanProfileInput): Promise<FanType> {
    return toFan(await updateFan(fanScopeOf(context), fanId(id), { ...input }));
  }

  @Authorized<ConsoleRule>('fans.sessions')
  @Mutation(() => FanType, { description: 'Ends every session of the fan: widget sessions, sign-in tokens, member tokens; a new access token (fans.sessions).' })
  async endFanSessions(@Ctx() context: ConsoleContext, @Arg('id', () => ID) id: string): Promise<FanType> {
    return toFan(await endFanSessions(fanScopeOf(context), fanId(id)));
  }

  @Authorized<ConsoleRule>('fans.reset')
  @Mutation(() => Boolean, { description: 'Emails the fan a link to choose a new password, to the address they sign in with (fans.reset).' })
  async sendFanPasswordReset(@Ctx() context: ConsoleContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await sendFanPasswordReset(fanScopeOf(context), fanId(id), context.baseUrl);
    return true;
  }

  @Authorized<ConsoleRule>('fans.merge')
  @Mutation(() => FanType, { description: 'Merges otherId into keepId, as mergePreview said (fans.merge): both fans’ sessions end. Answers the kept fan.' })
  async mergeFans(@Ctx() context: ConsoleContext, @Arg('keepId', () => ID) keepId: string, @Arg('otherId', () => ID) otherId: string): Promise<FanType> {
    return toFan(await mergeFans(fanScopeOf(context), fanId(keepId, 'keepId'), fanId(otherId, 'otherId')));
  }

  @Authorized<ConsoleRule>('fans.erase')
  @Mutation(() => Boolean, {
    description:
      "Erases the fan (fans.erase): everything personal goes, statistics and rankings change as if the fan had never been. confirmEmail must be the fan's email address, any case (a fan without one: their member id).",
  })
  async eraseFan(
    @Ctx() context: ConsoleContext,
    @Arg('id', () => ID) id: string,
    @Arg('confirmEmail', () => String, { description: "The fan's email address, typed as a confirmation." }) confirmEmail: string,
  ): Promise<boolean> {
    await eraseFan(fanScopeOf(context), fanId(id), confirmEmail);
    return true;
  }
}
