import { GraphQLLocalDate } from 'graphql-scalars';
import { MemberFilter } from '../../filters/member-filter.types.js';
import { WindowInput } from '../../filters/window.types.js';
import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { FilteredWindowArgs, WindowArgs } from '../../filters/filter-args.js';
import { ActivityType } from '../activities/activity-types.js';

export enum ActivityGrouping {
  ACTIVITY = 'ACTIVITY',
  TYPE = 'TYPE',
  SERVICE = 'SERVICE',
}
registerEnumType(ActivityGrouping, { name: 'ActivityGrouping', description: 'Brand activity totals per activity, per type (Listened, Shared, …) or per network.' });

/** BrandStats.activity: the filter and window, the grouping and the page size. */
@ArgsType()
export class BrandActivityArgs extends FilteredWindowArgs {
  @Field(() => ActivityGrouping, { defaultValue: ActivityGrouping.ACTIVITY }) groupBy!: ActivityGrouping;
  @Field(() => Int, { defaultValue: 10 }) limit!: number;
  @Field(() => Int, { nullable: true, description: 'Groups skipped before the first one returned (most records first).' }) offset!: number | null;
}

@ObjectType('ActivityTotal')
export class ActivityTotal {
  @Field(() => ID, { nullable: true, description: 'Set when grouped by activity.' }) activityId!: number | null;
  @Field(() => String, { nullable: true, description: 'The activity name (by activity) or the type (by type).' }) activity!: string | null;
  @Field(() => ActivityType, { nullable: true }) type!: ActivityType | null;
  @Field(() => String, { nullable: true }) service!: string | null;
  @Field(() => Int) count!: number;
  @Field(() => Int) distinctMembers!: number;
}

@ObjectType('ActivityTotals')
export class ActivityTotals {
  @Field(() => ID) brandId!: number;
  @Field(() => String, { nullable: true, description: 'The segment of the filter, if any.' }) segmentName!: string | null;
  @Field(() => [ActivityTotal]) items!: ActivityTotal[];
  @Field(() => Int, { description: 'Records in the items returned.' }) totalCount!: number;
  @Field(() => Int, { description: 'Distinct members behind the items returned.' }) totalMembers!: number;
}

@ObjectType('TimelineDay')
export class TimelineDay {
  @Field(() => GraphQLLocalDate) date!: string;
  @Field(() => Int) dayOfYear!: number;
  @Field(() => Int) count!: number;
  @Field(() => Int) distinctMembers!: number;
}

@ObjectType('ServiceTimeline')
export class ServiceTimeline {
  @Field(() => String, { nullable: true, description: 'The network; null for activity on no network.' }) service!: string | null;
  @Field(() => [TimelineDay], { description: 'Every day of the window, days without activity included.' }) days!: TimelineDay[];
  @Field(() => Int) totalCount!: number;
  @Field(() => Int, { description: 'Distinct members over the whole window (not a sum of days).' }) totalMembers!: number;
}

@ObjectType('CountryCount')
export class CountryCount {
  @Field(() => String) country!: string;
  @Field(() => String, { nullable: true }) countryName!: string | null;
  @Field(() => Int) actions!: number;
  @Field(() => Int) members!: number;
}

@ObjectType('LocationStats')
export class LocationStats {
  @Field(() => Int) totalActivities!: number;
  @Field(() => Int) totalMembers!: number;
  @Field(() => [CountryCount], { description: 'Members with a known country, most actions first.' }) countries!: CountryCount[];
}

@ObjectType('ActiveMemberStats')
export class ActiveMemberStats {
  @Field(() => Int) activeMembers!: number;
  @Field(() => Int) inactiveMembers!: number;
  @Field(() => Int, { description: "The brand's members: opted into it, or active on it at any time." }) totalMembers!: number;
}

@ObjectType('AgeBucket')
export class AgeBucket {
  @Field(() => String, { description: '13-17, 18-24, 25-34, 35-44, 45-54, 55-64, 65+ or unknown.' }) range!: string;
  @Field(() => Int) members!: number;
}

@ObjectType('GenderCount')
export class GenderCount {
  @Field(() => String, { description: 'M, F, Other or unknown.' }) gender!: string;
  @Field(() => Int) members!: number;
}

@ObjectType('SegmentStats')
export class SegmentStats {
  @Field(() => ID) segmentId!: number;
  @Field(() => String) name!: string;
  @Field(() => Int, { description: 'Members of the segment now.' }) members!: number;
  @Field(() => Int, { description: "Their records on the segment's brand, all time." }) activities!: number;
}

@ObjectType('BrandStats', { description: "A brand's reports; each field takes the shared filter and a window." })
export class BrandStats {
  @Field(() => ID) brandId!: number;
}

@InputType('RegistrationFilter')
export class RegistrationFilter {
  @Field(() => Boolean, { nullable: true, description: 'Only identities that are currently valid.' }) validOnly?: boolean;
  @Field(() => String, { nullable: true, description: 'One network.' }) service?: string;
  @Field(() => [String], { nullable: true }) countries?: string[];
  @Field(() => Boolean, { nullable: true }) paidOnly?: boolean;
}

/** registrationStats: the window and the registrations' own filter. */
@ArgsType()
export class RegistrationStatsArgs extends WindowArgs {
  @Field(() => RegistrationFilter, { nullable: true }) filter!: RegistrationFilter | null;
}

/** topDomains: the window and the number of websites. */
@ArgsType()
export class TopDomainsArgs extends WindowArgs {
  @Field(() => Int, { defaultValue: 10 }) first!: number;
  @Field(() => Int, { nullable: true, description: 'Websites skipped before the first one returned.' }) offset!: number | null;
}

@ObjectType('ChannelCount')
export class ChannelCount {
  @Field(() => String) service!: string;
  @Field(() => Int) signups!: number;
}

@ObjectType('DomainCount')
export class DomainCount {
  @Field(() => String) domain!: string;
  @Field(() => Int) members!: number;
  @Field(() => Int, { description: 'Registrations (registration stats) or sign-ins (top domains).' }) events!: number;
}

@ObjectType('DayCount')
export class DayCount {
  @Field(() => GraphQLLocalDate) date!: string;
  @Field(() => Int) count!: number;
  @Field(() => Int) distinctMembers!: number;
}

@ObjectType('RegistrationTotals')
export class RegistrationTotals {
  @Field(() => Int) registrations!: number;
  @Field(() => Int) logins!: number;
  @Field(() => Int, { description: 'Members who registered or signed in.' }) members!: number;
}

@ObjectType('DayTimeline')
export class DayTimeline {
  @Field(() => [DayCount], { description: 'Every day of the window, days without events included.' }) days!: DayCount[];
  @Field(() => Int) totalCount!: number;
  @Field(() => Int, { description: 'Distinct members over the whole window (not a sum of days).' }) totalMembers!: number;
}

@ObjectType('MemberTimelines', { description: 'Activity and visits per day under a filter.' })
export class MemberTimelines {
  filter?: MemberFilter | null;
  window?: WindowInput | null;
}

@ObjectType('RegistrationStats', { description: 'Sign-ups and sign-ins of the account.' })
export class RegistrationStats {
  filter?: RegistrationFilter | null;
  window?: WindowInput | null;
}
