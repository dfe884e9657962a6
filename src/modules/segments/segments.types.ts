import { GraphQLDateTime, GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';

export enum SegmentKind {
  LIST = 'list',
  FILTER = 'filter',
}
registerEnumType(SegmentKind, {
  name: 'SegmentKind',
  description: 'LIST: members opt in. FILTER: a saved member filter; its members are computed into segment_members.',
  valuesConfig: {
    LIST: { description: 'Its members are those currently opted into it (REST type list).' },
    FILTER: {
      description: 'Its members are computed from a saved MemberFilter when it is created or its filter edited, and for one member by member(refresh: true) (REST type filter).',
    },
  },
});

@ObjectType('Segment', { description: 'A group of members of the account, optionally tied to a brand.' })
export class Segment {
  @Field(() => ID, { description: "The segment's id (REST segmentid)." }) id!: number;
  @Field(() => String, { description: "The segment's name." }) name!: string;
  @Field(() => String, { nullable: true, description: "A label of the caller's choosing; null when none." }) label!: string | null;
  @Field(() => SegmentKind, { description: 'How its members are decided; fixed at creation.' }) kind!: SegmentKind;
  @Field(() => ID, { nullable: true, description: 'The brand it is tied to; null for a segment of the whole account.' }) brandId!: number | null;
  /** Resolved by SegmentResolver.filter, which a member's token reads as null. */
  filter!: Record<string, unknown> | null;
  @Field(() => GraphQLDateTime, { description: 'When the segment was created.' }) createdAt!: Date;
  @Field(() => GraphQLDateTime, { description: 'When the segment was last edited (its creation, if never).' }) updatedAt!: Date;
}

@InputType('SegmentInput', { description: 'On create, name is required; on edit, only the fields given change and null clears one.' })
export class SegmentInput {
  @Field(() => String, { nullable: true, description: "The segment's name, at most 200 characters; cannot be cleared." }) name?: string | null;
  @Field(() => String, { nullable: true, description: 'A label, at most 200 characters.' }) label?: string | null;
  @Field(() => SegmentKind, { nullable: true, description: 'Default LIST; fixed at creation.' }) kind?: SegmentKind | null;
  @Field(() => ID, { nullable: true, description: 'A brand of the account to tie the segment to.' }) brandId?: string | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'Required for FILTER segments: a MemberFilter as JSON, optionally with window (default one week); at most 16 KiB. Not for LIST segments.',
  })
  filter?: Record<string, unknown> | null;
}
