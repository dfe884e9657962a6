import {
  ActivityCountsDocument,
  CheckMemberActivityDocument,
  CreateActivityDocument,
  DeleteActivityDocument,
  DeleteMemberActivityDocument,
  EditActivityDocument,
  ListActivitiesDocument,
  RecordActivityDocument,
  type ActivityDefinitionFragment,
} from '../../generated/graphql.js';
import { invalidParameter, missingParameter } from '../../core/errors.js';
import { formatOptionalTimestamp as time, parseTimestamp } from '../../lib/time.js';
import { windowOf } from '../filter-params.js';
import type { Params } from '../params.js';
import { activityDefinitionRecord } from '../records/activities.js';
import { defineRoute, pathId } from '../route.js';


const listShape = ({ activities }: { activities: ActivityDefinitionFragment[] }) => ({
  totalSize: activities.length,
  items: activities.map(activityDefinitionRecord),
});

function tracking(params: Params) {
  const url = params.string('url');
  const trackIds = params.list('trackids');
  const albumIds = params.list('albumids');
  return url || trackIds || albumIds ? { url, trackIds, albumIds } : undefined;
}

function definitionInput(params: Params) {
  return {
    name: params.string('name'),
    shortName: params.string('shortname'),
    type: params.string('type'),
    service: params.string('service'),
    brandId: params.int('brandid', { min: 1 })?.toString(),
    points: params.int('points', { min: 0, max: 1_000_000 }),
    tracking: tracking(params),
  };
}

export const listActivitiesRoute = defineRoute({
  methods: ['GET'],
  path: '/activities',
  description: "List the application's activity definitions. `brandid` keeps one brand's.",
  document: ListActivitiesDocument,
  variables: (params) => ({ brandId: params.int('brandid', { min: 1 })?.toString() }),
  shape: listShape,
});

export const brandActivitiesRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/activities',
  description: 'List the activity definitions of one brand.',
  document: ListActivitiesDocument,
  variables: (_params, request) => ({ brandId: pathId(request) }),
  shape: listShape,
});

export const createActivityRoute = defineRoute({
  methods: ['POST'],
  path: '/activity/create',
  description: 'Create a tracking activity. A definition names what members do (listened, shared, followed) and what it scores; `onetime` makes it count once per member.',
  document: CreateActivityDocument,
  variables: (params) => {
    const input = definitionInput(params);
    return { input: { ...input, name: input.name ?? '', type: input.type ?? '', oneTime: params.boolean('onetime') } };
  },
  shape: ({ createActivity }) => activityDefinitionRecord(createActivity),
});

export const editActivityRoute = defineRoute({
  methods: ['POST'],
  path: '/activity/:id/edit',
  description: 'Edit an activity definition. The one-time flag is fixed at creation and refused here.',
  document: EditActivityDocument,
  variables: (params, request) => {
    if (params.string('onetime') !== undefined) throw invalidParameter('onetime', 'the one-time flag is fixed when the activity is created');
    return { id: pathId(request), input: definitionInput(params) };
  },
  shape: ({ editActivity }) => activityDefinitionRecord(editActivity),
});

export const deleteActivityRoute = defineRoute({
  methods: ['POST'],
  path: '/activity/:id/delete',
  description: 'Delete an activity definition.',
  response: 'Result',
  document: DeleteActivityDocument,
  variables: (_params, request) => ({ id: pathId(request) }),
  shape: ({ deleteActivity }) => ({ Result: deleteActivity }),
});

/** `timestamp`: the interface's time form, or seconds since 1970. */
function completedAt(params: Params): Date | undefined {
  const value = params.string('timestamp');
  if (value === undefined) return undefined;
  const date = /^\d{9,11}$/.test(value) ? new Date(Number(value) * 1000) : parseTimestamp(value);
  if (!date) throw invalidParameter('timestamp', "expected 'YYYY-MM-DD HH:MM:SS' (UTC) or seconds since 1970");
  return date;
}

/** `content` is JSON text on the wire (or an object in a JSON body, which arrives as text too). */
function content(params: Params): Record<string, unknown> | undefined {
  const value = params.string('content');
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    // Plain text is kept as the text of the content.
    return { text: value };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { text: value };
  return parsed as Record<string, unknown>;
}

export const recordActivityRoute = defineRoute({
  methods: ['POST'],
  path: '/activity/record',
  description: 'Record an activity of a member manually. The member is named by `id`, or by `partnercode` and `partnerid`; `async=1` queues the record and answers at once.',
  document: RecordActivityDocument,
  variables: (params) => {
    const value = params.string('value');
    if (value !== undefined && !Number.isFinite(Number(value))) throw invalidParameter('value', 'expected a number');
    return {
      input: {
        activityId: params.int('activityid', { min: 1 })?.toString() ?? params.requiredString('activityid'),
        memberId: params.int('id', { min: 1 })?.toString(),
        partnerCode: params.string('partnercode'),
        partnerId: params.string('partnerid'),
        brandId: params.int('brandid', { min: 1 })?.toString(),
        service: params.string('service'),
        content: content(params),
        link: params.string('link'),
        media: params.string('media'),
        category: params.string('category'),
        value: value === undefined ? undefined : Number(value),
        marker: params.string('marker'),
        completedAt: completedAt(params),
        ip: params.string('ip'),
      },
      async: params.boolean('async'),
    };
  },
  shape: ({ recordActivity }) => ({
    Result: true,
    RecordID: recordActivity.record?.id ?? null,
    CompleteDate: time(recordActivity.record?.completedAt ?? null),
    Repeated: !recordActivity.created && !recordActivity.queued,
    Queued: recordActivity.queued,
  }),
});

export const checkMemberActivityRoute = defineRoute({
  methods: ['GET'],
  path: '/member/:id/activity/check',
  description: 'Check whether a member performed an activity. Answers true or false with the count and the first and last dates in the window.',
  document: CheckMemberActivityDocument,
  variables: (params, request) => ({
    memberId: pathId(request),
    activityId: params.int('activityid', { min: 1 })?.toString() ?? params.requiredString('activityid'),
    window: windowOf(params),
  }),
  shape: ({ activityCheck }) => ({
    Result: activityCheck.result,
    Details: { Count: String(activityCheck.count), FirstDate: time(activityCheck.firstAt), LastDate: time(activityCheck.lastAt) },
  }),
});

export const deleteMemberActivityRoute = defineRoute({
  methods: ['POST'],
  path: '/member/:id/activity/delete',
  description: "Delete a member's activity records: one record by `recordid`, or every record of `activityid`.",
  document: DeleteMemberActivityDocument,
  variables: (params, request) => {
    const recordId = params.int('recordid', { min: 1 })?.toString();
    const activityId = params.int('activityid', { min: 1 })?.toString();
    if (!recordId && !activityId) throw missingParameter('recordid', "Send 'recordid', or 'activityid' to delete all of an activity.");
    return { memberId: pathId(request), recordId, activityId };
  },
  shape: ({ deleteMemberActivity }) => ({ Result: true, Deleted: String(deleteMemberActivity) }),
});

export const dailyCountsRoute = defineRoute({
  methods: ['GET'],
  path: '/activities/count/daily',
  description: 'Daily activity counts. Per day and activity: records, distinct members and points in the window.',
  document: ActivityCountsDocument,
  variables: (params) => ({ window: windowOf(params), by: 'ACTIVITY' as const }),
  shape: ({ activityCounts }) => ({
    totalSize: activityCounts.length,
    items: activityCounts.map((row) => ({
      Date: row.day,
      ActivityID: row.activityId,
      Activity: row.activityName,
      Count: String(row.count),
      DistinctMembers: String(row.distinctMembers),
      Points: String(row.points),
    })),
  }),
});

export const serviceCountsRoute = defineRoute({
  methods: ['GET'],
  path: '/activities/count/services',
  description: 'Activity counts by service. Per day and network: records, distinct members and points in the window.',
  document: ActivityCountsDocument,
  variables: (params) => ({ window: windowOf(params), by: 'SERVICE' as const }),
  shape: ({ activityCounts }) => ({
    totalSize: activityCounts.length,
    items: activityCounts.map((row) => ({
      Date: row.day,
      ServiceType: row.service,
      Count: String(row.count),
      DistinctMembers: String(row.distinctMembers),
      Points: String(row.points),
    })),
  }),
});

export const activityRoutes = [
  listActivitiesRoute,
  brandActivitiesRoute,
  createActivityRoute,
  editActivityRoute,
  deleteActivityRoute,
  recordActivityRoute,
  checkMemberActivityRoute,
  deleteMemberActivityRoute,
  dailyCountsRoute,
  serviceCountsRoute,
];
