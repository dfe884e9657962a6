import {
  BrandActivityStatsDocument,
  BrandAgeStatsDocument,
  BrandGenderStatsDocument,
  BrandLocationStatsDocument,
  BrandMemberStatsDocument,
  BrandSegmentStatsDocument,
  BrandTimelineStatsDocument,
  MemberActivityTimelineDocument,
  MemberVisitTimelineDocument,
  RegistrationDomainsDocument,
  RegistrationTimelineDocument,
  RegistrationTotalsDocument,
  SignupChannelsDocument,
  TopDomainsDocument,
  type ActivityGrouping,
  type DayTimelineFragment,
  type MemberFilter,
} from '../../generated/graphql.js';
import { listingWindow, windowClamp } from '../../filters/window.js';
import { activityTypeWords } from '../enums.js';
import { memberFilterOf, windowOf } from '../filter-params.js';
import type { Params } from '../params.js';
import { defineRoute, pathId } from '../route.js';
import { brandFromPath, listOf, pageOf } from '../route-forms.js';

const text = (value: number) => String(value);

const groupings: Record<string, ActivityGrouping> = { activities: 'ACTIVITY', activity: 'ACTIVITY', type: 'TYPE', service: 'SERVICE' };

/** The brand report's filter: the shared set, with `id` naming one member. */
function brandFilter(params: Params): MemberFilter {
  const filter = memberFilterOf(params);
  const member = params.int('id', { min: 1 });
  return member === undefined ? filter : { ...filter, memberIds: [...(filter.memberIds ?? []), String(member)] };
}

/** A report's groups by `limit` (`n` or `offset,n`): the totals are made from the groups of that page. */
function groupPage(params: Params) {
  const { offset, limit } = params.limit();
  return { limit, offset };
}

/**
 * `clamped` and `notice` of a brand report (beside the seed's fields): the interface names no
 * maximum window for brand statistics, so a window cut to six months says so, as usage does.
 */
const clampOf = (params: Params) => windowClamp(windowOf(params) as Parameters<typeof windowClamp>[0], listingWindow);

const brandVariables = (params: Params, request: Parameters<typeof pathId>[0]) => ({ brandId: pathId(request), filter: brandFilter(params), window: windowOf(params) });

export const brandActivityStatsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/stats/activity',
  description: 'Brand activity totals: per activity (or per type or service with `group_by`), the records and distinct members in the window.',
  response: 'BrandActivityStats',
  document: BrandActivityStatsDocument,
  variables: (params, request) => {
    const group = params.oneOf('group_by', Object.keys(groupings)) ?? 'activities';
    return { ...brandVariables(params, request), groupBy: groupings[group], ...groupPage(params) };
  },
  shape: ({ brandStats }, params) => {
    const { activity } = brandStats;
    const items = activity.items.map((item) => ({
      ActivityID: item.activityId,
      BrandID: brandStats.brandId,
      SegmentName: activity.segmentName,
      Activity: item.activity,
      ServiceType: item.service,
      Count: text(item.count),
      DistinctMembers: text(item.distinctMembers),
    }));
    return [{ totalSize: items.length, items, TotalCount: text(activity.totalCount), TotalMembers: text(activity.totalMembers), ...clampOf(params) }];
  },
});

export const brandTimelineStatsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/stats/timeline',
  description: 'Brand timeline: per service, the records and distinct members of each day in the window.',
  response: 'BrandTimelineStats',
  document: BrandTimelineStatsDocument,
  variables: brandVariables,
  shape: ({ brandStats }, params) => [
    {
      ...clampOf(params),
      services: brandStats.timeline.map((service) => ({
        service: service.service,
        range: service.days.map((day) => ({ Date: day.date, DayofYear: text(day.dayOfYear), Count: text(day.count), DistinctMembers: text(day.distinctMembers) })),
        // The seed marks these two numbers.
        TotalCount: service.totalCount,
        TotalMembers: service.totalMembers,
      })),
    },
  ],
});

export const brandLocationStatsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/stats/location',
  description: 'Brand activity by location: actions and members per country in the window.',
  response: 'BrandLocationStats',
  document: BrandLocationStatsDocument,
  variables: brandVariables,
  shape: ({ brandStats: { location } }, params) => ({
    ...clampOf(params),
    TotalActivities: location.totalActivities,
    TotalMembers: location.totalMembers,
    Countries: location.countries.map((country) => ({
      Country: country.country,
      CountryName: country.countryName,
      Actions: text(country.actions),
      Members: text(country.members),
    })),
  }),
});

/** Active members' `group_by`: the seed names activities (default) and type only. */
const memberGroupings: Record<string, ActivityGrouping> = { activities: 'ACTIVITY', activity: 'ACTIVITY', type: 'TYPE' };

/**
 * The seed's three numbers, and `Groups`: the active members per activity (or per activity type),
 * the groups of the activity report (most records first, at most `limit`; default 10).
 */
export const brandMemberStatsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/stats/members',
  description: 'Brand active members: active, inactive and total members in the window, with the active members per activity (or per type).',
  response: 'BrandMemberStats',
  document: BrandMemberStatsDocument,
  variables: (params, request) => {
    const group = params.oneOf('group_by', ['activities', 'activity', 'type']) ?? 'activities';
    return { ...brandVariables(params, request), groupBy: memberGroupings[group], ...groupPage(params) };
  },
  shape: ({ brandStats: { members, activity } }, params) => {
    const byType = (params.string('group_by') ?? '').toLowerCase() === 'type';
    const groups = activity.items.map((item) =>
      byType ? { Type: item.type && activityTypeWords.word(item.type), ActiveMembers: item.distinctMembers } : { ActivityID: item.activityId, Activity: item.activity, ActiveMembers: item.distinctMembers },
    );
    return {
      ActiveMembers: members.activeMembers,
      InactiveMembers: members.inactiveMembers,
      TotalMembers: members.totalMembers,
      Groups: groups,
      ...clampOf(params),
    };
  },
});

export const brandAgeStatsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/stats/age',
  response: 'BrandAgeStats',
  description: 'Brand age breakdown: members of the brand per age range.',
  document: BrandAgeStatsDocument,
  variables: brandVariables,
  shape: ({ brandStats }) => listOf(brandStats.age, (bucket) => ({ Range: bucket.range, Members: text(bucket.members) })),
});

export const brandGenderStatsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/stats/gender',
  response: 'BrandGenderStats',
  description: 'Brand gender breakdown: members of the brand per gender.',
  document: BrandGenderStatsDocument,
  variables: brandVariables,
  shape: ({ brandStats }) => listOf(brandStats.gender, (row) => ({ Gender: row.gender, Members: text(row.members) })),
});

export const brandSegmentStatsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/stats/segments',
  response: 'BrandSegmentStats',
  description: 'Brand segment statistics: all-time members and activities per segment of the brand.',
  document: BrandSegmentStatsDocument,
  variables: brandFromPath,
  shape: ({ brandStats }) => listOf(brandStats.segments, (segment) => ({ SegmentID: segment.segmentId, Name: segment.name, Members: text(segment.members), Activities: text(segment.activities) })),
});

function registrationFilter(params: Params) {
  return { validOnly: params.boolean('valid'), service: params.string('service'), countries: params.list('country'), paidOnly: params.boolean('paid_only') };
}

type Channels = { registrationStats: { channels: { service: string; signups: number }[] } };
const channelsShape = ({ registrationStats: { channels } }: Channels) => ({
  channels: channels.map((channel) => ({ service: channel.service, signups: text(channel.signups) })),
  total: channels.reduce((sum, channel) => sum + channel.signups, 0),
});

export const alltimeSignupsRoute = defineRoute({
  methods: ['GET'],
  path: '/login/stats/alltime',
  description: 'All-time registration totals: sign-ups per service since the start, and their total.',
  response: 'RegistrationChannels',
  document: SignupChannelsDocument,
  variables: (params) => ({ filter: registrationFilter(params), allTime: true }),
  shape: channelsShape,
});

export const signupChannelsRoute = defineRoute({
  methods: ['GET'],
  path: '/login/stats/channels',
  description: 'Registration channels: sign-ups per service in the window.',
  response: 'RegistrationChannels',
  document: SignupChannelsDocument,
  variables: (params) => ({ filter: registrationFilter(params), window: windowOf(params), allTime: false }),
  shape: channelsShape,
});

export const registrationDomainsRoute = defineRoute({
  methods: ['GET'],
  path: '/login/stats/domains',
  response: 'RegistrationDomains',
  description: 'Registration domains: sign-ups and members per domain in the window.',
  document: RegistrationDomainsDocument,
  variables: (params) => ({ window: windowOf(params), ...pageOf(params, 'limit', { limit: 100, max: 1000 }) }),
  shape: ({ registrationStats: { domains } }) => ({
    domains: domains.map((row) => ({ domain: row.domain, signups: text(row.events), members: text(row.members) })),
    total: domains.reduce((sum, row) => sum + row.events, 0),
  }),
});

export const registrationTimelineRoute = defineRoute({
  methods: ['GET'],
  path: '/login/stats/timeline',
  response: 'RegistrationTimeline',
  description: 'Registration timeline: sign-ups per day in the window.',
  document: RegistrationTimelineDocument,
  variables: (params) => ({ window: windowOf(params) }),
  shape: ({ registrationStats: { timeline } }) => ({
    timeline: timeline.days.map((day) => ({ date: day.date, signups: text(day.count) })),
    total: timeline.totalCount,
  }),
});

export const registrationTotalsRoute = defineRoute({
  methods: ['GET'],
  path: '/login/stats/totals',
  response: 'RegistrationTotals',
  description: 'Registration totals: registrations, logins and members in the window.',
  document: RegistrationTotalsDocument,
  variables: (params) => ({ window: windowOf(params) }),
  shape: ({ registrationStats: { totals } }) => ({ registrations: totals.registrations, logins: totals.logins, members: totals.members }),
});

/** The member timelines' variables: the shared member filters and the window. */
const memberTimelineVariables = (params: Params) => ({ filter: memberFilterOf(params), window: windowOf(params) });

/** A member timeline's body: the days, then the totals, the count named as the route names it (`Count`, `Visits`). */
function memberTimeline(timeline: DayTimelineFragment, count: string, total: string) {
  return {
    days: timeline.days.map((day) => ({ Date: day.date, [count]: text(day.count), DistinctMembers: text(day.distinctMembers) })),
    [total]: timeline.totalCount,
    TotalMembers: timeline.totalMembers,
  };
}

export const memberActivityTimelineRoute = defineRoute({
  methods: ['GET'],
  path: '/members/stats/activity',
  response: 'MemberActivityTimeline',
  description: 'Member activity timeline: records and distinct members per day, under the shared member filters.',
  document: MemberActivityTimelineDocument,
  variables: memberTimelineVariables,
  shape: ({ memberTimelines: { activity } }) => memberTimeline(activity, 'Count', 'TotalCount'),
});

export const memberVisitTimelineRoute = defineRoute({
  methods: ['GET'],
  path: '/members/stats/visits',
  response: 'MemberVisitTimeline',
  description: 'Member visit timeline: visits and distinct members per day, under the shared member filters.',
  document: MemberVisitTimelineDocument,
  variables: memberTimelineVariables,
  shape: ({ memberTimelines: { visits } }) => memberTimeline(visits, 'Visits', 'TotalVisits'),
});

export const topDomainsRoute = defineRoute({
  methods: ['GET'],
  path: '/members/domains',
  response: 'TopDomains',
  description: 'Top domains: the domains members visited most in the window.',
  document: TopDomainsDocument,
  variables: (params) => ({ window: windowOf(params), ...pageOf(params) }),
  shape: ({ topDomains }) => listOf(topDomains, (row) => ({ Domain: row.domain, Members: text(row.members), Visits: text(row.events) })),
});

export const statsRoutes = [
  brandActivityStatsRoute,
  brandTimelineStatsRoute,
  brandLocationStatsRoute,
  brandMemberStatsRoute,
  brandAgeStatsRoute,
  brandGenderStatsRoute,
  brandSegmentStatsRoute,
  alltimeSignupsRoute,
  signupChannelsRoute,
  registrationDomainsRoute,
  registrationTimelineRoute,
  registrationTotalsRoute,
  memberActivityTimelineRoute,
  memberVisitTimelineRoute,
  topDomainsRoute,
];
