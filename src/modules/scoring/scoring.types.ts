import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { FilteredWindowArgs } from '../../filters/filter-args.js';
import { PageInfo } from '../../core/connection.js';
import { SortDirection } from '../activities/activities.types.js';
import { Member } from '../members/members.types.js';
import type { ScoringScope } from './scoring.scope.js';

export enum MemberOrder {
  SCORE = 'SCORE',
  CREATED = 'CREATED',
  LAST_LOGIN = 'LAST_LOGIN',
  ID = 'ID',
  EXTENDED = 'EXTENDED',
}
registerEnumType(MemberOrder, {
  name: 'MemberOrder',
  description: 'The order of a members listing, and with it which members it lists.',
  valuesConfig: {
    SCORE: { description: 'Members with counted activity in the window under the filter, by points; ties by member id, ascending (REST members/active).' },
    CREATED: { description: 'Members who joined in the window, by when they joined.' },
    LAST_LOGIN: { description: 'Members who signed in during the window, by their latest login (REST members/login).' },
    ID: { description: 'Every member the filter keeps, whatever the window, by id (REST members/all).' },
    EXTENDED: {
      description: 'Every member the filter keeps, by the custom field orderField: JSON numbers first (as numbers), then other values as text; members without it last.',
    },
  },
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
  @Field(() => MemberOrder, { defaultValue: MemberOrder.SCORE, description: 'The order, and which members it lists.' }) orderBy!: MemberOrder;
  @Field(() => String, { nullable: true, description: 'The custom field EXTENDED orders by: extended.<name>.' }) orderField!: string | null;
  @Field(() => SortDirection, { defaultValue: SortDirection.DESC, description: 'DESC: the highest score, latest date, largest id or value first; ASC: the reverse.' })
  sort!: SortDirection;
  @Field(() => Int, { defaultValue: 10, description: 'Members per page, 1 to 1000 (more is refused); the size of a backward page too when last is left out.' }) first!: number;
  @Field(() => String, { nullable: true, description: "A cursor (an edge's cursor, pageInfo.endCursor): the page continues after that member." }) after!: string | null;
  @Field(() => String, { nullable: true, description: 'A cursor (pageInfo.startCursor): the page that ends just before that member (SCORE and ID orders).' })
  before!: string | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Members of a backward page (with before, or from with before: true), 1 to 1000; first is then not read. Without a place it is refused: read the end of a listing with sort reversed.',
  })
  last!: number | null;
  @Field(() => MemberKeyset, { nullable: true, description: 'Where the page starts, as a position rather than a cursor (SCORE and ID orders); not with after or before.' })
  from!: MemberKeyset | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Members skipped before the page, 0 to 100,000 (REST limit=offset,n); not applied when a SCORE or ID page starts from a cursor or from.',
  })
  offset!: number | null;
}

/** Member.topBrands: the filter and window, the least points a brand needs and how many brands. */
@ArgsType()
export class TopBrandsArgs extends FilteredWindowArgs {
  @Field(() => Int, { defaultValue: 1, description: 'The least points a brand needs in the window; at least 1.' }) threshold!: number;
  @Field(() => Int, { defaultValue: 3, description: 'How many brands, best first (ties by brand id): 1 to 1000 (more is refused).' }) first!: number;
}

/** Member.activities: the filter and window, and a page of records. */
@ArgsType()
export class MemberActivitiesArgs extends FilteredWindowArgs {
  @Field(() => Int, { defaultValue: 3, description: 'Records per page, 1 to 1000 (more is refused); the size of a backward page too when last is left out.' }) first!: number;
  @Field(() => String, {
    nullable: true,
    description: "A cursor (an edge's cursor, pageInfo.endCursor): the page continues after that record, in the first page's window and among the records stored by the first page's time.",
  })
  after!: string | null;
  @Field(() => Int, { nullable: true, description: 'Reads backward: the oldest records of the list (those before before, when given), 1 to 1000; first is then not read.' })
  last!: number | null;
  @Field(() => String, { nullable: true, description: "A cursor (an edge's cursor, pageInfo.startCursor): the page that ends just before that record; not with after." })
  before!: string | null;
}

@ObjectType('Score', { description: 'Points and records of a member in a window, under a filter (docs/scoring.md).' })
export class Score {
  @Field(() => Int, { description: 'The sum of the points of the counted records (REST Score); points are those of the activity when each was recorded.' }) points!: number;
  @Field(() => Int, { description: 'The number of the counted records (REST ActivityCount).' }) activityCount!: number;
}

/** A listed member's rank: exact up to `rankCap`, beyond it only known to be larger. */
export interface ListingRank {
  rank: number | null;
  capped: boolean;
}

/** What an edge's own fields answer from: the listing's scope, and its rank, counted once per page. */
export interface ListingPlace {
  scope: ScoringScope;
  memberId: number;
  rank: () => Promise<ListingRank>;
}

@ObjectType('MemberEdge', {
  description: "A member of a listing's page, with its place in the listing and the listing's figures for it (score, rank, lastActivity): not cached on the member.",
})
export class MemberEdge {
  @Field(() => String, { description: "Opaque: this member's place in the listing, to pass as after or before." }) cursor!: string;
  @Field(() => Member, {
    description: "The member. Its score, lastActivity and position without arguments answer the listing's figures (deprecated in a listing: read the edge's score, lastActivity and rank).",
  })
  node!: Member;
  /** Resolved by MemberEdgeResolver. */
  place!: ListingPlace;
}

@ObjectType('MemberConnection', { description: "A page of a members listing, in the listing's order." })
export class MemberConnection {
  @Field(() => [MemberEdge], { description: "The page's members, in order." }) edges!: MemberEdge[];
  @Field(() => [Member], { description: 'The nodes of edges, in the same order.' }) nodes!: Member[];
  @Field(() => PageInfo, { description: 'Whether pages follow or precede this one, and the cursors to reach them.' }) pageInfo!: PageInfo;
  /** Resolved on request only: counting is a query of its own. */
  totalCount?: () => Promise<number>;
  /** The brand of the listing's filter, if any. */
  brandId?: number;
}

@ObjectType('BrandAffinity', { description: "A brand among a member's top brands, by the member's score for it." })
export class BrandAffinity {
  @Field(() => ID, { description: "The brand's id.", deprecationReason: 'Use brand.' }) brandId!: number;
  @Field(() => String, { description: "The brand's name.", deprecationReason: 'Use brand.' }) name!: string;
  @Field(() => String, { description: "The brand's type: Music, Sport, …", deprecationReason: 'Use brand.' }) type!: string;
  @Field(() => Int, { description: "The member's points on this brand in the window under the filter." }) points!: number;
  @Field(() => Int, { description: "The member's counted records on this brand in the window." }) activityCount!: number;
}
