import {
  ActivityCountsDocument,
  CheckMemberActivityDocument,
  CreateActivityDocument,
  DeleteActivityDocument,
  DeleteMemberActivityDocument,
  EditActivityDocument,
  ListActivitiesDocument,
  RecordActivityDocument,
  type ActivityCountGrouping,
  type ActivityCountsQuery,
  type ActivityDefinitionFragment,
} from '../../generated/graphql.js';
import { invalidParameter, missingParameter } from '../../core/errors.js';
import { formatOptionalTimestamp as time, parseTimestamp } from '../../lib/time.js';
import { activityTypeWords } from '../enums.js';
import { routeParams } from '../error-params.js';
import { windowOf } from '../filter-params.js';
import type { Params } from '../params.js';
import { activityDefinitionRecord } from '../records/activities.js';
import { defineRoute, pathId, type RestRoute } from '../route.js';
import { activityTypes } from '../../modules/activities/activity-types.js';
import { brandFromPath, createRoute, deleteRoute, editRoute, listOf } from '../route-forms.js';

/** The definition and record routes' `brandid` (the member filter's errors name `brandID`). */
const brandIdParam = routeParams({ brandId: 'brandid' });

const listShape = ({ activities }: { activities: ActivityDefinitionFragment[] }) => listOf(activities, activityDefinitionRecord);

function tracking(params: Params) {
  const url = params.string('url');
  const trackIds = params.list('trackids');
  const albumIds = params.list('albumids');
  return url || trackIds || albumIds ? { url, trackIds, albumIds } : undefined;
}

function definitionInput(params: Params) {
  const type = params.oneOf('type', activityTypes);
  return {
    name: params.string('name'),
    shortName: params.string('shortname'),
    type: type && activityTypeWords.name(type),
    service: params.string('service'),
    brandId: params.int('brandid', { min: 1 })?.toString(),
    points: params.int('points', { min: 0, max: 1_000_000 }),
    tracking: tracking(params),
  };
}

export const listActivitiesRoute = defineRoute({
  methods: ['GET'],
  path: '/activities',
  response: 'ActivityDefinitionList',
  description: "List the application's activity definitions. `brandid` keeps one brand's.",
  document: ListActivitiesDocument,
  variables: (params) => ({ brandId: params.int('brandid', { min: 1 })?.toString() }),
  errorParam: brandIdParam,
  shape: listShape,
});

export const brandActivitiesRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/activities',
  response: 'ActivityDefinitionList',
  description: 'List the activity definitions of one brand.',
  document: ListActivitiesDocument,
  variables: brandFromPath,
  errorParam: brandIdParam,
  shape: listShape,
});

/** Create's input: a definition with its name, type (one of the interface's) and one-time flag always sent. */
function newDefinition(params: Params) {
  const name = params.requiredString('name');
  const type = params.oneOf('type', activityTypes);
  if (!type) throw missingParameter('type');
  return { ...definitionInput(params), name, type: activityTypeWords.name(type), oneTime: params.boolean('onetime') };
}

/** Edit's input: the one-time flag is fixed at creation, so sending it is refused. */
function editedDefinition(params: Params) {
  if (params.string('onetime') !== undefined) throw invalidParameter('onetime', 'the one-time flag is fixed when the activity is created');
  return definitionInput(params);
}

export const createActivityRoute: RestRoute = {
  ...createRoute(
    {
      path: '/activity/create',
      response: 'ActivityDefinition',
      description: 'Create a tracking activity. A definition names what members do (listened, shared, followed) and what it scores; `onetime` makes it count once per member.',
      document: CreateActivityDocument,
    },
    newDefinition,
    activityDefinitionRecord,
  ),
  errorParam: brandIdParam,
};

export const editActivityRoute: RestRoute = {
  ...editRoute(
    { path: '/activity/:id/edit', response: 'ActivityDefinition', description: 'Edit an activity definition. The one-time flag is fixed at creation and refused here.', document: EditActivityDocument },
    editedDefinition,
    activityDefinitionRecord,
  ),
  errorParam: brandIdParam,
};

export const deleteActivityRoute = deleteRoute('/activity/:id/delete', 'Delete an activity definition.', DeleteActivityDocument);

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
  response: 'ActivityRecorded',
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
  errorParam: brandIdParam,
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
  response: 'ActivityCheck',
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
  response: 'ActivityRecordsDeleted',
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

type CountsRow = ActivityCountsQuery['activityCounts'][number];

/** The daily counts, per activity or per service: each row's own fields, then its counts. */
function countsRoute(path: string, description: string, by: ActivityCountGrouping, item: (row: CountsRow) => Record<string, unknown>) {
  return defineRoute({
    methods: ['GET'],
    path,
    description,
    response: by === 'ACTIVITY' ? 'DailyActivityCounts' : 'ServiceActivityCounts',
    document: ActivityCountsDocument,
    variables: (params) => ({ window: windowOf(params), by }),
    shape: ({ activityCounts }) => listOf(activityCounts, (row) => ({ Date: row.day, ...item(row), Count: String(row.count), DistinctMembers: String(row.distinctMembers), Points: String(row.points) })),
  });
}

export const dailyCountsRoute = countsRoute('/activities/count/daily', 'Daily activity counts. Per day and activity: records, distinct members and points in the window.', 'ACTIVITY', (row) => ({
  ActivityID: row.activityId,
  Activity: row.activityName,
}));

export const serviceCountsRoute = countsRoute('/activities/count/services', 'Activity counts by service. Per day and network: records, distinct members and points in the window.', 'SERVICE', (row) => ({
  ServiceType: row.service,
}));

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
