import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../../core/context.js';
import { toMember, toServiceLink } from '../members/members.mapping.js';
import { Member, ServiceLink } from '../members/members.types.js';
import { toActivity } from './activities.mapping.js';
import { Activity, ActivityRecord } from './activities.types.js';

/**
 * The related objects of a record, each through a per-request loader: a feed page costs one query per kind.
 * Its brand is the brands module's (brands/brand-refs.resolver.ts).
 */
@Resolver(() => ActivityRecord)
export class ActivityRecordResolver {
  @FieldResolver(() => Activity, { description: 'The activity definition (also when it has been deleted since).' })
  async activity(@Root() record: ActivityRecord, @Ctx() context: Context): Promise<Activity> {
    const row = await context.loaders.activities.definitions.load(record.activityId);
    if (!row) throw new Error(`activity ${record.activityId} of record ${record.id} is missing`);
    return toActivity(row);
  }

  @FieldResolver(() => Member, { description: 'The member who did it.' })
  async member(@Root() record: ActivityRecord, @Ctx() context: Context): Promise<Member> {
    const row = await context.loaders.members.rows.load(record.memberId);
    if (!row) throw new Error(`member ${record.memberId} of record ${record.id} is missing`);
    return toMember(row);
  }

  @FieldResolver(() => ServiceLink, { nullable: true, description: "The member's identity on the record's network." })
  async serviceUser(@Root() record: ActivityRecord, @Ctx() context: Context): Promise<ServiceLink | null> {
    if (!record.service) return null;
    const services = await context.loaders.members.services.load(record.memberId);
    const service = services.find((row) => row.network === record.service);
    return service ? toServiceLink(service, await context.loaders.members.domains.load(record.memberId), context) : null;
  }
}
