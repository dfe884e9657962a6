import { GraphQLDateTime, GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';

export enum SegmentKind {
  LIST = 'list',
  FILTER = 'filter',
}
registerEnumType(SegmentKind, {
  name: 'SegmentKind',
  description: 'LIST: members opt in. FILTER: a saved member filter; its members are computed into segment_members.',
});

@ObjectType('Segment', { description: 'A group of members of the account, optionally tied to a brand.' })
export class Segment {
  @Field(() => ID) id!: number;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) label!: string | null;
  @Field(() => SegmentKind) kind!: SegmentKind;
  @Field(() => ID, { nullable: true }) brandId!: number | null;
  /** Resolved by SegmentResolver.filter, which a member's token reads as null. */
  filter!: Record<string, unknown> | null;
  @Field(() => GraphQLDateTime) createdAt!: Date;
  @Field(() => GraphQLDateTime) updatedAt!: Date;
}

@InputType('SegmentInput', { description: 'On create, name is required; on edit, only the fields given change and null clears one.' })
export class SegmentInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true }) label?: string | null;
  @Field(() => SegmentKind, { nullable: true, description: 'Default LIST; fixed at creation.' }) kind?: SegmentKind | null;
  @Field(() => ID, { nullable: true }) brandId?: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Required for FILTER segments: a MemberFilter as JSON.' })
  filter?: Record<string, unknown> | null;
}
