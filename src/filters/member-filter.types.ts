import { Field, ID, InputType } from 'type-graphql';

@InputType('ActivityRefInput', { description: 'An activity, optionally tied to one brand (REST: `<brandid>-<activityid>`).' })
export class ActivityRefInput {
  @Field(() => ID, { description: "The activity definition's id." }) activityId!: string;
  @Field(() => ID, { nullable: true, description: 'Only records of the activity on this brand; left out, on any brand.' }) brandId?: string;
}

/**
 * The interface's filter parameters, as one input shared by the listings, the feed, member show
 * and the statistics. Activity filters (brand, activities, services, one-time) decide which
 * records count; member filters decide which members take part. See docs/filters.md.
 */
@InputType('MemberFilter', {
  description:
    'The shared filter (REST filter parameters, docs/filters.md). Activity conditions (brandId, activityIds, services, includeOneTime) decide which records count; ' +
    'member conditions decide which members take part. Every condition given applies.',
})
export class MemberFilter {
  @Field(() => ID, { nullable: true, description: 'Only activity of this brand counts.' })
  brandId?: string;

  @Field(() => ID, { nullable: true, description: "Members of this segment; when the segment belongs to a brand, only that brand's activity counts." })
  segmentId?: string;

  @Field(() => ID, { nullable: true, description: 'Members of this segment, whatever the activity.' })
  membersFromSegment?: string;

  @Field(() => [ID], { nullable: true, description: 'Only these activities count.' })
  activityIds?: string[];

  @Field(() => Boolean, { nullable: true, description: 'One-time activities (follows, likes) count too.' })
  includeOneTime?: boolean;

  @Field(() => [String], { nullable: true, description: 'Only activity through these networks counts, by members linked to one of them.' })
  services?: string[];

  @Field(() => [String], { nullable: true, description: 'ISO 3166-1 alpha-2 codes of the members’ countries.' })
  countries?: string[];

  @Field(() => String, { nullable: true, description: 'State or region; only with exactly one country.' })
  region?: string;

  @Field(() => String, { nullable: true, description: 'Members who registered on this website.' })
  domain?: string;

  @Field(() => [ID], { nullable: true, description: 'Only these members (REST members).' }) memberIds?: string[];
  @Field(() => [ID], { nullable: true, description: 'Not these members (REST exclude_members).' }) excludeMemberIds?: string[];
  @Field(() => [String], { nullable: true, description: 'Members with one of these addresses, as email or verified email (any case).' }) emails?: string[];

  @Field(() => [ActivityRefInput], { nullable: true, description: 'Members who performed at least one of these in the window.' })
  anyOfActivities?: ActivityRefInput[];

  @Field(() => [ActivityRefInput], { nullable: true, description: 'Members who performed every one of these in the window.' })
  allOfActivities?: ActivityRefInput[];

  @Field(() => Boolean, { nullable: true, description: 'Members with a paid account on a linked network.' })
  paidOnly?: boolean;

  @Field(() => Boolean, { nullable: true, description: 'Members currently opted into the brand or segment of this filter.' })
  optedIn?: boolean;

  @Field(() => [String], { nullable: true, description: 'Profile fields the member must have filled (extended.x for custom fields).' })
  requiredFields?: string[];
}
