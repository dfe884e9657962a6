import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { missingParameter } from '../../core/errors.js';
import { withUserErrors, type InputPaths } from '../../core/user-errors.js';
import { filterId } from '../../filters/compile.js';
import { toActivity, toActivityRecord } from './activities.mapping.js';
import { ActivityCreatePayload, ActivityDeletePayload, ActivityRecordInput, ActivityRecordPayload, ActivityUpdatePayload } from './activities.payloads.js';
import * as activities from './activities.service.js';
import { ActivityInput, EditActivityInput } from './activities.types.js';
import { recordActivityOfRef } from './activity-record.service.js';

/**
 * Where the services' parameters sit in these mutations' arguments (a problem found by validateAll
 * carries its own path); the writer's own checks of a record name its activity and brand.
 */
const paths: InputPaths = { params: { id: ['id'], activityId: ['input', 'activityId'], brandId: ['input', 'brandId'], memberId: ['input', 'member'] } };

/**
 * The activity mutations a label's forms call (docs/graphql.md, "Errors as data"): every problem
 * with the input at once as user errors, nothing written then; the plan stays a top-level error.
 */
@Resolver()
export class ActivityMutationsResolver {
  @Authorized()
  @Mutation(() => ActivityCreatePayload, { nullable: true, description: 'Creates an activity definition that records can then name.' })
  async activityCreate(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => ActivityInput, { description: 'The definition.' }) input: ActivityInput,
  ): Promise<ActivityCreatePayload> {
    const { result, userErrors } = await withUserErrors(() => activities.createActivity(scopeOf(context, caller), input), paths);
    return { activity: result && toActivity(result), userErrors };
  }

  @Authorized('advanced')
  @Mutation(() => ActivityUpdatePayload, { nullable: true, description: 'Changes the fields given of a live activity definition (advanced plan); oneTime cannot change.' })
  async activityUpdate(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The activity definition's id." }) id: string,
    @Arg('input', () => EditActivityInput, { description: 'The fields to change.' }) input: EditActivityInput,
  ): Promise<ActivityUpdatePayload> {
    const { result, userErrors } = await withUserErrors(() => activities.editActivity(scopeOf(context, caller), requiredId(id), input), paths);
    return { activity: result && toActivity(result), userErrors };
  }

  @Authorized('advanced')
  @Mutation(() => ActivityDeletePayload, { nullable: true, description: 'Retires a definition (advanced plan); its records keep counting.' })
  async activityDelete(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The activity definition's id; it is no longer listed or recordable." }) id: string,
  ): Promise<ActivityDeletePayload> {
    const { result, userErrors } = await withUserErrors(async () => {
      const activityId = requiredId(id);
      await activities.deleteActivity(scopeOf(context, caller), activityId);
      return activityId;
    }, paths);
    return { deletedActivityId: result, userErrors };
  }

  @Authorized('advanced')
  @Mutation(() => ActivityRecordPayload, { nullable: true, description: 'Records one activity of a member (advanced plan), answered once it is stored.' })
  async activityRecord(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => ActivityRecordInput, { description: 'The record.' }) input: ActivityRecordInput,
  ): Promise<ActivityRecordPayload> {
    const { result, userErrors } = await withUserErrors(() => recordActivityOfRef(scopeOf(context, caller), input), paths);
    return { record: result && toActivityRecord(result.record), created: result?.created ?? false, userErrors };
  }
}

function scopeOf(context: Context, caller: ApplicationCaller): activities.ActivityScope {
  return { db: context.database.db, accountId: caller.accountId, applicationId: caller.applicationId };
}

function requiredId(value: string): number {
  const id = filterId(value, 'id');
  if (id === undefined) throw missingParameter('id');
  return id;
}
