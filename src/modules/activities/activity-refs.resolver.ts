import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../../core/context.js';
import { toActivity } from './activities.mapping.js';
import { Activity, ActivityCount } from './activities.types.js';

/** The activity definition of a daily count, beside its id and name: one statement per report. */
@Resolver(() => ActivityCount)
export class ActivityCountActivityResolver {
  @FieldResolver(() => Activity, { nullable: true, description: 'The activity definition (also when deleted since), when counted per activity; null per network.' })
  async activity(@Root() count: ActivityCount, @Ctx() context: Context): Promise<Activity | null> {
    if (!count.activityId) return null;
    const row = await context.loaders.activities.definitions.load(count.activityId);
    return row ? toActivity(row) : null;
  }
}
