import type { GraphQLResolveInfo } from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { Args, Authorized, Ctx, FieldResolver, Info, Int, Query, Resolver, Root } from 'type-graphql';
import { accountOf } from '../../core/auth.js';
import { pageRequest, pageSize } from '../../core/connection.js';
import type { Context } from '../../core/context.js';
import { invalidParameter } from '../../core/errors.js';
import { FilteredWindowArgs, isDefaultFilter, isDefaultWindow } from '../../filters/filter-args.js';
import { memberWindow } from '../../filters/window.js';
import { assertMemberTokenFilter } from '../../filters/member-token.js';
import { toActivityRecord } from '../activities/activities.mapping.js';
import { keysetRecordPage, listDigest, openRecordList, readDirection } from '../activities/record-cursors.js';
import { ActivityRecord, ActivityRecordConnection } from '../activities/activities.types.js';
import { Member } from '../members/members.types.js';
import * as q from './scoring.queries.js';
import { listMembers, rankCap, type ListedNode } from './member-listing.js';
import { memberRank, memberRankInListing } from './member-rank.js';
import type { ScoringScope } from './scoring.scope.js';
import { BrandAffinity, MemberActivitiesArgs, MemberConnection, MemberEdge, MemberListingArgs, Score, TopBrandsArgs } from './scoring.types.js';

/**
 * Member.activities costs what the list of records it replaced cost: the page size times what each
 * record selects. The connection's two wrapper levels (edges, node) are not priced, so member show
 * with `showactions` keeps its cost, and the largest `limit` the cost limit lets through.
 */
const recordPageCost: ComplexityEstimator = ({ args, childComplexity }) =>
  1 + Math.max(childComplexity - 2, 1) * (typeof args.last === 'number' ? args.last : typeof args.first === 'number' ? args.first : 3);

@Resolver(() => Member)
export class ScoringResolver {
  @Authorized()
  @Query(() => MemberConnection, { description: 'Members under a filter, ranked by score in the window or in a plain order.' })
  members(@Ctx() context: Context, @Args(() => MemberListingArgs) args: MemberListingArgs, @Info() info: GraphQLResolveInfo): Promise<MemberConnection> {
    return listMembers(context, args, info);
  }

  @FieldResolver(() => Score, {
    description:
      "Points and records in the window under the filter (by default the week to now, every record). As a listing's node without arguments it answers the listing's figures instead: deprecated, read MemberEdge.score there (docs/graphql.md, Scores in listings).",
  })
  async score(@Root() member: ListedNode, @Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<Score> {
    const scope = await this.scope(member, context, args);
    return context.loaders.scoring.of(scope).score.load(member.id);
  }

  @FieldResolver(() => String, {
    nullable: true,
    description:
      "The member's rank by points under the filter: exact below 1000, `999+` beyond; null without activity, or when the filter excludes the member (a rank among members it does not rank). As a listing's node without arguments, under the listing's filter and window. A statement per member.",
    deprecationReason: 'Use MemberEdge.rank and MemberEdge.rankCapped in a listing by SCORE, or Member.rank.',
  })
  async position(@Root() member: ListedNode, @Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<string | null> {
    const scope = await this.scope(member, context, args);
    const score = await context.loaders.scoring.of(scope).score.load(member.id);
    return memberRank(context.database.db, scope, member.id, score);
  }

  @FieldResolver(() => Int, {
    nullable: true,
    description: `The member's rank in the listing by SCORE (descending) under the filter and window, as MemberEdge.rank would give it there (ties by member id, ascending); by default the week to now and every record, in a listing too. Null when that listing does not hold the member (no counted activity, or the filter excludes it), or ranks it beyond ${rankCap.toLocaleString('en')}. A statement or two per member: for many members, read MemberEdge.rank.`,
  })
  async rank(@Root() member: ListedNode, @Ctx() context: Context, @Args(() => FilteredWindowArgs) { filter, window }: FilteredWindowArgs): Promise<number | null> {
    assertMemberTokenFilter(context.caller, filter);
    // Never the listing's scope: a new field, it means the same wherever the member appears.
    const scope = await context.loaders.scoring.scope(filter, window, memberWindow);
    const score = await context.loaders.scoring.of(scope).score.load(member.id);
    return memberRankInListing(context.database.db, scope, member.id, score);
  }

  @FieldResolver(() => ActivityRecord, {
    nullable: true,
    description: "The latest record in the window under the filter (by default the week to now). As a listing's node without arguments, the listing's: deprecated, read MemberEdge.lastActivity there.",
  })
  async lastActivity(@Root() member: ListedNode, @Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<ActivityRecord | null> {
    const scope = await this.scope(member, context, args);
    const row = await context.loaders.scoring.of(scope).lastRecord.load(member.id);
    return row ? toActivityRecord(row) : null;
  }

  @FieldResolver(() => [BrandAffinity], { description: 'Brands the member scored most for in the window, at least `threshold` points.' })
  async topBrands(@Root() member: ListedNode, @Ctx() context: Context, @Args(() => TopBrandsArgs) { threshold, first, ...args }: TopBrandsArgs): Promise<BrandAffinity[]> {
    if (!Number.isInteger(threshold) || threshold < 1) throw invalidParameter('threshold', 'expected a whole number of at least 1');
    const scope = await this.scope(member, context, args);
    return q.topBrandsOf(context.database.db, { filter: scope.filter, window: scope.window, memberId: member.id, threshold, limit: pageSize(first, 3) });
  }

  @FieldResolver(() => ActivityRecordConnection, {
    description: "The member's records in the window under the filter, newest first.",
    complexity: recordPageCost,
  })
  async activities(@Root() member: ListedNode, @Ctx() context: Context, @Args(() => MemberActivitiesArgs) { first, after, last, before, ...args }: MemberActivitiesArgs): Promise<ActivityRecordConnection> {
    const page = pageRequest({ first, after, last, before }, 3);
    const scope = await this.scope(member, context, args);
    const listed = Boolean(member.listing) && isDefaultFilter(args.filter) && isDefaultWindow(args.window);
    const digest = listDigest(['member-activities', listed, isDefaultFilter(args.filter) ? null : args.filter, isDefaultWindow(args.window) ? null : args.window]);
    const sign = context.identity.cursorSigner;
    // A page continued from a cursor reads the first page's window, among the records stored by then.
    const list = openRecordList(sign, page, { accountId: accountOf(context), digest, window: scope.window });
    const records = { window: list.window, recordedBy: list.recordedBy };
    const loaders = context.loaders.scoring.of(scope);
    // One more record than the page tells whether another page follows (or, backward, precedes).
    const rows = await loaders.recordPage({ ...records, limit: page.size + 1, direction: readDirection('DESC', page) }).load({ memberId: member.id, after: list.from });
    return keysetRecordPage(sign, list, page, rows, { totalCount: () => loaders.recordCount(records).load(member.id) });
  }

  private scope(member: ListedNode, context: Context, { filter, window }: FilteredWindowArgs): Promise<ScoringScope> {
    assertMemberTokenFilter(context.caller, filter);
    if (!filter && !window && member.listing) return Promise.resolve(member.listing);
    return context.loaders.scoring.scope(filter, window, memberWindow);
  }
}

/**
 * A listing's figures for each of its members, on the edge: Apollo and urql normalise the member
 * (`Member:<id>`) but keep each edge inside its own listing, so a week's and a month's leaderboard
 * on one screen keep their own numbers. All from the listing's scope: a page costs the same few
 * statements whatever its size (the ranking primed the scores; the latest records are one
 * statement; the rank is the page's offset, or one count before a keyset page).
 */
@Resolver(() => MemberEdge)
export class MemberEdgeResolver {
  @FieldResolver(() => Score, {
    description: "The member's points and records in the listing's window under its filter: those it ranks by, ordered by SCORE.",
  })
  score(@Root() edge: MemberEdge, @Ctx() context: Context): Promise<Score> {
    return context.loaders.scoring.of(edge.place.scope).score.load(edge.place.memberId);
  }

  @FieldResolver(() => ActivityRecord, { nullable: true, description: "The member's latest record in the listing's window under its filter." })
  async lastActivity(@Root() edge: MemberEdge, @Ctx() context: Context): Promise<ActivityRecord | null> {
    const row = await context.loaders.scoring.of(edge.place.scope).lastRecord.load(edge.place.memberId);
    return row ? toActivityRecord(row) : null;
  }

  @FieldResolver(() => Int, {
    nullable: true,
    description: `The member's place in the whole listing, in its order, from 1: ties (equal points, dates or values) are ranked as the listing orders them, by member id ascending, so no two members share a rank. Exact up to ${rankCap.toLocaleString('en')}; beyond, null with rankCapped true.`,
  })
  async rank(@Root() edge: MemberEdge): Promise<number | null> {
    return (await edge.place.rank()).rank;
  }

  @FieldResolver(() => Boolean, { description: `Whether the member is ranked beyond ${rankCap.toLocaleString('en')}, which a listing does not count exactly (rank is then null).` })
  async rankCapped(@Root() edge: MemberEdge): Promise<boolean> {
    return (await edge.place.rank()).capped;
  }
}

@Resolver(() => MemberConnection)
export class MemberConnectionResolver {
  @FieldResolver(() => Int, { description: 'Members in the listing, all pages together.' })
  totalCount(@Root() connection: MemberConnection): Promise<number> {
    return connection.totalCount ? connection.totalCount() : Promise.resolve(connection.edges.length);
  }
}
