import { GraphQLDateTime, GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType, ObjectType } from 'type-graphql';
import { UserError } from '../../core/user-errors.js';
import { MemberRef } from '../members/members.types.js';
import { Activity, ActivityRecord } from './activities.types.js';

@ObjectType('ActivityCreatePayload', { description: 'What activityCreate did: the definition, or the user errors of its input (then nothing was written).' })
export class ActivityCreatePayload {
  @Field(() => Activity, { nullable: true, description: 'The definition as stored; null when the input had user errors.' }) activity!: Activity | null;
  @Field(() => [UserError], { description: 'Every problem with the input, each at its input path; empty when the definition was created.' }) userErrors!: UserError[];
}

@ObjectType('ActivityUpdatePayload', { description: 'What activityUpdate did: the definition, or the user errors of its input (then nothing was written).' })
export class ActivityUpdatePayload {
  @Field(() => Activity, { nullable: true, description: 'The definition as stored now; null when the input had user errors.' }) activity!: Activity | null;
  @Field(() => [UserError], { description: 'Every problem with the input, each at its input path; NOT_FOUND at ["id"] for no such live definition.' }) userErrors!: UserError[];
}

@ObjectType('ActivityDeletePayload', { description: 'What activityDelete did: the id of the definition retired, or a user error (NOT_FOUND at ["id"]).' })
export class ActivityDeletePayload {
  @Field(() => ID, { nullable: true, description: 'The id of the definition retired (its records keep counting); null when nothing changed.' })
  deletedActivityId!: number | null;
  @Field(() => [UserError], { description: 'NOT_FOUND at ["id"] when the account has no such live definition; empty when it was retired.' }) userErrors!: UserError[];
}

@InputType('ActivityRecordInput', { description: 'One activity to record for activityRecord: what, who (a MemberRef), and what it carried.' })
export class ActivityRecordInput {
  @Field(() => ID, { description: 'The activity definition; a deleted one is not found.' }) activityId!: string;
  @Field(() => MemberRef, { description: 'The member, named in exactly one way; a merged member names the survivor.' }) member!: MemberRef;
  @Field(() => ID, { nullable: true, description: "A live brand of the account; defaults to the activity's brand." }) brandId?: string;
  @Field(() => String, { nullable: true, description: "A network identifier (spotify, youtube, …); defaults to the activity's network." }) service?: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'What the activity carried: a JSON object nested at most 32 levels.' }) content?: Record<string, unknown>;
  @Field(() => String, { nullable: true, description: 'A link, at most 2,000 characters.' }) link?: string;
  @Field(() => String, { nullable: true, description: 'A media reference, at most 2,000 characters.' }) media?: string;
  @Field(() => String, { nullable: true, description: 'A category, at most 200 characters.' }) category?: string;
  @Field(() => Float, { nullable: true, description: 'Any finite number.' }) value?: number;
  @Field(() => String, { nullable: true, description: 'Unique per account: a repeat with the same marker stores nothing and answers the earlier record. At most 200 characters.' })
  marker?: string;
  @Field(() => GraphQLDateTime, { nullable: true, description: "When it happened; default now. Not in the future (five minutes' grace)." }) completedAt?: Date;
  @Field(() => String, { nullable: true, description: "The member's IP address: the record's geo is found from it (not stored)." }) ip?: string;
}

@ObjectType('ActivityRecordPayload', { description: 'What activityRecord did: the record, or the user errors of its input (then nothing was written).' })
export class ActivityRecordPayload {
  @Field(() => ActivityRecord, { nullable: true, description: 'The stored record (the earlier one on a repeat); null when the input had user errors.' })
  record!: ActivityRecord | null;
  @Field(() => Boolean, { description: 'True when this call stored the record; false on a repeat (a marker or a one-time activity already recorded) or with user errors.' })
  created!: boolean;
  @Field(() => [UserError], { description: 'Every problem with the input, each at its input path; empty when the record was stored or repeated.' }) userErrors!: UserError[];
}
