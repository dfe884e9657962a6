import { Args, ArgsType, Authorized, Ctx, Field, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { accountOf } from '../../core/auth.js';
import { pageOffset, pageRequest } from '../../core/connection.js';
import type { Context } from '../../core/context.js';
import { invalidParameter } from '../../core/errors.js';
import { FilteredWindowArgs, isDefaultFilter, isDefaultWindow } from '../../filters/filter-args.js';
import { listingWindow } from '../../filters/window.js';
import { ActivityRecordConnection, SortDirection } from './activities.types.js';
import { countFeedRecords, feedRecords } from './feed.queries.js';
import { keysetRecordPage, listDigest, openRecordList, readDirection } from './record-cursors.js';

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
  @Field(() => Int, { defaultValue: 10, description: 'Records per page, 1 to 1000 (more is refused); the size of a backward page too when last is left out.' })
  first!: number;
  @Field(() => String, {
    nullable: true,
    description: "A cursor (an edge's cursor, pageInfo.endCursor): the page continues after that record, in the first page's window and among the records stored by the first page's time.",
  })
  after!: string | null;
  @Field(() => Int, { nullable: true, description: 'Reads backward: the last records of the list (before before, when given), 1 to 1000; first is then not read.' })
  last!: number | null;
  @Field(() => String, { nullable: true, description: "A cursor (an edge's cursor, pageInfo.startCursor): the page that ends just before that record; not with after." })
  before!: string | null;
  @Field(() => Int, { nullable: true, description: 'Items skipped before the first page, 0 to 100,000 (REST limit=offset,n); refused with a cursor (after, before) or last.' })
  offset!: number | null;
}

@Resolver()
export class FeedResolver {
  @Authorized()
  @Query(() => ActivityRecordConnection, { description: "Recent activity under a filter: each member's latest action, or every action." })
  async activityFeed(@Ctx() context: Context, @Args(() => ActivityFeedArgs) args: ActivityFeedArgs): Promise<ActivityRecordConnection> {
    const { filter, window, keyword, allMemberActions, orderByRecorded, sort, offset } = args;
    if (keyword && keyword.length > 200) throw invalidParameter('keyword', 'expected at most 200 characters');
    const page = pageRequest(args);
    const start = pageOffset(offset);
    const scope = await context.loaders.scoring.scope(filter, window, listingWindow);
    const digest = listDigest(['feed', isDefaultFilter(filter) ? null : filter, isDefaultWindow(window) ? null : window, keyword ?? null, allMemberActions, orderByRecorded, sort]);
    const sign = context.identity.cursorSigner;
    // A page continued from a cursor reads the first page's window, among the records stored by then.
    const list = openRecordList(sign, page, { accountId: accountOf(context), digest, window: scope.window });
    const selection = { keyword: keyword?.trim() || undefined, allMemberActions, orderByRecorded, recordedBy: list.recordedBy };
    const db = context.database.db;
    const direction = readDirection(sort, page);
    const rows = await feedRecords(db, scope.filter, list.window, { ...selection, direction, limit: page.size + 1, offset: start, after: list.from });
    return keysetRecordPage(sign, list, page, rows, { offset: start, totalCount: () => countFeedRecords(db, scope.filter, list.window, selection) });
  }
}

@Resolver(() => ActivityRecordConnection)
export class ActivityRecordConnectionResolver {
  @FieldResolver(() => Int, { description: 'Items of the list under its filter and window (and keyword), all pages together; counted only when asked for.' })
  totalCount(@Root() connection: ActivityRecordConnection): Promise<number> {
    return connection.totalCount ? connection.totalCount() : Promise.resolve(connection.edges.length);
  }
}
