import { GraphQLDateTime, GraphQLJSONObject, GraphQLLocalDate } from 'graphql-scalars';
import { ArgsType, Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '../../core/connection.js';
import { WindowArgs } from '../../filters/filter-args.js';
import { Geo } from '../members/members.types.js';
import { ActivityType } from './activity-types.js';

registerEnumType(ActivityType, {
  name: 'ActivityType',
  description: 'The kind of an activity definition: what members do. Statistics group by it (ActivityGrouping.TYPE); REST spells it as a word (LISTENED is Listened).',
  valuesConfig: {
    LISTENED: { description: 'Listened to a track, an album or a playlist.' },
    WATCHED: { description: 'Watched a video or a stream.' },
    SHARED: { description: 'Shared a post, a track or a link.' },
    LIKED: { description: 'Liked a post, a page or a track.' },
    FOLLOWED: { description: 'Followed an account, an artist or a page.' },
    VISITED: { description: 'Visited a website or a page.' },
    SOCIAL: { description: 'Another action on a social network, such as a post or a mention.' },
    COMMENTED: { description: 'Commented on a post or a video.' },
    PURCHASED: { description: 'Bought something: a track, a ticket, merchandise.' },
    ATTENDED: { description: 'Attended an event, such as a concert or a match.' },
    CUSTOM: { description: "Anything else the application records; its name says what." },
  },
});

@ObjectType('ActivityTracking', { description: 'Where a tracked activity happens.' })
export class ActivityTracking {
  @Field(() => String, { nullable: true }) url!: string | null;
  @Field(() => [String]) trackIds!: string[];
  @Field(() => [String]) albumIds!: string[];
}

@ObjectType('Activity', { description: 'Something members do that the account scores.' })
export class Activity {
  @Field(() => ID) id!: number;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) shortName!: string | null;
  @Field(() => ActivityType) type!: ActivityType;
  @Field(() => String, { nullable: true, description: 'The network it happens on.' }) service!: string | null;
  @Field(() => ID, { nullable: true }) brandId!: number | null;
  @Field(() => Int) points!: number;
  @Field(() => Boolean, { description: 'Performed once per member (a follow, a like); counted only on request.' }) oneTime!: boolean;
  @Field(() => ActivityTracking) tracking!: ActivityTracking;
  @Field(() => GraphQLDateTime) createdAt!: Date;
}

@InputType('ActivityTrackingInput')
export class ActivityTrackingInput {
  @Field(() => String, { nullable: true }) url?: string;
  @Field(() => [String], { nullable: true }) trackIds?: string[];
  @Field(() => [String], { nullable: true }) albumIds?: string[];
}

@InputType('ActivityInput')
export class ActivityInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) shortName?: string;
  @Field(() => ActivityType) type!: ActivityType;
  @Field(() => String, { nullable: true }) service?: string;
  @Field(() => ID, { nullable: true }) brandId?: string;
  @Field(() => Int, { nullable: true, description: 'Default 1.' }) points?: number;
  @Field(() => Boolean, { nullable: true, description: 'Fixed at creation.' }) oneTime?: boolean;
  @Field(() => ActivityTrackingInput, { nullable: true }) tracking?: ActivityTrackingInput;
}

@InputType('EditActivityInput', { description: 'Only the fields given change.' })
export class EditActivityInput {
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true }) shortName?: string;
  @Field(() => ActivityType, { nullable: true }) type?: ActivityType;
  @Field(() => String, { nullable: true }) service?: string;
  @Field(() => ID, { nullable: true }) brandId?: string;
  @Field(() => Int, { nullable: true, description: 'Applies to activity recorded from now on.' }) points?: number;
  @Field(() => ActivityTrackingInput, { nullable: true }) tracking?: ActivityTrackingInput;
}

@ObjectType('ActivityRecord', { description: 'One thing a member did.' })
export class ActivityRecord {
  @Field(() => ID) id!: number;
  @Field(() => String, { nullable: true }) marker!: string | null;
  @Field(() => ID) memberId!: number;
  @Field(() => ID) activityId!: number;
  @Field(() => ID, { nullable: true }) brandId!: number | null;
  @Field(() => String, { nullable: true }) service!: string | null;
  @Field(() => Int) points!: number;
  @Field(() => String, { nullable: true }) link!: string | null;
  @Field(() => String, { nullable: true }) media!: string | null;
  @Field(() => String, { nullable: true }) category!: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) content!: Record<string, unknown> | null;
  @Field(() => Float, { nullable: true }) value!: number | null;
  @Field(() => Geo, { nullable: true, description: 'Where it happened, from the ip it was recorded with; null when not known.' }) geo!: Geo | null;
  @Field(() => GraphQLDateTime) completedAt!: Date;
  @Field(() => GraphQLDateTime) recordedAt!: Date;
}

@InputType('RecordActivityInput')
export class RecordActivityInput {
  @Field(() => ID) activityId!: string;
  @Field(() => ID, { nullable: true, description: 'The member; or partnerCode + partnerId.' }) memberId?: string;
  @Field(() => String, { nullable: true }) partnerCode?: string;
  @Field(() => String, { nullable: true }) partnerId?: string;
  @Field(() => ID, { nullable: true, description: "Defaults to the activity's brand." }) brandId?: string;
  @Field(() => String, { nullable: true, description: "Defaults to the activity's network." }) service?: string;
  @Field(() => GraphQLJSONObject, { nullable: true }) content?: Record<string, unknown>;
  @Field(() => String, { nullable: true }) link?: string;
  @Field(() => String, { nullable: true }) media?: string;
  @Field(() => String, { nullable: true }) category?: string;
  @Field(() => Float, { nullable: true }) value?: number;
  @Field(() => String, { nullable: true, description: 'Unique per account: a repeat with the same marker is a no-op.' }) marker?: string;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'When it happened; default now.' }) completedAt?: Date;
  @Field(() => String, { nullable: true, description: "The member's IP address: the record's geo is found from it (not stored)." }) ip?: string;
}

@ObjectType('RecordResult')
export class RecordResult {
  @Field(() => ActivityRecord, { nullable: true, description: 'The stored record (the earlier one on a repeat); null when queued.' })
  record!: ActivityRecord | null;
  @Field(() => Boolean, { description: 'False when the marker or a one-time activity was already recorded.' }) created!: boolean;
  @Field(() => Boolean, { description: 'True when accepted for background recording.' }) queued!: boolean;
}

@ObjectType('RecordBatchResult')
export class RecordBatchResult {
  @Field(() => Int) created!: number;
  @Field(() => Int, { description: 'Repeats of a marker or of a one-time activity.' }) repeated!: number;
  @Field(() => [ID], { description: 'Ids of the new records, in input order; repeats are left out.' }) recordIds!: number[];
}

@ObjectType('ActivityCheck')
export class ActivityCheck {
  @Field(() => Boolean) result!: boolean;
  @Field(() => Int) count!: number;
  @Field(() => GraphQLDateTime, { nullable: true }) firstAt!: Date | null;
  @Field(() => GraphQLDateTime, { nullable: true }) lastAt!: Date | null;
}

export enum ActivityCountGrouping {
  ACTIVITY = 'ACTIVITY',
  SERVICE = 'SERVICE',
}
registerEnumType(ActivityCountGrouping, { name: 'ActivityCountGrouping', description: 'Daily counts per activity or per network.' });

/** activityCounts: the window and the grouping. */
@ArgsType()
export class ActivityCountsArgs extends WindowArgs {
  @Field(() => ActivityCountGrouping, { defaultValue: ActivityCountGrouping.ACTIVITY }) by!: ActivityCountGrouping;
}

@ObjectType('ActivityCount')
export class ActivityCount {
  @Field(() => GraphQLLocalDate) day!: string;
  @Field(() => ID, { nullable: true }) activityId!: number | null;
  @Field(() => String, { nullable: true }) activityName!: string | null;
  @Field(() => String, { nullable: true }) service!: string | null;
  @Field(() => Int) count!: number;
  @Field(() => Int) distinctMembers!: number;
  @Field(() => Int) points!: number;
}

export enum SortDirection {
  ASC = 'ASC',
  DESC = 'DESC',
}
registerEnumType(SortDirection, { name: 'SortDirection' });

@ObjectType('ListingBrand', { description: 'The brand a listing is scoped to, by its filter or segment.' })
export class ListingBrand {
  @Field(() => ID) id!: number;
  @Field(() => String) name!: string;
  @Field(() => String) type!: string;
}

@ObjectType('ActivityRecordEdge')
export class ActivityRecordEdge {
  @Field(() => String) cursor!: string;
  @Field(() => ActivityRecord) node!: ActivityRecord;
}

@ObjectType('ActivityRecordConnection')
export class ActivityRecordConnection {
  @Field(() => [ActivityRecordEdge]) edges!: ActivityRecordEdge[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  totalCount?: () => Promise<number>;
}
