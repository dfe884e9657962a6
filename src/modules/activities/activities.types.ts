import { GraphQLDateTime, GraphQLJSONObject, GraphQLLocalDate } from 'graphql-scalars';
import { ArgsType, Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '../../core/connection.js';
import { WindowArgs } from '../../filters/filter-args.js';
import { Geo, MemberRef } from '../members/members.types.js';
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
    CUSTOM: { description: 'Anything else the application records; its name says what.' },
  },
});

@ObjectType('ActivityTracking', { description: 'Where a tracked activity happens.' })
export class ActivityTracking {
  @Field(() => String, { nullable: true, description: 'The web page the activity concerns; null when none was given.' }) url!: string | null;
  @Field(() => [String], { description: 'Ids of the tracks the activity concerns on its network; empty when none.' }) trackIds!: string[];
  @Field(() => [String], { description: 'Ids of the albums the activity concerns on its network; empty when none.' }) albumIds!: string[];
}

@ObjectType('Activity', { description: 'Something members do that the account scores.' })
export class Activity {
  @Field(() => ID, { description: "The activity definition's id (REST activityid)." }) id!: number;
  @Field(() => String, { description: "The activity's name." }) name!: string;
  @Field(() => String, { nullable: true, description: 'A short label; null when none was given.' }) shortName!: string | null;
  @Field(() => ActivityType, { description: 'What kind of activity it is.' }) type!: ActivityType;
  @Field(() => String, { nullable: true, description: 'The network it happens on; null for none.' }) service!: string | null;
  @Field(() => ID, { nullable: true, description: 'The brand it belongs to; null for an activity of the whole account.', deprecationReason: 'Use brand.' })
  brandId!: number | null;
  @Field(() => Int, { description: 'Points a record of it earns, copied onto each record when it is stored (an edit changes later records only).' }) points!: number;
  @Field(() => Boolean, { description: 'Performed once per member (a follow, a like); counted only on request.' }) oneTime!: boolean;
  @Field(() => ActivityTracking, { description: 'The page, tracks and albums the activity concerns.' }) tracking!: ActivityTracking;
  @Field(() => GraphQLDateTime, { description: 'When the definition was created.' }) createdAt!: Date;
}

@InputType('ActivityTrackingInput', { description: 'The page, tracks and albums an activity concerns (REST url, trackids, albumids).' })
export class ActivityTrackingInput {
  @Field(() => String, { nullable: true, description: 'An http or https URL, at most 2,000 characters.' }) url?: string;
  @Field(() => [String], { nullable: true, description: "Track ids on the activity's network, each at most 200 characters." }) trackIds?: string[];
  @Field(() => [String], { nullable: true, description: "Album ids on the activity's network, each at most 200 characters." }) albumIds?: string[];
}

@InputType('ActivityInput', { description: 'A new activity definition.' })
export class ActivityInput {
  @Field(() => String, { description: "The activity's name, at most 200 characters." }) name!: string;
  @Field(() => String, { nullable: true, description: 'A short label, at most 100 characters.' }) shortName?: string;
  @Field(() => ActivityType, { description: 'What kind of activity it is.' })
  type!: ActivityType;
  @Field(() => String, { nullable: true, description: 'The network identifier it happens on (spotify, youtube, …); recorded activity takes it by default.' })
  service?: string;
  @Field(() => ID, { nullable: true, description: 'The brand it belongs to; left out, it belongs to the whole account.' }) brandId?: string;
  @Field(() => Int, { nullable: true, description: 'Points per record, a whole number from 0 to 1,000,000; default 1.' }) points?: number;
  @Field(() => Boolean, {
    nullable: true,
    description: 'Performed at most once per member (a follow, a like): stored once per member and counted only with includeOneTime. Default false; fixed at creation.',
  })
  oneTime?: boolean;
  @Field(() => ActivityTrackingInput, { nullable: true, description: 'The page, tracks and albums it concerns.' }) tracking?: ActivityTrackingInput;
}

@InputType('EditActivityInput', { description: 'Only the fields given change.' })
export class EditActivityInput {
  @Field(() => String, { nullable: true, description: 'A new name, at most 200 characters; cannot be cleared.' }) name?: string;
  @Field(() => String, { nullable: true, description: 'A new short label; null or empty clears it.' }) shortName?: string;
  @Field(() => ActivityType, { nullable: true, description: 'A new type; the reports count its members under the new type.' }) type?: ActivityType;
  @Field(() => String, { nullable: true, description: 'A new network identifier; null or empty clears it.' }) service?: string;
  @Field(() => ID, { nullable: true, description: 'Moves the activity to this brand; cannot be cleared.' }) brandId?: string;
  @Field(() => Int, { nullable: true, description: 'Applies to activity recorded from now on.' }) points?: number;
  @Field(() => ActivityTrackingInput, { nullable: true, description: 'Replaces the tracking details.' }) tracking?: ActivityTrackingInput;
}

@ObjectType('ActivityRecord', { description: 'One thing a member did.' })
export class ActivityRecord {
  @Field(() => ID, { description: "The record's id (REST RecordID)." }) id!: number;
  @Field(() => String, { nullable: true, description: "The caller's marker, unique per account; null when none was given." }) marker!: string | null;
  @Field(() => ID, { description: 'The id of the member who did it.', deprecationReason: 'Use member.' }) memberId!: number;
  @Field(() => ID, { description: "The activity definition's id.", deprecationReason: 'Use activity.' }) activityId!: number;
  @Field(() => ID, { nullable: true, description: "The brand it counts for: the one given when recorded, else the activity's; null for none.", deprecationReason: 'Use brand.' })
  brandId!: number | null;
  @Field(() => String, { nullable: true, description: "The network it happened on: the one given when recorded, else the activity's; null for none." }) service!: string | null;
  @Field(() => Int, { description: "The points it earns: the activity's points when it was recorded." }) points!: number;
  @Field(() => String, { nullable: true, description: 'A link given with the record; null when none.' }) link!: string | null;
  @Field(() => String, { nullable: true, description: 'A media reference given with the record; null when none.' }) media!: string | null;
  @Field(() => String, { nullable: true, description: 'A category given with the record; null when none.' }) category!: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'What the activity carried, as given (a listen: track, artist, …); null when none.' })
  content!: Record<string, unknown> | null;
  @Field(() => Float, { nullable: true, description: 'A number given with the record; null when none.' }) value!: number | null;
  @Field(() => Geo, { nullable: true, description: 'Where it happened, from the ip it was recorded with; null when not known.' }) geo!: Geo | null;
  @Field(() => GraphQLDateTime, { description: 'When it happened (REST CompleteDate); windows and scores go by this time.' }) completedAt!: Date;
  @Field(() => GraphQLDateTime, { description: 'When it was stored.' }) recordedAt!: Date;
}

@InputType('RecordActivityInput', { description: 'One activity to record: what, who, and what it carried.' })
export class RecordActivityInput {
  @Field(() => ID, { description: 'The activity definition; a deleted one is not found.' }) activityId!: string;
  @Field(() => MemberRef, { nullable: true, description: 'The member, named in exactly one way (a @oneOf input); not with memberId, partnerCode or partnerId.' })
  member?: MemberRef;
  @Field(() => ID, { nullable: true, description: 'The member; or partnerCode + partnerId.' }) memberId?: string;
  @Field(() => String, { nullable: true, description: 'With partnerId, finds the member by a partner reference when memberId is not given.' }) partnerCode?: string;
  @Field(() => String, { nullable: true, description: "The member's id at that partner." }) partnerId?: string;
  @Field(() => ID, { nullable: true, description: "Defaults to the activity's brand." }) brandId?: string;
  @Field(() => String, { nullable: true, description: "Defaults to the activity's network." }) service?: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'What the activity carried: a JSON object nested at most 32 levels.' }) content?: Record<string, unknown>;
  @Field(() => String, { nullable: true, description: 'A link, at most 2,000 characters.' }) link?: string;
  @Field(() => String, { nullable: true, description: 'A media reference, at most 2,000 characters.' }) media?: string;
  @Field(() => String, { nullable: true, description: 'A category, at most 200 characters.' }) category?: string;
  @Field(() => Float, { nullable: true, description: 'Any finite number.' }) value?: number;
  @Field(() => String, { nullable: true, description: 'Unique per account: a repeat with the same marker is a no-op. At most 200 characters.' }) marker?: string;
  @Field(() => GraphQLDateTime, { nullable: true, description: "When it happened; default now. Not in the future (five minutes' grace)." }) completedAt?: Date;
  @Field(() => String, { nullable: true, description: "The member's IP address: the record's geo is found from it (not stored)." }) ip?: string;
}

@ObjectType('RecordResult', { description: 'What recordActivity did with the record.' })
export class RecordResult {
  @Field(() => ActivityRecord, { nullable: true, description: 'The stored record (the earlier one on a repeat); null when queued.' })
  record!: ActivityRecord | null;
  @Field(() => Boolean, { description: 'False when the marker or a one-time activity was already recorded.' }) created!: boolean;
  @Field(() => Boolean, { description: 'True when accepted for background recording.' }) queued!: boolean;
}

@ObjectType('RecordBatchResult', { description: 'What recordActivities stored, once the batch committed.' })
export class RecordBatchResult {
  @Field(() => Int, { description: 'Records stored.' }) created!: number;
  @Field(() => Int, { description: 'Repeats of a marker or of a one-time activity.' }) repeated!: number;
  @Field(() => [ID], { description: 'Ids of the new records, in input order; repeats are left out.' }) recordIds!: number[];
}

@ObjectType('ActivityCheck', { description: 'Whether, how often and when a member performed an activity in a window.' })
export class ActivityCheck {
  @Field(() => Boolean, { description: 'True when the member has at least one record of the activity in the window.' }) result!: boolean;
  @Field(() => Int, { description: "The member's records of the activity in the window." }) count!: number;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'The earliest completion time among them; null without records.' }) firstAt!: Date | null;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'The latest completion time among them; null without records.' }) lastAt!: Date | null;
}

export enum ActivityCountGrouping {
  ACTIVITY = 'ACTIVITY',
  SERVICE = 'SERVICE',
}
registerEnumType(ActivityCountGrouping, {
  name: 'ActivityCountGrouping',
  description: 'Daily counts per activity or per network.',
  valuesConfig: {
    ACTIVITY: { description: 'A count per UTC day and activity (REST activities/count/daily).' },
    SERVICE: { description: 'A count per UTC day and network (REST activities/count/services).' },
  },
});

/** activityCounts: the window and the grouping. */
@ArgsType()
export class ActivityCountsArgs extends WindowArgs {
  @Field(() => ActivityCountGrouping, { defaultValue: ActivityCountGrouping.ACTIVITY, description: 'Per activity or per network.' }) by!: ActivityCountGrouping;
}

@ObjectType('ActivityCount', { description: 'The records of one UTC day and one activity or network.' })
export class ActivityCount {
  @Field(() => GraphQLLocalDate, { description: 'The day, in UTC.' }) day!: string;
  @Field(() => ID, { nullable: true, description: 'The activity, when counted per activity; null per network.', deprecationReason: 'Use activity.' }) activityId!: number | null;
  @Field(() => String, { nullable: true, description: "The activity's name, when counted per activity; null per network.", deprecationReason: 'Use activity.' })
  activityName!: string | null;
  @Field(() => String, { nullable: true, description: 'The network, when counted per network; null per activity, and for records on no network.' }) service!: string | null;
  @Field(() => Int, { description: 'Records that day.' }) count!: number;
  @Field(() => Int, { description: 'Distinct members behind those records.' }) distinctMembers!: number;
  @Field(() => Int, { description: 'The points of those records.' }) points!: number;
}

export enum SortDirection {
  ASC = 'ASC',
  DESC = 'DESC',
}
registerEnumType(SortDirection, {
  name: 'SortDirection',
  description: 'The direction of an order.',
  valuesConfig: {
    ASC: { description: 'Ascending: the lowest score, earliest time or smallest value first.' },
    DESC: { description: 'Descending: the highest score, latest time or largest value first.' },
  },
});

@ObjectType('ActivityRecordEdge', { description: 'A record of a page, with its place in the list.' })
export class ActivityRecordEdge {
  @Field(() => String, { description: "Opaque: this record's place in the list, with the list's window and time, to pass as after or before." })
  cursor!: string;
  @Field(() => ActivityRecord, { description: 'The record.' }) node!: ActivityRecord;
}

@ObjectType('ActivityRecordConnection', { description: 'A page of activity records: of the activity feed, or of one member.' })
export class ActivityRecordConnection {
  @Field(() => [ActivityRecordEdge], { description: "The page's records, in the list's order." }) edges!: ActivityRecordEdge[];
  @Field(() => [ActivityRecord], { description: 'The nodes of edges, in the same order.' }) nodes!: ActivityRecord[];
  @Field(() => PageInfo, { description: 'Whether pages follow or precede this one, and the cursors to reach them.' }) pageInfo!: PageInfo;
  totalCount?: () => Promise<number>;
}
