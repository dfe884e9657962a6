import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { FastifyRequest } from 'fastify';
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
  type OptInRecordFragment,
  type PresaveJobRecordFragment,
  type SegmentInput,
  type SegmentKind,
} from '../../generated/graphql.js';
import { invalidParameter } from '../../core/errors.js';
import { routeParams } from '../error-params.js';
import { optInRecord, presaveJobRecord, segmentRecord } from '../records/segments.js';
import type { Params } from '../params.js';
import { defineRoute, pathId, type RestRoute } from '../route.js';
import { brandFromPath, createRoute, deleteRoute, editRoute, listOf, rootField } from '../route-forms.js';

/** The segment routes' `brandid` (the member filter's errors name `brandID`). */
const segmentParams = routeParams({ brandId: 'brandid' });

function segmentInput(params: Params, { create }: { create: boolean }): SegmentInput {
  return {
    name: create ? params.requiredString('name') : params.string('name'),
    label: params.string('label'),
    kind: params.oneOf('type', ['list', 'filter'] as const)?.toUpperCase() as SegmentKind | undefined,
    brandId: params.string('brandid'),
    filter: params.jsonObject('filter'),
  };
}

export const listSegmentsRoute = defineRoute({
  methods: ['GET'],
  path: '/segments',
  response: 'SegmentList',
  description: "List the application's segments.",
  document: ListSegmentsDocument,
  variables: () => ({}),
  shape: ({ segments }) => listOf(segments, segmentRecord),
});

export const brandSegmentsRoute = defineRoute({
  methods: ['GET'],
  path: '/brand/:id/segments',
  response: 'SegmentList',
  description: 'List the segments of one brand.',
  document: ListSegmentsDocument,
  variables: brandFromPath,
  // The brand is the path's id.
  errorParam: routeParams({ brandId: 'id' }),
  shape: ({ segments }) => listOf(segments, segmentRecord),
});

export const createSegmentRoute: RestRoute = {
  ...createRoute(
    {
      path: '/segment/create',
      response: 'SegmentRecord',
      description: 'Create a segment: a list members opt into, or a filter (a member filter as JSON) that selects them.',
      document: CreateSegmentDocument,
    },
    (params) => segmentInput(params, { create: true }),
    segmentRecord,
  ),
  errorParam: segmentParams,
};

export const editSegmentRoute: RestRoute = {
  ...editRoute({ path: '/segment/:id/edit', response: 'SegmentRecord', description: 'Edit a segment.', document: EditSegmentDocument }, (params) => segmentInput(params, { create: false }), segmentRecord),
  errorParam: segmentParams,
};

export const deleteSegmentRoute = deleteRoute('/segment/:id/delete', 'Delete a segment.', DeleteSegmentDocument);

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

/** Errors about the segment name the parameter the caller sent: `segmentid`, or else `segment`. */
function listOptInParam(param: string, params: Params): string | undefined {
  if (param === 'segmentId') return params.string('segmentid') !== undefined ? 'segmentid' : 'segment';
  return segmentParams(param);
}

/** `/brand/[id]/optin` and `/optout`: the brand from the path, the member `id`. */
function brandOptIn(params: Params, brandId: string): OptInInput {
  return { memberId: params.requiredString('id'), brandId };
}

/** One opt-in or opt-out route: the input its parameters give, and the opt-in record it answers. */
function optInRoute<TData extends Record<string, OptInRecordFragment>>(
  path: string,
  description: string,
  document: TypedDocumentNode<TData, { input: OptInInput }>,
  input: (params: Params, request: FastifyRequest) => OptInInput,
  errorParam?: RestRoute['errorParam'],
) {
  return defineRoute({
    methods: ['POST'],
    path,
    description,
    response: 'OptInRecord',
    document,
    variables: (params, request) => ({ input: input(params, request) }),
    errorParam,
    shape: (data) => optInRecord(rootField(data)),
  });
}

const brandFromRequest = (params: Params, request: FastifyRequest) => brandOptIn(params, pathId(request));

export const listOptInRoute = optInRoute('/optin', 'Opt a member into a segment list (`segmentid`), or into the global list without one.', OptInMemberDocument, listOptIn, listOptInParam);
export const listOptOutRoute = optInRoute('/optout', 'Opt a member out of a segment list (`segmentid`), or out of the global list without one.', OptOutMemberDocument, listOptIn, listOptInParam);
export const brandOptInRoute = optInRoute('/brand/:id/optin', "Opt a member into a brand's list.", OptInMemberDocument, brandFromRequest, segmentParams);
export const brandOptOutRoute = optInRoute('/brand/:id/optout', "Opt a member out of a brand's list.", OptOutMemberDocument, brandFromRequest, segmentParams);

export const presaveRoute = defineRoute({
  methods: ['POST'],
  path: '/segment/:id/presave',
  response: 'PresaveJob',
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
  // The segment is the path's id.
  errorParam: routeParams({ segmentId: 'id' }),
  shape: ({ presaveToSegment }) => presaveJobRecord(presaveToSegment),
});

/** A presave job named by the path (`/segment/:id/presave/:jobId…`), and the job record it answers. */
function presaveJobRoute<TData extends Record<string, PresaveJobRecordFragment | null>>(
  method: 'GET' | 'POST',
  path: string,
  description: string,
  document: TypedDocumentNode<TData, { segmentId: string; id: string }>,
) {
  return defineRoute({
    methods: [method],
    path,
    description,
    response: 'PresaveJob',
    document,
    variables: (_params, request) => ({ segmentId: pathId(request), id: pathId(request, 'jobId') }),
    // The path's id is the segment's; the job's is jobId.
    errorParam: routeParams({ segmentId: 'id', id: 'jobId' }),
    shape: (data) => presaveJobRecord(rootField(data)),
  });
}

export const showPresaveJobRoute = presaveJobRoute('GET', '/segment/:id/presave/:jobId', 'Show a presave job: its state and how many members it reached, skipped or failed.', PresaveJobDocument);
export const retryPresaveRoute = presaveJobRoute('POST', '/segment/:id/presave/:jobId/retry', 'Retry the failed members of a presave job.', RetryPresaveJobDocument);

export const segmentRoutes = [
  listSegmentsRoute,
  brandSegmentsRoute,
  createSegmentRoute,
  editSegmentRoute,
  deleteSegmentRoute,
  listOptInRoute,
  listOptOutRoute,
  brandOptInRoute,
  brandOptOutRoute,
  presaveRoute,
  showPresaveJobRoute,
  retryPresaveRoute,
];
