import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { OneOf } from '../../core/one-of.js';
import { UserError } from '../../core/user-errors.js';

export enum OptInKind {
  BRAND = 'Brand',
  SEGMENT = 'Segment',
  GLOBAL = 'Global',
}
registerEnumType(OptInKind, {
  name: 'OptInKind',
  description: "A brand's list, a segment, or the account's global list.",
  valuesConfig: {
    BRAND: { description: "A brand's list (REST Type Brand)." },
    SEGMENT: { description: 'A list segment (REST Type Segment).' },
    GLOBAL: { description: "The account's global list (REST Type Global)." },
  },
});

@ObjectType('OptIn', { description: "A member's opt-in to a list; opting out keeps it, with optedOutAt." })
export class OptIn {
  @Field(() => ID, { description: "The opt-in's own id; opting in again after an opt-out starts a new one." }) id!: number;
  @Field(() => OptInKind, { description: 'Which kind of list.' }) kind!: OptInKind;
  @Field(() => ID, { nullable: true, description: "The brand's id, for a brand's list; null otherwise." }) brandId!: number | null;
  @Field(() => ID, { nullable: true, description: "The segment's id, for a segment; null otherwise." }) segmentId!: number | null;
  @Field(() => String, { nullable: true, description: "The segment's label; null for other lists." }) label!: string | null;
  @Field(() => String, { nullable: true, description: 'The name of the brand or segment.' }) name!: string | null;
  @Field(() => GraphQLDateTime, { description: "When the member opted in (the database's clock)." }) optedInAt!: Date;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'When the member opted out; null while the opt-in is current.' }) optedOutAt!: Date | null;
}

@InputType('OptInInput', {
  description: 'A member (by id, email, or partnerCode and partnerId) and a list: a brand, a segment, or neither for the global list.',
})
export class OptInInput {
  @Field(() => ID, { nullable: true, description: "The member's id; used first when given." }) memberId?: string | null;
  @Field(() => String, { nullable: true, description: "The member's email address, when memberId is not given." }) email?: string | null;
  @Field(() => String, { nullable: true, description: 'The partner the member registered through (with partnerId).' }) partnerCode?: string | null;
  @Field(() => String, { nullable: true, description: "The member's id at that partner (sourceuid at registration)." }) partnerId?: string | null;
  @Field(() => ID, { nullable: true, description: 'The brand whose list it is; not with segmentId.' }) brandId?: string | null;
  @Field(() => ID, { nullable: true, description: 'The list segment (REST segmentid or segment); a FILTER segment is refused. Not with brandId.' }) segmentId?: string | null;
}

/** A list named in exactly one way; `@oneOf` lets validation refuse two lists (or none) before anything runs. */
@OneOf()
@InputType('OptInListRef', { description: 'Exactly one list a member can be on (a @oneOf input: give one field).' })
export class OptInListRef {
  @Field(() => ID, { nullable: true, description: "A brand's list: the brand's id." }) brandId?: string;
  @Field(() => ID, { nullable: true, description: 'A list segment: its id (a FILTER segment is refused, its members are computed).' }) segmentId?: string;
  @Field(() => Boolean, { nullable: true, description: "The account's global list: true (false names no list and is refused)." }) global?: boolean;
}

@ObjectType('OptInPayload', { description: 'The answer of memberOptIn, memberOptOut, viewerOptIn and viewerOptOut: the opt-in, or the problems with the input.' })
export class OptInPayload {
  @Field(() => OptIn, { nullable: true, description: 'The opt-in as the mutation left it (with optedOutAt after an opt-out); null when userErrors is not empty.' })
  optIn!: OptIn | null;
  @Field(() => [UserError], {
    description: 'What is wrong with the input, each at its path (["member", "id"], ["list", "brandId"]); empty when the mutation was done. Nothing is written when it is not empty.',
  })
  userErrors!: UserError[];
}
