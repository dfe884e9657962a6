import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';

export enum OptInKind {
  BRAND = 'Brand',
  SEGMENT = 'Segment',
  GLOBAL = 'Global',
}
registerEnumType(OptInKind, { name: 'OptInKind', description: "A brand's list, a segment, or the account's global list." });

@ObjectType('OptIn', { description: "A member's opt-in to a list; opting out keeps it, with optedOutAt." })
export class OptIn {
  @Field(() => ID) id!: number;
  @Field(() => OptInKind) kind!: OptInKind;
  @Field(() => ID, { nullable: true }) brandId!: number | null;
  @Field(() => ID, { nullable: true }) segmentId!: number | null;
  @Field(() => String, { nullable: true, description: "The segment's label." }) label!: string | null;
  @Field(() => String, { nullable: true, description: 'The name of the brand or segment.' }) name!: string | null;
  @Field(() => GraphQLDateTime) optedInAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true }) optedOutAt!: Date | null;
}

@InputType('OptInInput', {
  description: 'A member (by id, email, or partnerCode and partnerId) and a list: a brand, a segment, or neither for the global list.',
})
export class OptInInput {
  @Field(() => ID, { nullable: true }) memberId?: string | null;
  @Field(() => String, { nullable: true }) email?: string | null;
  @Field(() => String, { nullable: true, description: 'The partner the member registered through (with partnerId).' }) partnerCode?: string | null;
  @Field(() => String, { nullable: true, description: "The member's id at that partner (sourceuid at registration)." }) partnerId?: string | null;
  @Field(() => ID, { nullable: true }) brandId?: string | null;
  @Field(() => ID, { nullable: true }) segmentId?: string | null;
}
