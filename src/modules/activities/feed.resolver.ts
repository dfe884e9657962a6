import { Args, ArgsType, Authorized, Ctx, Field, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { decodeCursor, pageOffset, pageSize } from '../../core/connection.js';
import type { Context } from '../../core/context.js';
import { invalidParameter } from '../../core/errors.js';
import { FilteredWindowArgs } from '../../filters/filter-args.js';
import { listingWindow } from '../../filters/window.js';
import { ActivityRecordConnection, SortDirection } from './activities.types.js';
import { recordPage } from './activities.mapping.js';
import { countFeedRecords, feedRecords } from './feed.queries.js';

const isOffsetCursor = (value: Record<string, unknown>): value is { o: number } => Number.isSafeInteger(value.o);

/** activityFeed: the filter and window, what the feed keeps, its order and its page. */
@ArgsType()
export class ActivityFeedArgs extends FilteredWindowArgs {
  @Field(() => String, { nullable: true, description: 'Text the content must contain (any case).' }) keyword!: string | null;
  @Field(() => Boolean, { defaultValue: false, description: "false: each member's latest record in the window; true: every record (REST all_member_actions)." })
  allMemberActions!: boolean;
  @Field(() => Boolean, {
    defaultValue: false,
    description: "Order (and pick each member's latest) by when records were stored rather than completed; the window still goes by completion (REST order_by_recorded).",
  })
  orderByRecorded!: boolean;
  @Field(() => SortDirection, { defaultValue: SortDirection.DESC, description: 'DESC: newest first; ASC: oldest first.' }) sort!: SortDirection;
  @Field(() => Int, { defaultValue: 10, description: 'Records per page: at least 1; more than 1000 is cut to 1000.' }) first!: number;
  @Field(() => String, { nullable: true, description: 'A cursor (pageInfo.endCursor of an earlier page): the page continues after it.' }) after!: string | null;
  @Field(() => Int, { nullable: true, description: "Items skipped before the page, 0 to 100,000 (REST limit=offset,n); added to after's position." }) offset!: number | null;
}

@Resolver()
export class FeedResolver {
  @Authorized()
  @Query(() => ActivityRecordConnection, { description: "Recent activity under a filter: each member's latest action, or every action." })
  async activityFeed(
    @Ctx() context: Context,
    @Args(() => ActivityFeedArgs) { filter, window, keyword, allMemberActions, orderByRecorded, sort, first, after, offset }: ActivityFeedArgs,
  ): Promise<ActivityRecordConnection> {
    if (keyword && keyword.length > 200) throw invalidParameter('keyword', 'expected at most 200 characters');
    const limit = pageSize(first);
    const cursor = decodeCursor(after, 'after', isOffsetCursor);
    const start = pageOffset(offset) + (cursor ? cursor.o + 1 : 0);
    const scope = await context.loaders.scoring.scope(filter, window, listingWindow);
    const selection = { keyword: keyword?.trim() || undefined, allMemberActions, orderByRecorded };
    const db = context.database.db;
    const rows = await feedRecords(db, scope.filter, scope.window, { ...selection, direction: sort, limit: limit + 1, offset: start });
    return recordPage(rows, limit, start, () => countFeedRecords(db, scope.filter, scope.window, selection));
  }
}

@Resolver(() => ActivityRecordConnection)
export class ActivityRecordConnectionResolver {
  @FieldResolver(() => Int, { description: 'Items of the list under its filter and window (and keyword), all pages together; counted only when asked for.' })
  totalCount(@Root() connection: ActivityRecordConnection): Promise<number> {
    return connection.totalCount ? connection.totalCount() : Promise.resolve(connection.edges.length);
  }
}
