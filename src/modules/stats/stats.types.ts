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
registerEnumType(ActivityGrouping, {
  name: 'ActivityGrouping',
  description: 'Brand activity totals per activity, per type (Listened, Shared, …) or per network.',
  valuesConfig: {
    ACTIVITY: { description: 'A group per activity definition (REST group_by=activities).' },
    TYPE: { description: 'A group per activity type: Listened, Shared, … (REST group_by=type).' },
    SERVICE: { description: 'A group per network; records on no network form one group (REST group_by=service).' },
  },
});

/** BrandStats.activity: the filter and window, the grouping and the page size. */
@ArgsType()
export class BrandActivityArgs extends FilteredWindowArgs {
  @Field(() => ActivityGrouping, { defaultValue: ActivityGrouping.ACTIVITY, description: 'What a group is.' }) groupBy!: ActivityGrouping;
  @Field(() => Int, { defaultValue: 10, description: 'Groups returned, most records first: 1 to 1000 (more is refused).', deprecationReason: 'Use first.' }) limit!: number;
  @Field(() => Int, { nullable: true, description: 'Groups returned, most records first: 1 to 1000 (more is refused); 10 when left out. When given, limit is not read.' })
  first!: number | null;
  @Field(() => Int, { nullable: true, description: 'Groups skipped before the first one returned (most records first).' }) offset!: number | null;
}

@ObjectType('ActivityTotal', { description: "One group of a brand's activity report: its records and members in the window." })
export class ActivityTotal {
  @Field(() => ID, { nullable: true, description: 'Set when grouped by activity.', deprecationReason: 'Use definition.' }) activityId!: number | null;
  @Field(() => String, { nullable: true, description: 'The activity name (by activity) or the type (by type).' }) activity!: string | null;
  @Field(() => ActivityType, { nullable: true, description: 'The activity type (by activity or by type); null by network.' }) type!: ActivityType | null;
  @Field(() => String, { nullable: true, description: "The network (by network) or the activity's network (by activity); null by type and for no network." })
  service!: string | null;
  @Field(() => Int, { description: 'Records of the group in the window under the filter.' }) count!: number;
  @Field(() => Int, { description: 'Distinct members behind those records.' }) distinctMembers!: number;
}

@ObjectType('ActivityTotals', { description: "A brand's activity report: groups of records, most first, and totals over the groups returned." })
export class ActivityTotals {
  @Field(() => ID, { description: 'The brand of the report.', deprecationReason: 'Use brand.' }) brandId!: number;
  @Field(() => String, { nullable: true, description: 'The segment of the filter (segmentId or membersFromSegment), if any.' }) segmentName!: string | null;
  @Field(() => [ActivityTotal], { description: 'The page of groups, most records first.' }) items!: ActivityTotal[];
  @Field(() => Int, { description: 'Records in the items returned.' }) totalCount!: number;
  @Field(() => Int, { description: 'Distinct members behind the items returned.' }) totalMembers!: number;
}

@ObjectType('TimelineDay', { description: "One UTC day of a network's timeline." })
export class TimelineDay {
  @Field(() => GraphQLLocalDate, { description: 'The UTC day.' }) date!: string;
  @Field(() => Int, { description: 'The day of the year, 1 to 366 (REST DayofYear).' }) dayOfYear!: number;
  @Field(() => Int, { description: 'Records that day.' }) count!: number;
  @Field(() => Int, { description: 'Distinct members with records that day.' }) distinctMembers!: number;
}

@ObjectType('ServiceTimeline', { description: "A brand's records on one network, per day of the window." })
export class ServiceTimeline {
  @Field(() => String, { nullable: true, description: 'The network; null for activity on no network.' }) service!: string | null;
  @Field(() => [TimelineDay], { description: 'Every day of the window, days without activity included.' }) days!: TimelineDay[];
  @Field(() => Int, { description: 'Records over the whole window.' }) totalCount!: number;
  @Field(() => Int, { description: 'Distinct members over the whole window (not a sum of days).' }) totalMembers!: number;
}

@ObjectType('CountryCount', { description: "A brand's records and active members from one country (the members' profile country)." })
export class CountryCount {
  @Field(() => String, { description: 'ISO 3166-1 alpha-2 code.' }) country!: string;
  @Field(() => String, { nullable: true, description: "The country's English name; null for a code without one." }) countryName!: string | null;
  @Field(() => Int, { description: 'Records of members of this country in the window.' }) actions!: number;
  @Field(() => Int, { description: 'Distinct members of this country with records in the window.' }) members!: number;
}

@ObjectType('LocationStats', { description: "A brand's activity in the window by the members' country." })
export class LocationStats {
  @Field(() => Int, { description: 'Records in the window, members without a country included.' }) totalActivities!: number;
  @Field(() => Int, { description: 'Distinct members with records in the window, members without a country included.' }) totalMembers!: number;
  @Field(() => [CountryCount], { description: 'Members with a known country, most actions first.' }) countries!: CountryCount[];
}

@ObjectType('ActiveMemberStats', { description: "A brand's members, split by whether they were active on it in the window." })
export class ActiveMemberStats {
  @Field(() => Int, { description: 'Members with counted activity on the brand in the window under the filter.' }) activeMembers!: number;
  @Field(() => Int, { description: "The brand's other members: totalMembers less activeMembers." }) inactiveMembers!: number;
  @Field(() => Int, { description: "The brand's members: opted into it, or active on it at any time." }) totalMembers!: number;
}

@ObjectType('AgeBucket', { description: 'Members of one age range.' })
export class AgeBucket {
  @Field(() => String, {
    description: 'under 13, 13-17, 18-24, 25-34, 35-44, 45-54, 55-64, 65+ or unknown (no birth date); age as of today.',
    deprecationReason: 'Use min, max and known.',
  })
  range!: string;
  @Field(() => Int, { description: 'Members active on the brand in the window in this range.' }) members!: number;
}

@ObjectType('GenderCount', { description: 'Members of one gender.' })
export class GenderCount {
  @Field(() => String, { description: 'M, F, Other or unknown.', deprecationReason: 'Use value.' }) gender!: string;
  @Field(() => Int, { description: 'Members active on the brand in the window of this gender.' }) members!: number;
}

@ObjectType('SegmentStats', { description: 'One live segment of a brand: its members now and their records on the brand.' })
export class SegmentStats {
  @Field(() => ID, { description: 'The segment.', deprecationReason: 'Use segment.' }) segmentId!: number;
  @Field(() => String, { description: "The segment's name." }) name!: string;
  @Field(() => Int, { description: 'Members of the segment now.' }) members!: number;
  @Field(() => Int, { description: "Their records on the segment's brand, all time." }) activities!: number;
}

@ObjectType('BrandStats', { description: "A brand's reports; each field takes the shared filter and a window." })
export class BrandStats {
  @Field(() => ID, { description: 'The brand of the reports; it overrides any brandId of their filters.', deprecationReason: 'Use brand.' }) brandId!: number;
}

@InputType('RegistrationFilter', { description: 'Which sign-ups the channels count: by the identity (network, validity, paid) and by the member (country).' })
export class RegistrationFilter {
  @Field(() => Boolean, { nullable: true, description: 'Only identities that are currently valid.' }) validOnly?: boolean;
  @Field(() => String, { nullable: true, description: 'One network.' }) service?: string;
  @Field(() => [String], { nullable: true, description: 'ISO 3166-1 alpha-2 codes of the members’ countries.' }) countries?: string[];
  @Field(() => Boolean, { nullable: true, description: 'Only identities that are paid accounts on their network.' }) paidOnly?: boolean;
}

/** registrationStats: the window and the registrations' own filter. */
@ArgsType()
export class RegistrationStatsArgs extends WindowArgs {
  @Field(() => RegistrationFilter, { nullable: true, description: 'Which sign-ups channels counts; the other reports do not read it.' }) filter!: RegistrationFilter | null;
}

/** topDomains: the window and the number of websites. */
@ArgsType()
export class TopDomainsArgs extends WindowArgs {
  @Field(() => Int, { defaultValue: 10, description: 'Websites returned: at least 1; more than 1000 is cut to 1000.' }) first!: number;
  @Field(() => Int, { nullable: true, description: 'Websites skipped before the first one returned.' }) offset!: number | null;
}

@ObjectType('ChannelCount', { description: 'Sign-ups through one network.' })
export class ChannelCount {
  @Field(() => String, { description: 'The network identifier (email included).' }) service!: string;
  @Field(() => Int, { description: 'Identities linked through it: each is a sign-up.' }) signups!: number;
}

@ObjectType('DomainCount', { description: 'Registration or sign-in events on one website.' })
export class DomainCount {
  @Field(() => String, { description: "The website's host; API for events without one." }) domain!: string;
  @Field(() => Int, { description: 'Distinct members behind the events; websites are ordered by it, most first.' }) members!: number;
  @Field(() => Int, { description: 'Registrations (registration stats) or sign-ins (top domains).' }) events!: number;
}

@ObjectType('DayCount', { description: 'One UTC day of a timeline.' })
export class DayCount {
  @Field(() => GraphQLLocalDate, { description: 'The UTC day.' }) date!: string;
  @Field(() => Int, { description: 'Events that day: records, registrations or sign-ins, as the timeline says.' }) count!: number;
  @Field(() => Int, { description: 'Distinct members behind them that day.' }) distinctMembers!: number;
}

@ObjectType('RegistrationTotals', { description: 'Registration and sign-in events of the account in the window.' })
export class RegistrationTotals {
  @Field(() => Int, { description: 'Registration events (new members and attached identities).' }) registrations!: number;
  @Field(() => Int, { description: 'Sign-in events.' }) logins!: number;
  @Field(() => Int, { description: 'Members who registered or signed in.' }) members!: number;
}

@ObjectType('DayTimeline', { description: 'Events per UTC day of the window, with totals over the window.' })
export class DayTimeline {
  @Field(() => [DayCount], { description: 'Every day of the window, days without events included.' }) days!: DayCount[];
  @Field(() => Int, { description: 'Events over the whole window.' }) totalCount!: number;
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
