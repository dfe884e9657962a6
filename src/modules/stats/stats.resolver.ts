import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { Executor } from '../../db/client.js';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import { pageOffset, pageSize } from '../../core/connection.js';
import type { Context } from '../../core/context.js';
import { invalidParameter, notFound } from '../../core/errors.js';
import { compileFilter, countryCodes, filterId } from '../../filters/compile.js';
import { FilteredWindowArgs } from '../../filters/filter-args.js';
import { listingWindow, resolveWindow } from '../../filters/window.js';
import type { ActivityType } from '../activities/activity-types.js';
import { brandMemberCountWhere, brandMemberTotal } from '../brands/brand-members.queries.js';
import { isLoginNetwork } from '../networks/networks.js';
import type { GroupDimension } from '../score-windows/score-window-groups.queries.js';
import { catchUpRead } from '../scoring/catch-up-reads.js';
import { chooseTotals, countFromTotals, type TotalsPlan } from '../scoring/score-windows.ranking.js';
import { groupCounts, type GroupCount } from '../scoring/kept-totals.queries.js';
import type { ScoringScope } from '../scoring/scoring.scope.js';
import { activityTotalsFromGroups, serviceTimelineFromKept } from './kept-reports.js';
import * as registrations from './registrations.queries.js';
import * as q from './stats.queries.js';
import { countryCounts, fillDays, serviceTimelines } from './stats.service.js';
import {
  ActiveMemberStats,
  ActivityGrouping,
  ActivityTotals,
  BrandActivityArgs,
  AgeBucket,
  BrandStats,
  ChannelCount,
  DayTimeline,
  DomainCount,
  GenderCount,
  LocationStats,
  MemberTimelines,
  RegistrationFilter,
  RegistrationStats,
  RegistrationStatsArgs,
  RegistrationTotals,
  SegmentStats,
  ServiceTimeline,
  TopDomainsArgs,
} from './stats.types.js';

/**
 * A brand's reports share the brand from the path: whatever the filter says about a brand, the
 * report's brand wins. Statistics read the replica when DATABASE_READ_URL is set.
 */
function brandScope(context: Context, root: BrandStats, { filter, window }: FilteredWindowArgs): Promise<ScoringScope> {
  return context.loaders.scoring.scope({ ...(filter ?? {}), brandId: String(root.brandId) }, window, listingWindow);
}

/**
 * The kept per-brand groups answer a report when a standard window is close to the requested one
 * and the filter asks for nothing but the brand (see docs/performance.md): `plan`. Otherwise the
 * report counts from the daily rollup. Either way it reads through `read`: in a catch-up turn while
 * the window's kept totals lag (catch-up-reads.ts), when the groups' correction, or the rollup, is
 * large.
 */
async function keptGroups(context: Context, scope: ScoringScope): Promise<{ plan: TotalsPlan | undefined; read: <T>(read: (db: Executor) => Promise<T>) => Promise<T> }> {
  const db = context.database.read;
  const { plan, lagging } = scope.filter.member() ? { plan: undefined, lagging: false } : await chooseTotals(db, scope.filter, scope.window);
  return { plan, read: (read) => catchUpRead(db, { accountId: scope.filter.accountId, lagging, window: scope.window }, () => read(db)) };
}

const sum = (groups: readonly GroupCount[], field: 'members' | 'activityCount') => groups.reduce((total, group) => total + group[field], 0);

/** Members active on the brand in the window by a bucket of one profile attribute, from the groups or the rollup. */
async function activeMembersBy(
  context: Context,
  scope: ScoringScope,
  dimension: GroupDimension,
  bucket: (typeof q.memberBuckets)[keyof typeof q.memberBuckets],
): Promise<{ bucket: string; members: number }[]> {
  const { plan, read } = await keptGroups(context, scope);
  if (!plan) return read((db) => q.activeMembersBy(db, scope.filter, scope.window, bucket.ofMember));
  const groups = await read((db) => groupCounts(db, plan.scope, plan.window, dimension, bucket.ofKey));
  return groups.map((group) => ({ bucket: group.key!, members: group.members }));
}

@Resolver(() => BrandStats)
export class BrandStatsResolver {
  @Authorized()
  @Query(() => BrandStats, { nullable: true, description: "A brand's statistics; another account's brand is not found." })
  async brandStats(@Ctx() context: Context, @Arg('brandId', () => ID, { description: 'The brand of the reports.' }) brandId: string): Promise<BrandStats> {
    const id = filterId(brandId, 'brandId');
    if (!id || !(await context.loaders.brands.withDeleted.load(id))) throw notFound('Brand', 'brandId');
    return { brandId: id };
  }

  @FieldResolver(() => ActivityTotals, { description: "The brand's records in the window, grouped by activity, type or network, most records first." })
  async activity(@Root() root: BrandStats, @Ctx() context: Context, @Args(() => BrandActivityArgs) { groupBy, filter, window, limit, first, offset }: BrandActivityArgs): Promise<ActivityTotals> {
    const scope = await brandScope(context, root, { filter, window });
    const grouping = groupBy === ActivityGrouping.ACTIVITY ? 'activity' : groupBy === ActivityGrouping.TYPE ? 'type' : 'service';
    const { plan, read } = await keptGroups(context, scope);
    const page = { limit: first !== null && first !== undefined ? pageSize(first) : pageSize(limit, 10, 'limit'), offset: pageOffset(offset) };
    const totals = plan
      ? await read((db) => activityTotalsFromGroups(db, plan, grouping, page, (ids) => context.loaders.activities.definitions.loadMany(ids)))
      : await read((db) => q.activityTotals(db, { filter: scope.filter, window: scope.window, grouping, ...page }));
    const segmentId = filterId(filter?.segmentId, 'segmentId') ?? filterId(filter?.membersFromSegment, 'membersFromSegment');
    return {
      brandId: root.brandId,
      segmentName: await q.segmentName(context.database.read, scope.filter.accountId, segmentId),
      // A type is a definition's, written only through the activity service's check: a word of ActivityType.
      items: totals.items.map((item) => ({
        activityId: item.activityId,
        activity: item.activity,
        type: item.type as ActivityType | null,
        service: item.service,
        count: item.count,
        distinctMembers: item.distinctMembers,
      })),
      totalCount: totals.totalCount,
      totalMembers: totals.totalMembers,
    };
  }

  @FieldResolver(() => [ServiceTimeline], { description: "The brand's records per UTC day of the window, one timeline per network." })
  async timeline(@Root() root: BrandStats, @Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<ServiceTimeline[]> {
    const scope = await brandScope(context, root, args);
    const { plan, read } = await keptGroups(context, scope);
    if (!plan) return serviceTimelines(scope.window, await read((db) => q.serviceTimeline(db, scope.filter, scope.window)));
    return serviceTimelines(scope.window, await read((db) => serviceTimelineFromKept(db, plan)));
  }

  @FieldResolver(() => LocationStats, { description: "The brand's records and active members in the window, by the members' country." })
  async location(@Root() root: BrandStats, @Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<LocationStats> {
    const scope = await brandScope(context, root, args);
    const { plan, read } = await keptGroups(context, scope);
    if (!plan) return countryCounts(await read((db) => q.locationTotals(db, scope.filter, scope.window)));
    const groups = await read((db) => groupCounts(db, plan.scope, plan.window, 'country'));
    return countryCounts([
      ...groups.map((group) => ({ country: group.key, isTotal: false, actions: group.activityCount, members: group.members })),
      { country: null, isTotal: true, actions: sum(groups, 'activityCount'), members: sum(groups, 'members') },
    ]);
  }

  @FieldResolver(() => ActiveMemberStats, { description: "The brand's members, active in the window or not." })
  async members(@Root() root: BrandStats, @Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<ActiveMemberStats> {
    const scope = await brandScope(context, root, args);
    const db = context.database.read;
    const { plan, read } = await keptGroups(context, scope);
    // Without member conditions the brand's kept count answers; with them, its kept pairs are filtered.
    const [total, active] = await Promise.all([
      scope.filter.member() ? brandMemberCountWhere(db, scope.filter, root.brandId) : brandMemberTotal(db, scope.filter.accountId, root.brandId),
      read((reader) => (plan ? countFromTotals(reader, plan) : q.activeMemberCount(reader, scope.filter, scope.window))),
    ]);
    return { activeMembers: active, inactiveMembers: total - active, totalMembers: total };
  }

  @FieldResolver(() => [AgeBucket], { description: 'Members active on the brand in the window, by age range.' })
  async age(@Root() root: BrandStats, @Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<AgeBucket[]> {
    const scope = await brandScope(context, root, args);
    const rows = await activeMembersBy(context, scope, 'birth_date', q.memberBuckets.age);
    return rows.map((row) => ({ range: row.bucket, members: row.members }));
  }

  @FieldResolver(() => [GenderCount], { description: 'Members active on the brand in the window, by gender.' })
  async gender(@Root() root: BrandStats, @Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<GenderCount[]> {
    const scope = await brandScope(context, root, args);
    const rows = await activeMembersBy(context, scope, 'gender', q.memberBuckets.gender);
    return rows.map((row) => ({ gender: row.bucket, members: row.members }));
  }

  @FieldResolver(() => [SegmentStats], { description: "The brand's segments: members now, their records on the brand of all time." })
  async segments(@Root() root: BrandStats, @Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller): Promise<SegmentStats[]> {
    return q.segmentTotals(context.database.read, caller.accountId, root.brandId);
  }
}

function checkedRegistrationFilter(filter: RegistrationFilter | null | undefined): registrations.ChannelFilter {
  const service = filter?.service?.trim().toLowerCase();
  if (service && !isLoginNetwork(service)) throw invalidParameter('service', 'expected a network identifier such as email or spotify');
  countryCodes(filter?.countries);
  return { validOnly: filter?.validOnly, service, paidOnly: filter?.paidOnly };
}

@Resolver(() => RegistrationStats)
export class RegistrationStatsResolver {
  @Authorized()
  @Query(() => RegistrationStats, { description: 'Sign-ups per network, registrations per website and per day, and totals of registrations and sign-ins.' })
  registrationStats(@Args(() => RegistrationStatsArgs) { filter, window }: RegistrationStatsArgs): RegistrationStats {
    checkedRegistrationFilter(filter);
    resolveWindow(window, listingWindow);
    return { filter, window };
  }

  @FieldResolver(() => [ChannelCount], { description: 'Sign-ups per network: all time by default, or in the window.' })
  async channels(
    @Root() root: RegistrationStats,
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('allTime', () => Boolean, { defaultValue: true, description: 'true: every identity ever linked; false: those linked in the window.' }) allTime: boolean,
  ) {
    const window = allTime ? undefined : resolveWindow(root.window, listingWindow);
    const channel = checkedRegistrationFilter(root.filter);
    // The members' own conditions (their countries) are the member filter's, compiled by its one compiler.
    const members = await compileFilter(context.database.read, caller.accountId, { countries: root.filter?.countries }, undefined);
    return registrations.signupsByChannel(context.database.read, members, channel, window);
  }

  @FieldResolver(() => [DomainCount], { description: 'Registrations per website in the window.' })
  async domains(
    @Root() root: RegistrationStats,
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('first', () => Int, { defaultValue: 100, description: 'Websites returned, most members first: at least 1; more than 1000 is cut to 1000.' }) first: number,
    @Arg('offset', () => Int, { nullable: true, description: 'Websites skipped before the first one returned.' }) offset: number | null,
  ) {
    const window = resolveWindow(root.window, listingWindow);
    return registrations.eventsByDomain(context.database.read, { accountId: caller.accountId, kind: 'register', window, limit: pageSize(first), offset: pageOffset(offset) });
  }

  @FieldResolver(() => DayTimeline, { description: 'Registrations per day of the window.' })
  async timeline(@Root() root: RegistrationStats, @Ctx() context: Context): Promise<DayTimeline> {
    const scope = await context.loaders.scoring.scope(null, root.window, listingWindow);
    return fillDays(scope.window, await registrations.eventsByDay(context.database.read, scope.filter, 'register', scope.window));
  }

  @FieldResolver(() => RegistrationTotals, { description: 'Registration and sign-in events in the window, and the members behind them.' })
  totals(@Root() root: RegistrationStats, @Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller) {
    return registrations.eventTotals(context.database.read, caller.accountId, resolveWindow(root.window, listingWindow));
  }
}

@Resolver(() => MemberTimelines)
export class MemberTimelinesResolver {
  @Authorized()
  @Query(() => MemberTimelines, {
    description: "Records and sign-ins per UTC day of the window for the members the filter keeps; sign-ins read no records, so the filter's brandId and services apply to the members (docs/filters.md).",
  })
  async memberTimelines(@Ctx() context: Context, @Args(() => FilteredWindowArgs) args: FilteredWindowArgs): Promise<MemberTimelines> {
    await context.loaders.scoring.scope(args.filter, args.window, listingWindow);
    return { filter: args.filter, window: args.window };
  }

  @FieldResolver(() => DayTimeline, { description: 'Records and active members per day.' })
  async activity(@Root() root: MemberTimelines, @Ctx() context: Context): Promise<DayTimeline> {
    const scope = await context.loaders.scoring.scope(root.filter, root.window, listingWindow);
    return fillDays(scope.window, await q.dailyActivity(context.database.read, scope.filter, scope.window));
  }

  @FieldResolver(() => DayTimeline, { description: 'Sign-ins and members signing in per day.' })
  async visits(@Root() root: MemberTimelines, @Ctx() context: Context): Promise<DayTimeline> {
    const scope = await context.loaders.scoring.scope(root.filter, root.window, listingWindow);
    return fillDays(scope.window, await registrations.eventsByDay(context.database.read, scope.filter, 'login', scope.window));
  }
}

@Resolver()
export class TopDomainsResolver {
  @Authorized()
  @Query(() => [DomainCount], { description: 'Websites members signed in or registered from in the window, by members.' })
  async topDomains(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Args(() => TopDomainsArgs) { window, first, offset }: TopDomainsArgs): Promise<DomainCount[]> {
    const span = resolveWindow(window, listingWindow);
    return registrations.eventsByDomain(context.database.read, { accountId: caller.accountId, window: span, limit: pageSize(first), offset: pageOffset(offset) });
  }
}
