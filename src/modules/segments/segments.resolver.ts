import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { toBrand } from '../brands/brands.mapping.js';
import { requiredId } from '../brands/brands.resolver.js';
import { Brand } from '../brands/brands.types.js';
import * as segments from './segments.service.js';
import type { SegmentScope } from './segments.service.js';
import { Segment, SegmentInput } from './segments.types.js';

function scopeOf(context: Context, caller: ApplicationCaller): SegmentScope {
  return { db: context.database.db, accountId: caller.accountId };
}

@Resolver(() => Segment)
export class SegmentResolver {
  @Authorized()
  @Query(() => [Segment], { description: "The account's live segments, or one brand's." })
  async segments(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('brandId', () => ID, { nullable: true, description: 'Only the segments tied to this brand.' }) brandId: string | null,
  ): Promise<Segment[]> {
    return (await segments.listSegments(scopeOf(context, caller), brandId)).map(segments.toSegment);
  }

  @Authorized('advanced')
  @Mutation(() => Segment, { description: "Creates a segment (advanced plan); a FILTER segment's members are computed at once.", deprecationReason: 'Use segmentCreate.' })
  async createSegment(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => SegmentInput, { description: 'The segment; name is required.' }) input: SegmentInput,
  ): Promise<Segment> {
    return segments.toSegment(await segments.createSegment(scopeOf(context, caller), input));
  }

  @Authorized('advanced')
  @Mutation(() => Segment, { description: 'Changes the fields given of a segment (advanced plan); a new filter recomputes its members.', deprecationReason: 'Use segmentUpdate.' })
  async editSegment(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The segment's id." }) id: string,
    @Arg('input', () => SegmentInput, { description: 'The fields to change; the kind cannot change.' }) input: SegmentInput,
  ): Promise<Segment> {
    return segments.toSegment(await segments.editSegment(scopeOf(context, caller), requiredId(id), input));
  }

  @Authorized('advanced')
  @Mutation(() => Boolean, { description: 'Deletes a segment; its opt-in history stays.', deprecationReason: 'Use segmentDelete.' })
  deleteSegment(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The segment's id; it is then not found and takes no opt-ins." }) id: string,
  ): Promise<boolean> {
    return segments.deleteSegment(scopeOf(context, caller), requiredId(id));
  }

  /**
   * A FILTER segment's saved filter is the tenant's targeting: an application's key reads it, a
   * member's token (which reaches segments through its own opt-ins and their brands) reads null.
   */
  @FieldResolver(() => GraphQLJSONObject, {
    nullable: true,
    description: 'The saved MemberFilter of a FILTER segment; null for a member token.',
    deprecationReason: 'Use memberFilter and filterWindow.',
  })
  filter(@Root() segment: Segment, @Ctx() context: Context): Record<string, unknown> | null {
    return context.caller.kind === 'member' ? null : segment.filter;
  }

  @FieldResolver(() => Brand, { nullable: true, description: 'The brand it is tied to; null for none, or when that brand was deleted.' })
  async brand(@Root() segment: Segment, @Ctx() context: Context): Promise<Brand | null> {
    if (!segment.brandId) return null;
    const row = await context.loaders.brands.byId.load(segment.brandId);
    return row ? toBrand(row) : null;
  }
}

/** Brand.segments lives here, beside the segments it lists. */
@Resolver(() => Brand)
export class BrandSegmentsResolver {
  @FieldResolver(() => [Segment], { description: "The brand's live segments." })
  async segments(@Root() brand: Brand, @Ctx() context: Context): Promise<Segment[]> {
    return (await context.loaders.segments.byBrand.load(brand.id)).map(segments.toSegment);
  }
}
