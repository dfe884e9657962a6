import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { PeriodUnit } from './window.types.js';

/**
 * The output twins of MemberFilter, ActivityRefInput, WindowInput and PeriodInput: what a saved
 * filter holds, typed field for field like the inputs, so a client reads a segment's filter and
 * sends it back as a MemberFilter (or a segment's filter) unchanged.
 */

@ObjectType('ActivityRef', { description: 'An activity, optionally tied to one brand: ActivityRefInput as read back.' })
export class ActivityRef {
  @Field(() => ID, { description: "The activity definition's id." }) activityId!: string;
  @Field(() => ID, { nullable: true, description: 'Only records of the activity on this brand; null: on any brand.' }) brandId!: string | null;
}

@ObjectType('MemberFilterValue', {
  description: 'A saved MemberFilter, field for field as the input takes it (docs/filters.md); a field not given is null.',
})
export class MemberFilterValue {
  @Field(() => ID, { nullable: true, description: 'Only activity of this brand counts.' }) brandId!: string | null;
  @Field(() => ID, { nullable: true, description: "Members of this segment; when the segment belongs to a brand, only that brand's activity counts." }) segmentId!: string | null;
  @Field(() => ID, { nullable: true, description: 'Members of this segment, whatever the activity.' }) membersFromSegment!: string | null;
  @Field(() => [ID], { nullable: true, description: 'Only these activities count.' }) activityIds!: string[] | null;
  @Field(() => Boolean, { nullable: true, description: 'One-time activities (follows, likes) count too.' }) includeOneTime!: boolean | null;
  @Field(() => [String], { nullable: true, description: 'Only activity through these networks counts, by members linked to one of them.' }) services!: string[] | null;
  @Field(() => [String], { nullable: true, description: 'ISO 3166-1 alpha-2 codes of the members’ countries.' }) countries!: string[] | null;
  @Field(() => String, { nullable: true, description: 'State or region; only with exactly one country.' }) region!: string | null;
  @Field(() => String, { nullable: true, description: 'Members who registered on this website.' }) domain!: string | null;
  @Field(() => [ID], { nullable: true, description: 'Only these members.' }) memberIds!: string[] | null;
  @Field(() => [ID], { nullable: true, description: 'Not these members.' }) excludeMemberIds!: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Members with one of these addresses, as email or verified email (any case).' }) emails!: string[] | null;
  @Field(() => [ActivityRef], { nullable: true, description: 'Members who performed at least one of these in the window.' }) anyOfActivities!: ActivityRef[] | null;
  @Field(() => [ActivityRef], { nullable: true, description: 'Members who performed every one of these in the window.' }) allOfActivities!: ActivityRef[] | null;
  @Field(() => Boolean, { nullable: true, description: 'Members with a paid account on a linked network.' }) paidOnly!: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Members currently opted into the brand or segment of this filter.' }) optedIn!: boolean | null;
  @Field(() => [String], { nullable: true, description: 'Profile fields the member must have filled (extended.x for custom fields).' }) requiredFields!: string[] | null;
}

@ObjectType('Period', { description: 'A relative span such as 2 WEEK: PeriodInput as read back.' })
export class Period {
  @Field(() => Int, { description: 'How many units.' }) amount!: number;
  @Field(() => PeriodUnit, { description: 'The unit.' }) unit!: PeriodUnit;
}

@ObjectType('WindowValue', { description: 'A saved time window, field for field as WindowInput takes it; a field not given is null.' })
export class WindowValue {
  @Field(() => GraphQLDateTime, { nullable: true, description: 'The first instant inside the window.' }) start!: Date | null;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'The first instant after the window.' }) end!: Date | null;
  @Field(() => Period, { nullable: true, description: "The window's length before its end when start is not given." }) period!: Period | null;
  @Field(() => Period, { nullable: true, description: 'Ends the window this long before now, when end is not given.' }) periodEnd!: Period | null;
}
