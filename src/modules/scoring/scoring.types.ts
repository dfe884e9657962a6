import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { FilteredWindowArgs } from '../../filters/filter-args.js';
import { PageInfo } from '../../core/connection.js';
import { SortDirection } from '../activities/activities.types.js';
import { Member } from '../members/members.types.js';

export enum MemberOrder {
  SCORE = 'SCORE',
  CREATED = 'CREATED',
  LAST_LOGIN = 'LAST_LOGIN',
  ID = 'ID',
  EXTENDED = 'EXTENDED',
}
registerEnumType(MemberOrder, {
  name: 'MemberOrder',
  description:
    'SCORE: members active in the window, by score. CREATED: members who joined in the window. LAST_LOGIN: members who ' +
    'signed in during the window. ID: every member, by id. EXTENDED: every member, by a custom field (orderField).',
});

/**
 * A position in a listing by SCORE or by ID, written out: the page continues after this member (or,
 * with `before`, ends before it). The opaque `after`/`before` cursors carry the same position.
 */
@InputType('MemberKeyset', { description: 'A position in a listing by SCORE or ID: the page continues after this member, or ends before it with before: true.' })
export class MemberKeyset {
  @Field(() => Int, { nullable: true, description: "The member's points at the position (orderBy SCORE); leave it out for ID." }) points!: number | null;
  @Field(() => Int, { description: 'The member at the position: a place in the order, not a reference (any number will do).' }) memberId!: number;
  // Nullable with its default: the compiled execution (graphql-jit) refuses a non-null input field
  // left out even when it has a default, where graphql-js applies the default.
  @Field(() => Boolean, { nullable: true, defaultValue: false, description: 'true: the page before the position; false (or left out): the page after it.' }) before!: boolean | null;
}

/** The arguments of a members listing: `Query.members`, and `Brand.members` with the brand fixed. */
@ArgsType()
export class MemberListingArgs extends FilteredWindowArgs {
  @Field(() => MemberOrder, { defaultValue: MemberOrder.SCORE }) orderBy!: MemberOrder;
  @Field(() => String, { nullable: true, description: 'The custom field EXTENDED orders by: extended.<name>.' }) orderField!: string | null;
  @Field(() => SortDirection, { defaultValue: SortDirection.DESC }) sort!: SortDirection;
  @Field(() => Int, { defaultValue: 10 }) first!: number;
  @Field(() => String, { nullable: true }) after!: string | null;
  @Field(() => String, { nullable: true }) before!: string | null;
  @Field(() => MemberKeyset, { nullable: true, description: 'Where the page starts, as a position rather than a cursor (SCORE and ID orders); not with after or before.' })
  from!: MemberKeyset | null;
  @Field(() => Int, { nullable: true }) offset!: number | null;
}

/** Member.topBrands: the filter and window, the least points a brand needs and how many brands. */
@ArgsType()
export class TopBrandsArgs extends FilteredWindowArgs {
  @Field(() => Int, { defaultValue: 1 }) threshold!: number;
  @Field(() => Int, { defaultValue: 3 }) first!: number;
}

/** Member.activities: the filter and window, and a page of records. */
@ArgsType()
export class MemberActivitiesArgs extends FilteredWindowArgs {
  @Field(() => Int, { defaultValue: 3 }) first!: number;
  @Field(() => String, { nullable: true }) after!: string | null;
}

@ObjectType('Score', { description: 'Points and records of a member in a window, under a filter (docs/scoring.md).' })
export class Score {
  @Field(() => Int) points!: number;
  @Field(() => Int) activityCount!: number;
}

@ObjectType('MemberEdge')
export class MemberEdge {
  @Field(() => String) cursor!: string;
  @Field(() => Member) node!: Member;
}

@ObjectType('MemberConnection')
export class MemberConnection {
  @Field(() => [MemberEdge]) edges!: MemberEdge[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  /** Resolved on request only: counting is a query of its own. */
  totalCount?: () => Promise<number>;
  /** The brand of the listing's filter, if any. */
  brandId?: number;
}

@ObjectType('BrandAffinity', { description: "A brand among a member's top brands, by the member's score for it." })
export class BrandAffinity {
  @Field(() => ID) brandId!: number;
  @Field(() => String) name!: string;
  @Field(() => String) type!: string;
  @Field(() => Int) points!: number;
  @Field(() => Int) activityCount!: number;
}
