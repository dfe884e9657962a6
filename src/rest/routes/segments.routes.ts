import {
  CreateSegmentDocument,
  DeleteSegmentDocument,
  EditSegmentDocument,
  ListSegmentsDocument,
  OptInMemberDocument,
  OptOutMemberDocument,
  PresaveJobDocument,
  PresaveToSegmentDocument,
  RetryPresaveJobDocument,
  type LibraryItemKind,
  type OptInInput,
  type SegmentInput,
  type SegmentKind,
} from '../../generated/graphql.js';
import { invalidParameter } from '../../core/errors.js';
import { optInRecord, presaveJobRecord, segmentRecord } from '../records/segments.js';
import type { Params } from '../params.js';
import { defineRoute, pathId } from '../route.js';

function segmentInput(params: Params): SegmentInput {
  return {
    name: params.string('name'),
    label: params.string('label'),
    kind: params.oneOf('type', ['list', 'filter'] as const)?.toUpperCase() as SegmentKind | undefined,
    brandId: params.string('brandid'),
    filter: params.jsonObject('filter'),
  };
}

export const listSegmentsRoute = defineRoute({
  methods: ['GET'],
  path: '/segments',
  description: "List the application's segments.",
  document: ListSegmentsDocument,
  variables: () => ({}),
  shape: ({ segments }) => ({ totalSize: segments.length, items: segments.map(segmentRecord) }),
});

export const brandSegmentsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/segments',
  description: 'List the segments of one brand.',
  document: ListSegmentsDocument,
  variables: (_params, request) => ({ brandId: pathId(request) }),
  shape: ({ segments }) => ({ totalSize: segments.length, items: segments.map(segmentRecord) }),
});

export const createSegmentRoute = defineRoute({
  methods: ['POST'],
  path: '/segment/create',
  description: 'Create a segment: a list members opt into, or a filter (a member filter as JSON) that selects them.',
  document: CreateSegmentDocument,
  variables: (params) => ({ input: segmentInput(params) }),
  shape: ({ createSegment }) => segmentRecord(createSegment),
});

export const editSegmentRoute = defineRoute({
  methods: ['POST'],
  path: '/segment/:id/edit',
  description: 'Edit a segment.',
  document: EditSegmentDocument,
  variables: (params, request) => ({ id: pathId(request), input: segmentInput(params) }),
  shape: ({ editSegment }) => segmentRecord(editSegment),
});

export const deleteSegmentRoute = defineRoute({
  methods: ['POST'],
  path: '/segment/:id/delete',
  description: 'Delete a segment.',
  response: 'Result',
  document: DeleteSegmentDocument,
  variables: (_params, request) => ({ id: pathId(request) }),
  shape: ({ deleteSegment }) => ({ Result: deleteSegment }),
});

/**
 * `/optin` and `/optout`: the member by `id`, `email`, or `partnerCode` + `partnerID`; the list by
 * `segmentid` or `segment` (the same thing; naming both is refused), or the global list without one.
 */
function listOptIn(params: Params): OptInInput {
  const segment = params.string('segment');
  const segmentId = params.string('segmentid');
  if (segment !== undefined && segmentId !== undefined && segment !== segmentId) {
    throw invalidParameter('segmentid', 'name one segment: segmentid or segment, not two different ones');
  }
  return {
    memberId: params.string('id'),
    email: params.string('email'),
    partnerCode: params.string('partnerCode'),
    partnerId: params.string('partnerID'),
    segmentId: segmentId ?? segment,
  };
}

/** Errors about the segment name the parameter the caller sent. */
function listOptInParam(param: string, params: Params): string {
  return param === 'segment' && params.string('segmentid') !== undefined ? 'segmentid' : param;
}

/** `/brand/[id]/optin` and `/optout`: the brand from the path, the member `id`. */
function brandOptIn(params: Params, brandId: string): OptInInput {
  return { memberId: params.requiredString('id'), brandId };
}

export const optInRoute = defineRoute({
  methods: ['POST'],
  path: '/optin',
  description: 'Opt a member into a segment list (`segmentid`), or into the global list without one.',
  response: 'OptInRecord',
  document: OptInMemberDocument,
  variables: (params) => ({ input: listOptIn(params) }),
  errorParam: listOptInParam,
  shape: ({ optIn }) => optInRecord(optIn),
});

export const optOutRoute = defineRoute({
  methods: ['POST'],
  path: '/optout',
  description: 'Opt a member out of a segment list (`segmentid`), or out of the global list without one.',
  response: 'OptInRecord',
  document: OptOutMemberDocument,
  variables: (params) => ({ input: listOptIn(params) }),
  errorParam: listOptInParam,
  shape: ({ optOut }) => optInRecord(optOut),
});

export const brandOptInRoute = defineRoute({
  methods: ['POST'],
  path: '/brand/:id/optin',
  description: "Opt a member into a brand's list.",
  response: 'OptInRecord',
  document: OptInMemberDocument,
  variables: (params, request) => ({ input: brandOptIn(params, pathId(request)) }),
  shape: ({ optIn }) => optInRecord(optIn),
});

export const brandOptOutRoute = defineRoute({
  methods: ['POST'],
  path: '/brand/:id/optout',
  description: "Opt a member out of a brand's list.",
  response: 'OptInRecord',
  document: OptOutMemberDocument,
  variables: (params, request) => ({ input: brandOptIn(params, pathId(request)) }),
  shape: ({ optOut }) => optInRecord(optOut),
});


export const presaveRoute = defineRoute({
  methods: ['POST'],
  path: '/segment/:id/presave',
  description: 'Presave a track or album for a segment: adds it to the library of every opted-in member with a Spotify or Deezer service. Answers the job, which runs in the background.',
  document: PresaveToSegmentDocument,
  variables: (params, request) => ({
    segmentId: pathId(request),
    input: {
      spotify: params.string('spotify'),
      deezer: params.string('deezer'),
      kind: params.oneOf('type', ['track', 'album'] as const)?.toUpperCase() as LibraryItemKind | undefined,
    },
  }),
  shape: ({ presaveToSegment }) => presaveJobRecord(presaveToSegment),
});

export const presaveJobRoute = defineRoute({
  methods: ['GET'],
  path: '/segment/:id/presave/:jobId',
  description: 'Show a presave job: its state and how many members it reached, skipped or failed.',
  document: PresaveJobDocument,
  variables: (_params, request) => ({ segmentId: pathId(request), id: pathId(request, 'jobId') }),
  shape: ({ presaveJob }) => presaveJobRecord(presaveJob),
});

export const retryPresaveRoute = defineRoute({
  methods: ['POST'],
  path: '/segment/:id/presave/:jobId/retry',
  description: 'Retry the failed members of a presave job.',
  document: RetryPresaveJobDocument,
  variables: (_params, request) => ({ segmentId: pathId(request), id: pathId(request, 'jobId') }),
  shape: ({ retryPresaveJob }) => presaveJobRecord(retryPresaveJob),
});

export const segmentRoutes = [
  listSegmentsRoute,
  brandSegmentsRoute,
  createSegmentRoute,
  editSegmentRoute,
  deleteSegmentRoute,
  optInRoute,
  optOutRoute,
  brandOptInRoute,
  brandOptOutRoute,
  presaveRoute,
  presaveJobRoute,
  retryPresaveRoute,
];
