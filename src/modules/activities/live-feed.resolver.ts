import { Arg, Authorized, Ctx, Resolver, Root, Subscription } from 'type-graphql';
import type { SubscribeResolverData } from 'type-graphql';
import { applicationCaller } from '../../core/auth.js';
import { renewLoaders, type Context } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { compileFilter } from '../../filters/compile.js';
import { MemberFilter } from '../../filters/member-filter.types.js';
import { listingWindow, resolveWindow } from '../../filters/window.js';
import type { RecordRow } from './activities.queries.js';
import { toActivityRecord } from './activities.mapping.js';
import { ActivityRecord } from './activities.types.js';

/**
 * The account's records under the filter, from the moment of subscribing. The filter is checked and
 * compiled once, as the feed query's is; its any-of and all-of activities are read in the feed's
 * default window (the week before the subscription started).
 */
async function recordsOf({ args, context }: SubscribeResolverData<unknown, { filter?: MemberFilter | null }, Context>): Promise<AsyncIterable<RecordRow>> {
  const caller = applicationCaller(context);
  if (!context.liveFeed) throw new AppError('INVALID_PARAMETER', 'Subscriptions run over a WebSocket at /graphql (graphql-ws).', null);
  const filter = args.filter ?? null;
  const compiled = await compileFilter(context.database.db, caller.accountId, filter, resolveWindow(null, listingWindow));
  return context.liveFeed.subscribe(caller.accountId, JSON.stringify(filter), compiled);
}

@Resolver()
export class LiveFeedResolver {
  @Authorized()
  @Subscription(() => ActivityRecord, {
    description:
      "Each record of the account as it is committed, through any gateway, that the filter keeps (the activity feed's rules, one-time activities only with includeOneTime). Over graphql-ws at /graphql.",
    subscribe: recordsOf,
  })
  activityRecorded(
    @Root() record: RecordRow,
    @Ctx() context: Context,
    // Read by recordsOf when the subscription starts.
    @Arg('filter', () => MemberFilter, {
      nullable: true,
      description: "Which records arrive, by the feed's rules; anyOfActivities and allOfActivities are read in the week before subscribing. Checked once, when subscribing.",
    })
    _filter: MemberFilter | null,
  ): ActivityRecord {
    // A subscription keeps one context for all its events: each record reads its member, activity
    // and brand afresh instead of from loaders filled by the records before it.
    renewLoaders(context);
    return toActivityRecord(record);
  }
}
