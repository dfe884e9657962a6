import { GraphQLJSONObject } from 'graphql-scalars';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { selectedFields, selectsOnly } from '../../core/selection.js';
import { extendedNode, memberDomainsOf, openForAnswer, pickFields, serviceSummaryFields, toMember, toServiceLink, toServiceSummary, type ReadWithMember } from './members.mapping.js';
import * as members from './members.service.js';
import { envelope, memberId, scopeOf } from './members.envelope.js';
import { findMember, readWith } from './members.queries.js';
import { LoginInput, lookupOfRef, Member, MemberDomain, MemberEnvelope, MemberRef, ResetPasswordInput, ServiceLink, UpdateMemberInput } from './members.types.js';
import { MemberLoginInput, MemberLoginPayload, MemberUpdateInput, MemberUpdatePayload } from './members.payloads.js';
import { sessionOf, signInPaths } from './members.forms.js';
import { memberRefPath } from './member-ref.js';
import { readCredentials } from './members.credentials.js';
import { updateChecks } from './members.profile.js';
import { AppError, missingParameter } from '../../core/errors.js';
import { validateAllAsync, withUserErrors } from '../../core/user-errors.js';
import { normaliseDomain } from '../../lib/domains.js';
import { checkDecoyPassword } from '../identity/passwords.js';
import { ageInYears } from '../../lib/time.js';
import { revokeMemberSessions, sessionEnded } from './members.sessions.js';

@Resolver(() => Member)
export class MemberResolver {
  @Authorized('member')
  @Query(() => Member, { nullable: true, description: 'The signed-in member, for callers holding a member JWT.' })
  async viewer(@Ctx() context: Context): Promise<Member | null> {
    const { caller } = context;
    if (caller.kind !== 'member') return null;
    const row = await findMember(context.database.db, caller.accountId, caller.memberId);
    // The token's session check rides on this read: a token issued before the member's sessions
    // ended (another generation), or for a member merged away since (the survivor's row), is over.
    if (!row || row.id !== caller.memberId || row.sessionGeneration !== caller.sessionGeneration) throw sessionEnded();
    return toMember(row);
  }

  @Authorized()
  @Mutation(() => MemberLoginPayload, {
    nullable: true,
    description:
      'Signs a member in and records the login: the member and its session, or every problem with the input as user errors ' +
      '(WRONG_PASSWORD; NO_ACCOUNT where the application shows distinct sign-in errors). Too many failed sign-ins is a top-level RATE_LIMITED.',
  })
  async memberLogin(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => MemberLoginInput, { description: 'The identity and where the login came from.' }) input: MemberLoginInput,
  ): Promise<MemberLoginPayload> {
    const scope = scopeOf(context, caller);
    const { result, userErrors } = await withUserErrors(async () => {
      const paths = { credentials: ['input', 'credentials'], domain: ['input', 'visit', 'domain'] };
      await validateAllAsync({ credentials: () => readCredentials(input.credentials, 'login'), domain: () => strictSsoDomain(input) }, (key) => paths[key]);
      return members.login(scope, input).catch((error: unknown) => refusedAsConfigured(error, caller, input));
    }, signInPaths);
    if (!result) return { member: null, session: null, userErrors };
    context.loaders.members.rows.clear(result.member.id).prime(result.member.id, result.member);
    return { member: toMember(result.member), session: await sessionOf(context, caller, result.member), userErrors };
  }

  @Authorized()
  @Mutation(() => MemberUpdatePayload, {
    nullable: true,
    description: "Changes a member's profile: only the fields given, custom fields merged into the stored ones; or every problem with the arguments as user errors, nothing changed.",
  })
  async memberUpdate(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('member', () => MemberRef, { description: "The member to change; another account's member, or none, is NOT_FOUND at its path." }) ref: MemberRef,
    @Arg('input', () => MemberUpdateInput, { description: 'The fields to change.' }) input: MemberUpdateInput,
  ): Promise<MemberUpdatePayload> {
    const scope = scopeOf(context, caller);
    const refPath = memberRefPath(ref);
    const { result, userErrors } = await withUserErrors(
      async () => {
        const { member } = await validateAllAsync({ member: () => members.lookupMember(scope.db, scope.accountId, lookupOfRef(ref)), input: () => updateChecks(input) }, (key) =>
          key === 'member' ? refPath : ['input'],
        );
        return members.updateMemberProfile(scope, member.id, input);
      },
      { params: { id: refPath, email: ['input', 'email'] }, fallback: ['input'] },
    );
    if (!result) return { member: null, userErrors };
    context.loaders.members.rows.clear(result.member.id).prime(result.member.id, result.member);
    return { member: toMember(result.member), userErrors };
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, { description: 'Signs a member in and records the login.', deprecationReason: 'Use memberLogin: user errors as data, and the session in MemberLoginPayload.session.' })
  async login(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('input', () => LoginInput, { description: 'The identity and where the login came from.' }) input: LoginInput) {
    return envelope(context, caller, await members.login(scopeOf(context, caller), input));
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, {
    description: "Changes the member's profile: only the fields given, custom fields merged into the stored ones.",
    deprecationReason: 'Use memberUpdate: the member named by a MemberRef, and every problem with the input as user errors.',
  })
  async updateMember(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The member's id; a merged member's id acts on the survivor." }) id: string,
    @Arg('input', () => UpdateMemberInput, { description: 'The fields to change.' }) input: UpdateMemberInput,
  ) {
    return envelope(context, caller, await members.updateMemberProfile(scopeOf(context, caller), memberId(id), input));
  }

  @Authorized('advanced')
  @Mutation(() => MemberEnvelope, { description: 'A new password for the email identity.' })
  async resetPassword(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The member's id; a merged member's id acts on the survivor." }) id: string,
    @Arg('input', () => ResetPasswordInput, { description: "The email identity and its new password; the member's sessions end." }) input: ResetPasswordInput,
  ) {
    return envelope(context, caller, await members.resetPassword(scopeOf(context, caller), memberId(id), input));
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, {
    description:
      'Ends every session of the member: widget sessions, unspent sign-in tokens and earlier JWTs stop answering, ' +
      'and the member gets a new access token. Answers the member with the new token and a new JWT.',
  })
  async revokeMemberSessions(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The member's id; a merged member's id acts on the survivor." }) id: string,
  ) {
    return envelope(context, caller, await revokeMemberSessions(scopeOf(context, caller), memberId(id)));
  }

  @Authorized('advanced')
  @Mutation(() => ServiceLink, { description: "New tokens for one of the member's networks, through that network." })
  async refreshServiceTokens(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The member's id; a merged member's id acts on the survivor." }) id: string,
    @Arg('network', () => String, { description: "The network identifier of the member's identity to refresh (not email)." }) network: string,
  ) {
    const row = await members.refreshServiceTokens(scopeOf(context, caller), memberId(id), network);
    return toServiceLink(row, await context.loaders.members.domains.load(row.memberId), context);
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'A JWT for this member, signed for the calling application at most a minute ago.',
    deprecationReason: 'Use MemberSession.jwt, the session memberLogin and memberRegister answer.',
  })
  async jwt(@Root() member: Member, @Ctx() context: Context): Promise<string | null> {
    if (context.caller.kind !== 'application') return null;
    const { accountId, applicationId } = context.caller;
    // The token carries the member's session generation, from the row the request reads anyway.
    const row = await context.loaders.members.rows.load(member.id);
    if (!row) return null;
    return context.identity.signingKeys.signRecent({ accountId, applicationId, memberId: row.id, sessionGeneration: row.sessionGeneration });
  }

  @FieldResolver(() => Int, { nullable: true, description: 'Whole years since birthDate, in UTC today; null without a birth date.' })
  age(@Root() member: Member): number | null {
    return member.birthDate ? ageInYears(member.birthDate) : null;
  }

  @FieldResolver(() => [ServiceLink], { description: "The member's identities: email and password, and one per linked network." })
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
    const [rows, domains] = await Promise.all([read?.services ?? context.loaders.members.services.load(member.id), withDomains ? (read?.domains ?? context.loaders.members.domains.load(member.id)) : []]);
    return rows.map((row) => toServiceLink(row, domains, context));
  }

  @FieldResolver(() => [MemberDomain], { description: 'Websites the member registered on or signed in from.' })
  async domains(@Root() member: Member & ReadWithMember, @Ctx() context: Context): Promise<MemberDomain[]> {
    const domains = memberDomainsOf(member[readWith]?.domains ?? (await context.loaders.members.domains.load(member.id)));
    return domains.map((domain) => ({ ...domain, memberId: member.id }));
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'The member access token: for API-key callers only.',
    deprecationReason: 'Use MemberSession.accessToken, the session memberLogin and memberRegister answer.',
  })
  async accessToken(@Root() member: Member, @Ctx() context: Context): Promise<string | null> {
    if (context.caller.kind !== 'application') return null;
    const row = await context.loaders.members.rows.load(member.id);
    return row ? openForAnswer(context, row.accessTokenSealed, { memberId: row.id, field: 'accessToken' }) : null;
  }

  @FieldResolver(() => GraphQLJSONObject, { description: 'Profile, domains, network profiles and custom fields; `fields` keeps dotted paths.' })
  async extended(
    @Root() member: Member,
    @Ctx() context: Context,
    @Arg('fields', () => [String], { nullable: true, description: 'Paths to keep, dotted for nested values (profiles, extended.x); all of the node when left out or empty.' })
    fields: string[] | null,
  ): Promise<Record<string, unknown>> {
    if (context.caller.kind !== 'application' && context.caller.kind !== 'member') return {};
    const [row, services, domains] = await Promise.all([context.loaders.members.rows.load(member.id), this.serviceLinks(member, context, true), this.domains(member, context)]);
    if (!row) return {};
    return pickFields(extendedNode(row, services, domains), fields ?? undefined);
  }
}

@Resolver(() => MemberDomain)
export class MemberDomainResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description: 'The browser user agent given with the latest registration or sign-in on this domain (REST `useragent`); null when none was given.',
  })
  async lastUserAgent(@Root() domain: MemberDomain, @Ctx() context: Context): Promise<string | null> {
    if (domain.memberId === undefined) return null;
    return (await context.loaders.members.userAgents.load(domain.memberId)).get(domain.domain) ?? null;
  }
}

/** Strict single sign-on needs the website the member must have registered on; a website given must be one. */
function strictSsoDomain(input: MemberLoginInput): void {
  const domain = input.visit?.domain?.trim();
  if (input.strictSso && !domain) throw missingParameter('domain', "The parameter 'domain' is required with strict_sso: the website the member must have registered on.");
  if (domain) normaliseDomain(domain);
}

/**
 * An unknown address refused as the application's sign-in errors say: under `uniform`, exactly as
 * a wrong password is, after the same password check (the decoy hash), so neither the answer nor
 * its time tells whether the address is registered. `login` keeps answering NO_ACCOUNT.
 */
async function refusedAsConfigured(error: unknown, caller: ApplicationCaller, input: MemberLoginInput): Promise<never> {
  const unknownAddress = error instanceof AppError && error.extensions.code === 'NO_ACCOUNT' && error.extensions.param === 'email';
  if (!unknownAddress || caller.settings.signInErrors !== 'uniform') throw error;
  await checkDecoyPassword(input.credentials.password ?? '');
  throw new AppError('WRONG_PASSWORD', 'The password is wrong.', 'password');
}
