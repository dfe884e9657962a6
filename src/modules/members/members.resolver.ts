import { GraphQLJSONObject } from 'graphql-scalars';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { invalidParameter } from '../../core/errors.js';
import { selectedFields, selectsOnly } from '../../core/selection.js';
import { extendedNode, memberDomainsOf, memberReadsOf, pickFields, serviceSummaryFields, toMember, toServiceLink, toServiceSummary, type ReadWithMember } from './members.mapping.js';
import * as members from './members.service.js';
import type { MemberScope, MemberResult } from './members.service.js';
import { findMember, readWith } from './members.queries.js';
import { refreshMemberSegments } from '../segments/segment-membership.js';
import { optInMember, registrationSegment } from '../segments/optins.service.js';
import {
  LoginInput,
  Member,
  MemberDomain,
  MemberEnvelope,
  MemberLookupInput,
  MemberProfileInput,
  RegisterMemberInput,
  ResetPasswordInput,
  ServiceCredentialsInput,
  ServiceLink,
  UpdateMemberInput,
  VerifyEmailInput,
  VisitInput,
} from './members.types.js';
import { isId } from '../../lib/ids.js';
import { ageInYears } from '../../lib/time.js';

function scopeOf(context: Context, caller: ApplicationCaller): MemberScope {
  return {
    db: context.database.db,
    accountId: caller.accountId,
    applicationId: caller.applicationId,
    settings: caller.settings,
    identity: context.identity,
    clientAddress: context.clientAddress,
  };
}

function memberId(value: string, param = 'id'): number {
  const id = Number(value);
  if (!isId(id)) throw invalidParameter(param, 'expected a member id');
  return id;
}

async function envelope(context: Context, caller: ApplicationCaller, result: MemberResult): Promise<MemberEnvelope> {
  const jwt = await context.identity.signingKeys.sign({
    accountId: caller.accountId,
    applicationId: caller.applicationId,
    memberId: result.member.id,
  });
  return { member: toMember(result.member), jwt, created: result.created };
}

@Resolver(() => Member)
export class MemberResolver {
  @Authorized()
  @Query(() => Member, { description: 'One member, found by exactly one of the lookup fields; not found otherwise.' })
  async member(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('lookup', () => MemberLookupInput) lookup: MemberLookupInput,
    @Arg('refresh', () => Boolean, { defaultValue: false, description: "Recompute the member's place in every filter segment first." }) refresh: boolean,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Member> {
    // What the fields ask for (services, domains, opt-ins) is read with the member, unless a refresh
    // may change the opt-ins after it is read.
    const row = await members.lookupMember(context.database.db, caller.accountId, lookup, refresh ? undefined : memberReadsOf(info));
    if (refresh) await refreshMemberSegments(context.database.db, caller.accountId, row.id);
    // Fields that need the whole row (accessToken, extended) find it here instead of reading it again.
    context.loaders.members.rows.prime(row.id, row);
    return toMember(row);
  }

  @Authorized('member')
  @Query(() => Member, { nullable: true, description: 'The signed-in member, for callers holding a member JWT.' })
  async viewer(@Ctx() context: Context): Promise<Member | null> {
    const { caller } = context;
    if (caller.kind !== 'member') return null;
    const row = await findMember(context.database.db, caller.accountId, caller.memberId);
    return row ? toMember(row) : null;
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, { description: 'Creates a member, or returns the one who has this identity.' })
  async registerMember(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('input', () => RegisterMemberInput) input: RegisterMemberInput) {
    const scope = scopeOf(context, caller);
    // Checked before anything is written: an unknown segment refuses the whole registration.
    const segment = await registrationSegment(scope.db, scope.accountId, input.segmentId);
    const result = input.memberId
      ? await members.attachService(scope, memberId(input.memberId), input.credentials, input.profile, input.visit, input.importCode)
      : await members.registerMember(scope, input);
    if (segment) await optInMember(scope, result.member.id, segment);
    return envelope(context, caller, result);
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, { description: 'Adds an identity to a member, or updates it.' })
  async attachService(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('memberId', () => ID) id: string,
    @Arg('credentials', () => ServiceCredentialsInput) credentials: ServiceCredentialsInput,
    @Arg('profile', () => MemberProfileInput, { nullable: true }) profile: MemberProfileInput | null,
    @Arg('visit', () => VisitInput, { nullable: true }) visit: VisitInput | null,
    @Arg('importCode', () => String, { nullable: true, description: "The caller's consistent import code; replaces the member's." })
    importCode: string | null,
    @Arg('segmentId', () => ID, { nullable: true, description: 'A list segment of the account the member is opted into.' })
    segmentId: string | null,
  ) {
    const scope = scopeOf(context, caller);
    // Checked before anything is written, as at registration: an unknown segment refuses the call.
    const segment = await registrationSegment(scope.db, scope.accountId, segmentId);
    const result = await members.attachService(scope, memberId(id), credentials, profile ?? undefined, visit ?? undefined, importCode);
    if (segment) await optInMember(scope, result.member.id, segment);
    return envelope(context, caller, result);
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, { description: 'Signs a member in and records the login.' })
  async login(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('input', () => LoginInput) input: LoginInput) {
    return envelope(context, caller, await members.login(scopeOf(context, caller), input));
  }

  @Authorized()
  @Mutation(() => MemberEnvelope)
  async updateMember(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('id', () => ID) id: string, @Arg('input', () => UpdateMemberInput) input: UpdateMemberInput) {
    return envelope(context, caller, await members.updateMemberProfile(scopeOf(context, caller), memberId(id), input));
  }

  @Authorized('advanced')
  @Mutation(() => MemberEnvelope, { description: 'A new password for the email identity.' })
  async resetPassword(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('id', () => ID) id: string, @Arg('input', () => ResetPasswordInput) input: ResetPasswordInput) {
    return envelope(context, caller, await members.resetPassword(scopeOf(context, caller), memberId(id), input));
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, { description: 'Marks an email verified and merges members sharing it; registering application only.' })
  async verifyEmail(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('id', () => ID) id: string, @Arg('input', () => VerifyEmailInput) input: VerifyEmailInput) {
    return envelope(context, caller, await members.verifyEmail(scopeOf(context, caller), memberId(id), input));
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, { description: "Merges another member into this one; that member's access token is the proof." })
  async mergeMembers(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('intoId', () => ID) intoId: string,
    @Arg('fromId', () => ID) fromId: string,
    @Arg('fromAccessToken', () => String) fromAccessToken: string,
  ) {
    return envelope(context, caller, await members.mergeMembers(scopeOf(context, caller), memberId(intoId), memberId(fromId, 'from'), fromAccessToken));
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'Deletes a member and everything that is theirs.' })
  deleteMember(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('id', () => ID) id: string): Promise<boolean> {
    return members.deleteMember(scopeOf(context, caller), memberId(id));
  }

  @Authorized('advanced')
  @Mutation(() => ServiceLink, { description: "New tokens for one of the member's networks, through that network." })
  async refreshServiceTokens(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('id', () => ID) id: string, @Arg('network', () => String) network: string) {
    const row = await members.refreshServiceTokens(scopeOf(context, caller), memberId(id), network);
    return toServiceLink(row, await context.loaders.members.domains.load(row.memberId), context);
  }

  @FieldResolver(() => String, { nullable: true, description: 'A fresh JWT for this member, signed for the calling application.' })
  async jwt(@Root() member: Member, @Ctx() context: Context): Promise<string | null> {
    if (context.caller.kind !== 'application') return null;
    const { accountId, applicationId } = context.caller;
    return context.identity.signingKeys.sign({ accountId, applicationId, memberId: member.id });
  }

  @FieldResolver(() => Int, { nullable: true, description: 'Whole years since birthDate, in UTC today; null without a birth date.' })
  age(@Root() member: Member): number | null {
    return member.birthDate ? ageInYears(member.birthDate) : null;
  }

  @FieldResolver(() => [ServiceLink])
  services(@Root() member: Member & ReadWithMember, @Ctx() context: Context, @Info() info: GraphQLResolveInfo): ServiceLink[] | Promise<ServiceLink[]> {
    // Asking for network, user id and validity reads those columns only; domains only when asked
    // for. Read with the member (member(id), a members listing) when its statement read them.
    if (selectsOnly(info, serviceSummaryFields)) {
      const read = member[readWith]?.serviceSummaries;
      if (read) return read.map(toServiceSummary);
      return context.loaders.members.serviceSummaries.load(member.id).then((rows) => rows.map(toServiceSummary));
    }
    return this.serviceLinks(member, context, selectedFields(info).has('domains'));
  }

  private async serviceLinks(member: Member & ReadWithMember, context: Context, withDomains: boolean): Promise<ServiceLink[]> {
    const read = member[readWith];
    const [rows, domains] = await Promise.all([
      read?.services ?? context.loaders.members.services.load(member.id),
      withDomains ? (read?.domains ?? context.loaders.members.domains.load(member.id)) : [],
    ]);
    return rows.map((row) => toServiceLink(row, domains, context));
  }

  @FieldResolver(() => [MemberDomain], { description: 'Websites the member registered on or signed in from.' })
  async domains(@Root() member: Member & ReadWithMember, @Ctx() context: Context): Promise<MemberDomain[]> {
    return memberDomainsOf(member[readWith]?.domains ?? (await context.loaders.members.domains.load(member.id)));
  }

  @FieldResolver(() => String, { nullable: true, description: 'The member access token: for API-key callers only.' })
  async accessToken(@Root() member: Member, @Ctx() context: Context): Promise<string | null> {
    if (context.caller.kind !== 'application') return null;
    const row = await context.loaders.members.rows.load(member.id);
    return row ? members.accessTokenOf(context.identity, row) : null;
  }

  @FieldResolver(() => GraphQLJSONObject, { description: 'Profile, domains, network profiles and custom fields; `fields` keeps dotted paths.' })
  async extended(
    @Root() member: Member,
    @Ctx() context: Context,
    @Arg('fields', () => [String], { nullable: true }) fields: string[] | null,
  ): Promise<Record<string, unknown>> {
    if (context.caller.kind !== 'application' && context.caller.kind !== 'member') return {};
    const [row, services, domains] = await Promise.all([
      context.loaders.members.rows.load(member.id),
      this.serviceLinks(member, context, true),
      this.domains(member, context),
    ]);
    if (!row) return {};
    return pickFields(extendedNode(row, services, domains), fields ?? undefined);
  }
}
