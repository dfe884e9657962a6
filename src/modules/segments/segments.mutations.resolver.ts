import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { withUserErrors, type InputPaths } from '../../core/user-errors.js';
import { requiredId } from '../brands/brands.resolver.js';
import { SegmentCreatePayload, SegmentDeletePayload, SegmentUpdatePayload } from './segments.payloads.js';
import * as segments from './segments.service.js';
import { SegmentInput } from './segments.types.js';

/** Where the services' parameters sit in these mutations' arguments (a problem found by validateAll carries its own path). */
const paths: InputPaths = { params: { id: ['id'] } };

/**
 * The segment mutations a label's forms call (docs/graphql.md, "Errors as data"): every problem
 * with the input at once as user errors, nothing written then; the plan stays a top-level error.
 */
@Resolver()
export class SegmentMutationsResolver {
  @Authorized('advanced')
  @Mutation(() => SegmentCreatePayload, { nullable: true, description: "Creates a segment (advanced plan); a FILTER segment's members are computed at once." })
  async segmentCreate(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => SegmentInput, { description: 'The segment; name is required.' }) input: SegmentInput,
  ): Promise<SegmentCreatePayload> {
    const { result, userErrors } = await withUserErrors(() => segments.createSegment(scopeOf(context, caller), input), paths);
    return { segment: result && segments.toSegment(result), userErrors };
  }

  @Authorized('advanced')
  @Mutation(() => SegmentUpdatePayload, { nullable: true, description: 'Changes the fields given of a live segment (advanced plan); a new filter recomputes its members.' })
  async segmentUpdate(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The segment's id." }) id: string,
    @Arg('input', () => SegmentInput, { description: 'The fields to change; the kind cannot change.' }) input: SegmentInput,
  ): Promise<SegmentUpdatePayload> {
    const { result, userErrors } = await withUserErrors(() => segments.editSegment(scopeOf(context, caller), requiredId(id), input), paths);
    return { segment: result && segments.toSegment(result), userErrors };
  }

  @Authorized('advanced')
  @Mutation(() => SegmentDeletePayload, { nullable: true, description: 'Deletes a segment (advanced plan); its opt-in history stays.' })
  async segmentDelete(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The segment's id; it is then not found and takes no opt-ins." }) id: string,
  ): Promise<SegmentDeletePayload> {
    const { result, userErrors } = await withUserErrors(async () => {
      const segmentId = requiredId(id);
      await segments.deleteSegment(scopeOf(context, caller), segmentId);
      return segmentId;
    }, paths);
    return { deletedSegmentId: result, userErrors };
  }
}

function scopeOf(context: Context, caller: ApplicationCaller): segments.SegmentScope {
  return { db: context.database.db, accountId: caller.accountId };
}
