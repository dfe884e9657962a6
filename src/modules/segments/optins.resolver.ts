import { Arg, Authorized, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { toBrand } from '../brands/brands.mapping.js';
import { Brand } from '../brands/brands.types.js';
import type { ReadWithMember } from '../members/members.mapping.js';
import { readWith } from '../members/members.queries.js';
import { Member, MemberRef } from '../members/members.types.js';
import * as optins from './optins.service.js';
import { OptIn, OptInInput, OptInListRef, OptInPayload } from './optins.types.js';
import { toSegment } from './segments.service.js';
import { Segment } from './segments.types.js';

function scopeOf(context: Context, caller: ApplicationCaller) {
  return { db: context.database.db, accountId: caller.accountId };
}

@Resolver(() => OptIn)
export class OptInResolver {
  @Authorized()
  @Mutation(() => OptIn, { description: 'Opts a member into a list; a repeat while opted in answers the current opt-in.', deprecationReason: 'Use memberOptIn.' })
  async optIn(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('input', () => OptInInput, { description: 'The member and the list.' }) input: OptInInput): Promise<OptIn> {
    return optins.toOptIn(await optins.optIn(scopeOf(context, caller), input));
  }

  @Authorized()
  @Mutation(() => OptIn, { description: 'Opts a member out of a list; the opt-in is kept with optedOutAt.', deprecationReason: 'Use memberOptOut.' })
  async optOut(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => OptInInput, { description: 'The member and the list; a list the member never joined is not found.' }) input: OptInInput,
  ): Promise<OptIn> {
    return optins.toOptIn(await optins.optOut(scopeOf(context, caller), input));
  }

  @Authorized()
  @Mutation(() => OptInPayload, {
    description:
      'Opts a member into a list; a repeat while opted in answers the current opt-in. An unknown member, brand or segment (or one of another account) ' +
      'is a NOT_FOUND user error at its path (["member", "id"], ["list", "brandId"]), a FILTER segment INVALID at ["list", "segmentId"]; nothing is written then.',
  })
  async memberOptIn(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('member', () => MemberRef, { description: 'The member, named in exactly one way.' }) member: MemberRef,
    @Arg('list', () => OptInListRef, { description: 'The list, named in exactly one way.' }) list: OptInListRef,
  ): Promise<OptInPayload> {
    const { result, userErrors } = await optins.memberOptIn(scopeOf(context, caller), member, list);
    return { optIn: result && optins.toOptIn(result), userErrors };
  }

  @Authorized()
  @Mutation(() => OptInPayload, {
    description:
      'Opts a member out of a list; the opt-in is kept with optedOutAt, and a repeat answers it unchanged. A list the member never opted into is NOT_FOUND at ' +
      'the list (["list", "segmentId"]); an unknown member, brand or segment as memberOptIn answers it.',
  })
  async memberOptOut(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('member', () => MemberRef, { description: 'The member, named in exactly one way.' }) member: MemberRef,
    @Arg('list', () => OptInListRef, { description: 'The list, named in exactly one way.' }) list: OptInListRef,
  ): Promise<OptInPayload> {
    const { result, userErrors } = await optins.memberOptOut(scopeOf(context, caller), member, list);
    return { optIn: result && optins.toOptIn(result), userErrors };
  }

  @FieldResolver(() => Brand, { nullable: true, description: "The brand, for a brand's list; null otherwise." })
  async brand(@Root() optIn: OptIn, @Ctx() context: Context): Promise<Brand | null> {
    const row = optIn.brandId ? await context.loaders.brands.byId.load(optIn.brandId) : null;
    return row ? toBrand(row) : null;
  }

  @FieldResolver(() => Segment, { nullable: true, description: 'The segment, for a segment; null otherwise.' })
  async segment(@Root() optIn: OptIn, @Ctx() context: Context): Promise<Segment | null> {
    const row = optIn.segmentId ? await context.loaders.segments.byId.load(optIn.segmentId) : null;
    return row ? toSegment(row) : null;
  }
}

/** Member.optins lives here, beside the opt-ins it lists. */
@Resolver(() => Member)
export class MemberOptInsResolver {
  @FieldResolver(() => [OptIn], { description: "The member's current opt-ins (to lists that still exist)." })
  optins(@Root() member: Member & ReadWithMember, @Ctx() context: Context): OptIn[] | Promise<OptIn[]> {
    // member(id) or a members listing may have read them with the member.
    const read = member[readWith]?.optins;
    if (read) return read.map(optins.toOptIn);
    return context.loaders.optIns.byMember.load(member.id).then((rows) => rows.map(optins.toOptIn));
  }
}
