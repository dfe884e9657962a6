import { GRAPHQL_MAX_INT } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { FastifyRequest } from 'fastify';
import {
  AttachServiceDocument,
  LoginMemberDocument,
  MemberDomainsDocument,
  MergeMembersDocument,
  RefreshServiceTokensDocument,
  RegisterMemberDocument,
  ResetPasswordDocument,
  RevokeMemberSessionsDocument,
  ShowMemberDocument,
  UpdateMemberDocument,
  VerifyEmailDocument,
  type EnvelopeFragment,
  type Gender,
  type ShowMemberQuery,
} from '../../generated/graphql.js';
import { missingParameter } from '../../core/errors.js';
import { maxPartnerReferenceLength } from '../../modules/members/members.credentials.js';
import { routeParams } from '../error-params.js';
import { memberFilterOf, windowOf } from '../filter-params.js';
import { feedItem } from '../records/feed.js';
import { envelopeBody, memberRecord, serviceRecord } from '../records/members.js';
import { extendedVariables, keepFields } from '../fields.js';
import { formatOptionalTimestamp as time } from '../../lib/time.js';
import type { Params } from '../params.js';
import { defineRoute, pathId, type RestRoute, type RouteData } from '../route.js';
import { idFromPath, rootField } from '../route-forms.js';

// ——— parameters ———

const genders = ['M', 'F', 'Other'] as const;
const genderValues: Record<(typeof genders)[number], Gender> = { M: 'M', F: 'F', Other: 'OTHER' };

function gender(params: Params): Gender | undefined {
  const value = params.oneOf('gender', genders);
  return value && genderValues[value];
}

/** A password exactly as sent: never trimmed, as GraphQL takes it (spaces may be part of it). */
function requiredPassword(params: Params): string {
  const password = params.verbatim('password');
  if (password === undefined) throw missingParameter('password');
  return password;
}

/** email + password, or a network token and user id, as register, attach and login send them. */
function credentials(params: Params) {
  const sharing = params.int('activity_sharing_enabled', { min: 0, max: 1 });
  return {
    network: params.requiredString('service'),
    email: params.string('email'),
    password: params.verbatim('password'),
    authToken: params.string('authtoken'),
    authSecret: params.string('authsecret'),
    uid: params.string('uid'),
    partnerCode: params.boundedString('partner', maxPartnerReferenceLength),
    partnerId: params.boundedString('sourceuid', maxPartnerReferenceLength),
    activitySharing: sharing === undefined ? undefined : sharing === 1,
  };
}

function registrationProfile(params: Params) {
  return {
    firstName: params.string('firstname'),
    surname: params.string('surname'),
    username: params.string('username'),
    birthDate: params.date('birthdate'),
    gender: gender(params),
    city: params.string('city'),
    country: params.string('country'),
    state: params.string('region'),
    postCode: params.string('postcode'),
  };
}

function visit(params: Params) {
  return { domain: params.string('domain'), ip: params.string('ip'), userAgent: params.string('useragent') };
}

// ——— envelope ———

const envelopeOf = (result: EnvelopeFragment) => envelopeBody(result.member, result.jwt);

/** A POST that changes or logs in a member and answers the member envelope of its one mutation field. */
function envelopeRoute<TVariables>(route: {
  path: string;
  description: string;
  document: TypedDocumentNode<Record<string, EnvelopeFragment>, TVariables>;
  variables: (params: Params, request: FastifyRequest) => TVariables;
  errorParam?: RestRoute['errorParam'];
}) {
  return defineRoute({ ...route, methods: ['POST'], response: 'MemberEnvelope', shape: (data) => envelopeOf(rootField(data)) });
}

// ——— routes ———

/** Register's and attach's `segmentid` (the member filter's errors name `segmentID`). */
const segmentIdParam = routeParams({ segmentId: 'segmentid' });

export const registerRoute = defineRoute({
  methods: ['POST'],
  path: '/member/register',
  description: "Register a member. Email and password, or a network's token and user id; creates the member, or returns the existing one. Answers the member envelope inside a one-element array.",
  response: 'MemberEnvelopeArray',
  document: RegisterMemberDocument,
  variables: registerVariables,
  errorParam: segmentIdParam,
  // Register alone answers with a one-element array.
  shape: ({ registerMember }) => [envelopeOf(registerMember)],
});

function registerVariables(params: Params) {
  return {
    input: {
      memberId: params.string('id'),
      credentials: credentials(params),
      profile: registrationProfile(params),
      visit: visit(params),
      importCode: params.string('code'),
      // A list segment the member is opted into; an unknown one refuses the registration.
      segmentId: params.int('segmentid', { min: 1 })?.toString(),
    },
  };
}

export const attachServiceRoute = envelopeRoute({
  path: '/member/:id/register',
  description: "Register a member service: attach a network (or the email identity) to an existing member, or update that service's data.",
  document: AttachServiceDocument,
  variables: (params, request) => ({
    memberId: pathId(request),
    credentials: credentials(params),
    profile: registrationProfile(params),
    visit: visit(params),
    // As at registration: the import code is kept on the member, the segment opted into.
    importCode: params.string('code'),
    segmentId: params.int('segmentid', { min: 1 })?.toString(),
  }),
  errorParam: segmentIdParam,
});

export const loginRoute = envelopeRoute({
  path: '/member/login',
  description: 'Log in a member: by email and password or by a network token; records a login. With `strict_sso=1` the member must have registered on the given domain before.',
  document: LoginMemberDocument,
  variables: (params) => ({
    input: { credentials: credentials(params), visit: visit(params), strictSso: params.boolean('strict_sso') },
  }),
});

export const updateRoute = envelopeRoute({
  path: '/member/:id/update',
  description: "Update a member's profile. Every field is optional; only those sent change.",
  document: UpdateMemberDocument,
  variables: (params, request) => ({
    id: pathId(request),
    input: {
      firstName: params.string('firstname'),
      surname: params.string('surname'),
      username: params.string('username'),
      email: params.string('email'),
      // The seed documents dd/mm/yyyy here and dd-mm-yyyy at registration: both read both, and yyyy-mm-dd.
      birthDate: params.date('birthdate'),
      address: params.string('address'),
      addressLine2: params.string('addressline2'),
      city: params.string('city'),
      state: params.string('state'),
      country: params.string('country'),
      postCode: params.string('postcode'),
      homePhone: params.string('homephone'),
      mobilePhone: params.string('mobilephone'),
      website: params.string('website'),
      bio: params.string('bio'),
      gender: gender(params),
    },
  }),
});

export const resetRoute = envelopeRoute({
  path: '/member/:id/reset',
  description: "Reset a member's password: set a new password on the email service record named by `member_service_id`, matched by its email.",
  document: ResetPasswordDocument,
  variables: (params, request) => ({
    id: pathId(request),
    input: {
      email: params.requiredString('email'),
      password: requiredPassword(params),
      serviceId: String(params.int('member_service_id', { min: 1 }) ?? params.requiredString('member_service_id')),
    },
  }),
  errorParam: routeParams({ serviceId: 'member_service_id' }),
});

export const revokeSessionsRoute = envelopeRoute({
  path: '/member/:id/sessions/revoke',
  description:
    'End every session of a member: widget sessions, unspent sign-in tokens and earlier JWTs stop answering, and the member gets a new access token (in the answer, with a new JWT). A password reset and a merge do the same.',
  document: RevokeMemberSessionsDocument,
  variables: idFromPath,
});

export const verifyRoute = envelopeRoute({
  path: '/member/:id/verify',
  description:
    "Verify a member's email address: marks it verified for this member only; needs the key of the application that registered the member, which must have verified the address first. It never merges: when another member of the account holds the address (verified, or signing in with it), nothing is written and the answer is code 1111 (EMAIL_IN_USE, 409). That is how a merge starts: the member signs in to the other account, and the client merges the two with member/[id]/merge and the merged member's access token.",
  document: VerifyEmailDocument,
  variables: (params, request) => ({
    id: pathId(request),
    input: {
      network: params.requiredString('service'),
      verifiedEmail: params.requiredString('verified_email'),
      serviceId: params.int('serviceid', { min: 1 })?.toString(),
    },
  }),
  errorParam: routeParams({ serviceId: 'serviceid' }),
});

export const mergeRoute = envelopeRoute({
  path: '/member/:id/merge',
  description: 'Merge a member into this one. The member `from` is proved by its own access token, and its services, opt-ins and records move here.',
  document: MergeMembersDocument,
  variables: (params, request) => ({
    intoId: pathId(request),
    fromId: String(params.int('from', { min: 1 }) ?? params.requiredString('from')),
    fromAccessToken: params.requiredString('accesstoken'),
  }),
  // The member merged into is the path's id; a `from` member that does not exist has always been
  // reported as `id` too, its other errors (merged already, into itself) as `from`.
  errorParam: (param, _params, error) => (param === 'intoId' || (param === 'fromId' && error.extensions.code === 'NOT_FOUND') ? 'id' : undefined),
});

export const refreshRoute = defineRoute({
  methods: ['POST'],
  path: '/member/:id/refresh',
  description: "Refresh a member's tokens for a network: asks the network for new tokens with the stored refresh token.",
  response: 'ServiceRecord',
  document: RefreshServiceTokensDocument,
  variables: (params, request) => ({ id: pathId(request), network: params.requiredString('service') }),
  shape: ({ refreshServiceTokens }) => serviceRecord(refreshServiceTokens),
});

export const domainsRoute = defineRoute({
  methods: ['GET'],
  path: '/member/:id/domains',
  description: 'Domains of a member: those the member visited, with the first and last visit, and the user agent (`useragent`) given with the latest.',
  response: 'Domains',
  document: MemberDomainsDocument,
  variables: idFromPath,
  shape: ({ member }) => member.domains.map((domain) => ({ Domain: domain.domain, FirstVisit: time(domain.firstVisit), LastVisit: time(domain.lastVisit), UserAgent: domain.lastUserAgent })),
});

/**
 * `fields` keeps the named fields of the member record (any case) and, with dotted names such as
 * `extended.lastUpdated`, of the Extended node.
 */
function showVariables(params: Params, request: FastifyRequest) {
  const id = (request.params as { id?: string }).id;
  return {
    // Beta in the interface: recomputes the member's filter segments before answering.
    refresh: params.boolean('refresh'),
    lookup: {
      id: id && id !== '0' ? pathId(request) : undefined,
      email: params.string('email'),
      verifiedEmail: params.string('verified_email'),
      partnerCode: params.string('partnerCode'),
      // Registration stores `sourceuid` as given, so the partner's id is any text, not only a number.
      partnerId: params.string('partnerID'),
      network: params.string('service'),
      username: params.string('username'),
    },
    ...extendedVariables(params),
    ...showContext(params),
  };
}

/** Latest actions, top brands and rank, under the shared filters and member show's window (3 months at most). */
function showContext(params: Params) {
  const showActions = params.boolean('showactions');
  const showBrands = params.boolean('showbrands');
  // Without showbrands (threshold) or showactions/showbrands (limit) these are ignored, as the old
  // interface did; their form is still checked, so a malformed value is code 4 either way. GraphQL's
  // threshold exists only on the topBrands it selects, so this check is REST's alone (docs/errors.md).
  const threshold = params.int('threshold', { min: 1 });
  return {
    filter: memberFilterOf(params),
    window: windowOf(params),
    showActions,
    showBrands,
    showPosition: params.boolean('showposition'),
    // No member has more activities with a brand than GraphQL's Int holds: a larger threshold reads
    // as that bound (it left the document's variable invalid, a 500).
    threshold: Math.min(threshold ?? 1, GRAPHQL_MAX_INT),
    limit: params.limit('limit', { limit: 3, max: 1000 }).limit,
  };
}

function showShape({ member }: RouteData<ShowMemberQuery>, params: Params) {
  const record: Record<string, unknown> = memberRecord(member);
  if (member.extended) record.Extended = member.extended;
  if (member.position !== undefined) record.AEPosition = member.position;
  const trimmed = keepFields(record, params);
  const body: Record<string, unknown> = envelopeBody(member, member.jwt, trimmed);
  if (member.activities) body.actions = member.activities.edges.map((edge) => feedItem(edge.node));
  if (member.topBrands) {
    body.brands = member.topBrands.map((brand) => ({
      ID: brand.brandId,
      Name: brand.name,
      Type: brand.type,
      Score: String(brand.points),
      ActivityCount: String(brand.activityCount),
    }));
  }
  return body;
}

export const showRoute = defineRoute({
  methods: ['GET'],
  path: '/member/:id',
  description:
    'Show a member: the profile, optionally the latest actions (`showactions`), the top brands (`showbrands`) and the rank (`showposition`), in the context the shared filters and the window give (at most three months).',
  response: 'MemberEnvelope',
  document: ShowMemberDocument,
  variables: showVariables,
  shape: showShape,
});

/** Member show without an id in the path: the member is named by the other parameters. */
export const showByParamsRoute = defineRoute({
  methods: ['GET'],
  path: '/member',
  description: 'Show a member named by parameters instead of the path: `email`, `verified_email`, `partnerCode` with `partnerID`, or `service` with `username`.',
  response: 'MemberEnvelope',
  document: ShowMemberDocument,
  variables: showVariables,
  shape: showShape,
});

export const memberRoutes = [registerRoute, loginRoute, attachServiceRoute, updateRoute, resetRoute, revokeSessionsRoute, verifyRoute, mergeRoute, refreshRoute, domainsRoute, showRoute, showByParamsRoute];
