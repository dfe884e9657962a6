import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Ctx, ID, Info, Mutation, Query, Resolver } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { AppError, invalidParameter, missingParameter, notFound } from '../../core/errors.js';
import { envelope, memberId, scopeOf } from '../members/members.envelope.js';
import { memberReadsOf, toMember } from '../members/members.mapping.js';
import { readWith } from '../members/members.queries.js';
import * as members from '../members/members.service.js';
import {
  lookupOfRef,
  Member,
  MemberEnvelope,
  MemberLookupInput,
  MemberProfileInput,
  MemberRef,
  RegisterMemberInput,
  ServiceCredentialsInput,
  VerifyEmailInput,
  VisitInput,
} from '../members/members.types.js';
import { optInMember, registrationSegment } from '../segments/optins.service.js';
import { refreshMemberSegments } from '../segments/segment-membership.js';
import { memberFiguresOf, primeMemberFigures } from '../scoring/member-figures.js';
import * as lifecycle from './lifecycle.service.js';
import { withUserErrors } from '../../core/user-errors.js';
import { checkArguments, sessionOf, signInPaths } from '../members/members.forms.js';
import { MemberRegisterInput, MemberRegisterPayload } from '../members/members.payloads.js';

/**
 * member(ref:): the lookup a MemberRef stands for, its errors naming `ref` (whichever way the
 * member was named: the older lookup named `id` for an email not found too). An id of another
 * account is not found, word for word as an id of nothing.
 */
async function lookupByRef(context: Context, accountId: number, ref: MemberRef, reads: Parameters<typeof members.lookupMember>[3]) {
  try {
    return await members.lookupMember(context.database.db, accountId, lookupOfRef(ref), reads, 'ref');
  } catch (error) {
    if (error instanceof AppError && error.extensions.code === 'NOT_FOUND') throw notFound('Member', 'ref');
    if (error instanceof AppError && error.extensions.code === 'MISSING_PARAMETER') throw missingParameter('ref', 'Name the member with a value: an empty one names nobody.');
    throw error;
  }
}

/**
 * The member's root fields that write beyond the members module: a lookup that first refreshes the
 * member's filter segments, a registration or new identity that opts the member in to a list
 * segment, an email verification or merge that moves records, kept totals, opt-ins and segment
 * memberships (member-merge.ts). The member's own fields and writes are in members.resolver.ts.
 */
@Resolver()
export class MemberLifecycleResolver {
  @Authorized()
  @Query(() => Member, { nullable: true, description: 'One member, named by ref (or by the older lookup); not found otherwise, and for an id of another account alike.' })
  async member(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('lookup', () => MemberLookupInput, {
      nullable: true,
      description: 'How to find the member: id, email, verifiedEmail, partnerCode and partnerId, or network and username. Not with ref.',
      deprecationReason: 'Use ref.',
    })
    lookup: MemberLookupInput | null,
    @Arg('ref', () => MemberRef, { nullable: true, description: 'The member, named in exactly one way (a @oneOf input). Not with lookup.' }) ref: MemberRef | null,
    @Arg('refresh', () => Boolean, { defaultValue: false, description: "Recompute the member's place in every filter segment first." }) refresh: boolean,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Member> {
    if (lookup && ref) throw invalidParameter('ref', 'give ref or lookup, not both');
    if (!lookup && !ref) throw missingParameter('ref', 'Name the member with ref.');
    // What the fields ask for (services, domains, opt-ins, the score and latest record under their
    // defaults) is read with the member, unless a refresh may change the opt-ins after it is read.
    const figures = refresh ? undefined : await memberFiguresOf(context, info);
    const reads = refresh ? undefined : figures ? { ...memberReadsOf(info), beside: figures.beside } : memberReadsOf(info);
    const row = ref ? await lookupByRef(context, caller.accountId, ref, reads) : await members.lookupMember(context.database.db, caller.accountId, lookup!, reads);
    if (figures) primeMemberFigures(context, figures, row.id, row[readWith]?.beside);
    if (refresh) await refreshMemberSegments(context.database.db, caller.accountId, row.id);
    // Fields that need the whole row (accessToken, extended) find it here instead of reading it again.
    context.loaders.members.rows.prime(row.id, row);
    return toMember(row);
  }

  @Authorized()
  @Mutation(() => MemberRegisterPayload, {
    nullable: true,
    description:
      'Creates a member, or answers the one who has this identity (its password must match): the member and its session, ' +
      'or every problem with the input as user errors, nothing written. Too many failed sign-ins is a top-level RATE_LIMITED.',
  })
  async memberRegister(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => MemberRegisterInput, { description: 'The identity, the profile and where the registration came from.' }) input: MemberRegisterInput,
  ): Promise<MemberRegisterPayload> {
    const scope = scopeOf(context, caller);
    const { result, userErrors } = await withUserErrors(async () => {
      // Every argument is checked before anything is written: the form's problems come together.
      const [, segment] = (await checkArguments([
        [['input'], () => members.registrationChecks(input, { newPassword: true })],
        [['input', 'segmentId'], () => registrationSegment(scope.db, scope.accountId, input.segmentId)],
      ])) as [unknown, Awaited<ReturnType<typeof registrationSegment>>];
      const registered = await members.registerMember(scope, input);
      if (segment) await optInMember(scope, registered.member.id, segment);
      return registered;
    }, signInPaths);
    if (!result) return { member: null, session: null, created: null, userErrors };
    context.loaders.members.rows.clear(result.member.id).prime(result.member.id, result.member);
    return { member: toMember(result.member), session: await sessionOf(context, caller, result.member), created: result.created, userErrors };
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, {
    description: 'Creates a member, or returns the one who has this identity.',
    deprecationReason: 'Use memberRegister: user errors as data, and the session in MemberRegisterPayload.session (attachService adds an identity to a member).',
  })
  async registerMember(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => RegisterMemberInput, { description: 'The identity, the profile and where the registration came from.' }) input: RegisterMemberInput,
  ) {
    const scope = scopeOf(context, caller);
    // Checked before anything is written: an unknown segment refuses the whole registration.
    const segment = await registrationSegment(scope.db, scope.accountId, input.segmentId);
    const result = input.memberId
      ? await members.attachService(scope, memberId(input.memberId, 'memberId'), input.credentials, input.profile, input.visit, input.importCode)
      : await members.registerMember(scope, input);
    if (segment) await optInMember(scope, result.member.id, segment);
    return envelope(context, caller, result);
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, { description: 'Adds an identity to a member, or updates it.' })
  async attachService(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('memberId', () => ID, { description: 'The member to attach the identity to.' }) id: string,
    @Arg('credentials', () => ServiceCredentialsInput, { description: 'The identity; one that belongs to another member is a conflict (merge the members instead).' })
    credentials: ServiceCredentialsInput,
    @Arg('profile', () => MemberProfileInput, { nullable: true, description: 'Profile fields to change at the same time.' }) profile: MemberProfileInput | null,
    @Arg('visit', () => VisitInput, { nullable: true, description: 'Where the call came from; recorded as a registration event, and its ip places the member.' }) visit: VisitInput | null,
    @Arg('importCode', () => String, { nullable: true, description: "The caller's consistent import code; replaces the member's." })
    importCode: string | null,
    @Arg('segmentId', () => ID, { nullable: true, description: 'A list segment of the account the member is opted into.' })
    segmentId: string | null,
  ) {
    const scope = scopeOf(context, caller);
    // Checked before anything is written, as at registration: an unknown segment refuses the call.
    const segment = await registrationSegment(scope.db, scope.accountId, segmentId);
    const result = await members.attachService(scope, memberId(id, 'memberId'), credentials, profile ?? undefined, visit ?? undefined, importCode);
    if (segment) await optInMember(scope, result.member.id, segment);
    return envelope(context, caller, result);
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, {
    description:
      "Marks an address verified for this member only; registering application only. It never merges: an address another member holds answers EMAIL_IN_USE (1111), and merging needs that member's access token (mergeMembers).",
  })
  async verifyEmail(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: 'The member whose address was verified.' }) id: string,
    @Arg('input', () => VerifyEmailInput, { description: 'The verified address and the identity that proved it.' }) input: VerifyEmailInput,
  ) {
    return envelope(context, caller, await lifecycle.verifyEmail(scopeOf(context, caller), memberId(id), input));
  }

  @Authorized()
  @Mutation(() => MemberEnvelope, { description: "Merges another member into this one; that member's access token is the proof." })
  async mergeMembers(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('intoId', () => ID, { description: 'The member who survives and receives everything.' }) intoId: string,
    @Arg('fromId', () => ID, { description: 'The member merged away; its id answers as the survivor afterwards.' }) fromId: string,
    @Arg('fromAccessToken', () => String, { description: "The merged member's current access token (Member.accessToken), as proof." }) fromAccessToken: string,
  ) {
    return envelope(context, caller, await lifecycle.mergeMembers(scopeOf(context, caller), memberId(intoId), memberId(fromId, 'fromId'), fromAccessToken));
  }
}
