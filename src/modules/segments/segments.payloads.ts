import { Field, ID, ObjectType } from 'type-graphql';
import { UserError } from '../../core/user-errors.js';
import { Segment } from './segments.types.js';

@ObjectType('SegmentCreatePayload', { description: 'What segmentCreate did: the segment, or the user errors of its input (then nothing was written).' })
export class SegmentCreatePayload {
  @Field(() => Segment, { nullable: true, description: 'The segment as stored; null when the input had user errors.' }) segment!: Segment | null;
  @Field(() => [UserError], { description: 'Every problem with the input, each at its input path; empty when the segment was created.' }) userErrors!: UserError[];
}

@ObjectType('SegmentUpdatePayload', { description: 'What segmentUpdate did: the segment, or the user errors of its input (then nothing was written).' })
export class SegmentUpdatePayload {
  @Field(() => Segment, { nullable: true, description: 'The segment as stored now; null when the input had user errors.' }) segment!: Segment | null;
  @Field(() => [UserError], { description: 'Every problem with the input, each at its input path; empty when the segment was changed.' }) userErrors!: UserError[];
}

@ObjectType('SegmentDeletePayload', { description: 'What segmentDelete did: the id of the segment deleted, or a user error (NOT_FOUND at ["id"]).' })
export class SegmentDeletePayload {
  @Field(() => ID, { nullable: true, description: 'The id of the segment deleted (now not found); null when nothing was deleted.' }) deletedSegmentId!: number | null;
  @Field(() => [UserError], { description: 'NOT_FOUND at ["id"] when the account has no such live segment; empty when it was deleted.' }) userErrors!: UserError[];
}
