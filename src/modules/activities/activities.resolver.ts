import { Arg, Args, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { filterId } from '../../filters/compile.js';
import { oneWeek, resolveWindow, sixMonths, type Period } from '../../filters/window.js';
import { WindowInput } from '../../filters/window.types.js';
import { missingParameter, notFound } from '../../core/errors.js';
import * as q from './activities.queries.js';
import { toActivity, toActivityRecord } from './activities.mapping.js';
import * as activities from './activities.service.js';
import type { ActivityScope } from './activities.service.js';
import {
  Activity,
  ActivityCheck,
  ActivityCount,
  ActivityCountGrouping,
  ActivityCountsArgs,
  ActivityInput,
  EditActivityInput,
  RecordActivityInput,
  RecordBatchResult,
  RecordResult,
} from './activities.types.js';
import { maxBigintId } from '../../lib/ids.js';

/** Without a window, a check looks at the member's whole history. */
const allTime: Period = { amount: 1200, unit: 'MONTH' };

function scopeOf(context: Context, caller: ApplicationCaller): ActivityScope {
  return { db: context.database.db, accountId: caller.accountId, applicationId: caller.applicationId };
}

function requiredId(value: string | undefined, param: string): number {
  const id = filterId(value, param);
  if (id === undefined) throw missingParameter(param);
  return id;
}

@Resolver(() => Activity)
export class ActivityResolver {
  @Authorized()
  @Query(() => [Activity], { description: "The account's activity definitions, or one brand's." })
  async activities(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('brandId', () => ID, { nullable: true, description: "Only this brand's activities; left out, every live definition of the account." }) brandId: string | null,
  ): Promise<Activity[]> {
    return (await activities.listActivities(scopeOf(context, caller), brandId ?? undefined)).map(toActivity);
  }

  @Authorized()
  @Mutation(() => Activity, { description: 'Creates an activity definition that records can then name.', deprecationReason: 'Use activityCreate.' })
  async createActivity(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => ActivityInput, { description: 'The definition.' }) input: ActivityInput,
  ): Promise<Activity> {
    return toActivity(await activities.createActivity(scopeOf(context, caller), input));
  }

  @Authorized('advanced')
  @Mutation(() => Activity, { description: 'Changes the fields given of a live activity definition (advanced plan); oneTime cannot change.', deprecationReason: 'Use activityUpdate.' })
  async editActivity(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The activity definition's id." }) id: string,
    @Arg('input', () => EditActivityInput, { description: 'The fields to change.' }) input: EditActivityInput,
  ) {
    return toActivity(await activities.editActivity(scopeOf(context, caller), requiredId(id, 'id'), input));
  }

  @Authorized('advanced')
  @Mutation(() => Boolean, { description: 'Retires a definition; its records keep counting.', deprecationReason: 'Use activityDelete.' })
  deleteActivity(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The activity definition's id; it is no longer listed or recordable." }) id: string,
  ): Promise<boolean> {
    return activities.deleteActivity(scopeOf(context, caller), requiredId(id, 'id'));
  }

  @Authorized('advanced')
  @Mutation(() => RecordResult, { description: 'Records one activity; `async` queues it and answers at once.' })
  async recordActivity(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => RecordActivityInput, { description: 'The record.' }) input: RecordActivityInput,
    @Arg('async', () => Boolean, {
      defaultValue: false,
      description: 'true: check the record, queue it and answer at once (record null, queued true); a worker stores it once, in the background.',
    })
    queued: boolean,
  ): Promise<RecordResult> {
    const scope = scopeOf(context, caller);
    if (queued) {
      await context.activityQueue.enqueue(scope, input);
      return { record: null, created: false, queued: true };
    }
    const outcome = await activities.recordActivity(scope, input);
    return { record: toActivityRecord(outcome.record), created: outcome.created, queued: false };
  }

  @Authorized('advanced')
  @Mutation(() => RecordBatchResult, { description: 'Records up to 1000 activities in one transaction.' })
  recordActivities(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => [RecordActivityInput], { description: 'At most 1000 records; one that fails its checks refuses the whole batch, before anything is stored.' })
    input: RecordActivityInput[],
  ) {
    return activities.recordActivities(scopeOf(context, caller), input);
  }

  @Authorized()
  @Mutation(() => Int, { description: 'Deletes one record, or all records of an activity, of a member; returns how many.' })
  deleteMemberActivity(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('memberId', () => ID, { description: "The member; a merged member's id acts on the survivor." }) memberId: string,
    @Arg('recordId', () => ID, { nullable: true, description: "The record to delete (not found when it is not the member's); give this or activityId." }) recordId: string | null,
    @Arg('activityId', () => ID, { nullable: true, description: 'Deletes every record of this activity of the member; with recordId, only that record if it is of this activity.' })
    activityId: string | null,
  ): Promise<number> {
    return activities.deleteMemberActivity(scopeOf(context, caller), requiredId(memberId, 'memberId'), {
      recordId: filterId(recordId, 'recordId', maxBigintId),
      activityId: filterId(activityId, 'activityId'),
    });
  }

  @Authorized()
  @Query(() => ActivityCheck, { description: 'Did the member perform the activity in the window (whole history by default)?' })
  async activityCheck(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('memberId', () => ID, { description: "The member; a merged member's id answers for the survivor." }) memberId: string,
    @Arg('activityId', () => ID, { description: 'The activity definition (deleted ones too).' }) activityId: string,
    @Arg('window', () => WindowInput, { nullable: true, description: "The window; left out, the member's whole history." }) window: WindowInput | null,
  ): Promise<ActivityCheck> {
    const scope = scopeOf(context, caller);
    const span = resolveWindow(window, { defaultPeriod: allTime, maxPeriod: allTime });
    const id = requiredId(activityId, 'activityId');
    const asked = requiredId(memberId, 'memberId');
    const member = (await q.resolveMemberIds(scope.db, scope.accountId, [asked])).get(asked);
    if (member === undefined) throw notFound('Member', 'memberId');
    const definition = (await q.definitionsByIds(scope.db, scope.accountId, [id]))[0];
    if (!definition) throw notFound('Activity', 'activityId');
    const found = await q.checkActivity(scope.db, { accountId: scope.accountId, memberId: member, activityId: id, window: span });
    return { result: found.count > 0, count: found.count, firstAt: found.firstAt, lastAt: found.lastAt };
  }

  @Authorized('advanced')
  @Query(() => [ActivityCount], { description: 'Counts per day of the window, per activity or per network.' })
  async activityCounts(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Args(() => ActivityCountsArgs) { window, by }: ActivityCountsArgs): Promise<ActivityCount[]> {
    const scope = scopeOf(context, caller);
    const span = resolveWindow(window, { defaultPeriod: oneWeek, maxPeriod: sixMonths });
    const grouping = by === ActivityCountGrouping.ACTIVITY ? 'activity' : 'service';
    const rows = await q.dailyCounts(scope.db, scope.accountId, span, grouping);
    return rows.map((row) => ({
      day: row.day,
      activityId: grouping === 'activity' ? (row.group as number) : null,
      activityName: row.activityName,
      service: grouping === 'service' ? (row.group as string | null) : null,
      count: row.count,
      distinctMembers: row.distinctMembers,
      points: row.points,
    }));
  }
}
