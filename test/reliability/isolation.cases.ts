import type { IdKind } from './surface.js';
import type { makers, Side } from './world.js';

/**
 * How to call each operation validly as the attacking application, apart from the ids the matrix
 * swaps. The ids themselves come from the schema and the route table (surface.ts): required ones
 * are filled with the caller's own, the one under test with a foreign, a made-up or an own id. An
 * entry only gives what a valid call needs besides them, fresh things for calls that spend or
 * delete what they name, and the kind of a plain `id`. The matrix fails for an operation without an
 * entry, so a new operation cannot go unchecked.
 */

export interface CaseContext {
  own: Side;
  make: ReturnType<typeof makers>;
  /** The id (or, for tokens, the parameter) the call swaps, so a case can leave out what conflicts with it. */
  slot: string | undefined;
}

type Vars = Record<string, unknown>;

export interface GraphqlCase {
  /** Kinds of slots whose name does not say it (`id`, `lookup.id`), by dotted path. */
  kinds?: Record<string, IdKind>;
  vars?: (context: CaseContext) => Vars | Promise<Vars>;
}

export interface RestCase {
  /** Values the route's parameter probe needs (parameters it checks closely). */
  probe?: Record<string, string>;
  params?: (context: CaseContext) => Record<string, string> | Promise<Record<string, string>>;
}

const hourAgo = () => new Date(Date.now() - 3600_000).toISOString();
const newEmail = (own: Side) => `${own.marker}-${Math.random().toString(36).slice(2)}@example.com`;
const signInNetwork = {
  network: 'google',
  clientId: 'client-1',
  clientSecret: 'provider-client-secret',
  issuer: 'https://accounts.example.test',
  authorizationEndpoint: 'https://accounts.example.test/authorize',
  tokenEndpoint: 'https://accounts.example.test/token',
  userinfoEndpoint: 'https://accounts.example.test/userinfo',
};

/** `optIn` names one list: a segment, or a brand when the brand is what is swapped. */
const optInInput = ({ own, slot }: CaseContext) => ({ input: slot === 'input.brandId' ? { memberId: own.ids.member } : { memberId: own.ids.member, segmentId: own.ids.segment } });

/** A list named in exactly one way (@oneOf): the brand when the brand is what is swapped, the segment otherwise. */
const listRefArgs = ({ own, slot }: CaseContext) => ({ list: slot === 'list.brandId' ? {} : { segmentId: own.ids.segment } });
/** `memberOptIn` names the member by id and one list. */
const memberOptInArgs = (context: CaseContext) => ({ member: { id: context.own.ids.member }, ...listRefArgs(context) });

export const graphqlCases: Record<string, GraphqlCase> = {
  // ——— queries ———
  activities: {},
  activityCheck: {},
  activityCounts: {},
  activityFeed: {},
  members: {},
  brand: { kinds: { id: 'brand' } },
  brands: {},
  crossover: {},
  // One of ref (a @oneOf MemberRef) and the deprecated lookup: the other is left out.
  member: {
    kinds: { 'lookup.id': 'member', 'ref.id': 'member' },
    vars: ({ own, slot }) => (slot?.startsWith('ref.') ? { ref: { id: own.ids.member } } : { lookup: { id: own.ids.member } }),
  },
  viewer: {},
  presaveJob: { kinds: { id: 'presaveJob' } },
  segments: {},
  brandStats: {},
  registrationStats: {},
  memberTimelines: {},
  topDomains: {},
  application: {},
  usage: { vars: () => ({ interval: 'HOUR', start: hourAgo(), period: { amount: 1, unit: 'HOUR' } }) },
  // The log's target is a fan's member id when the filter names one; an actor's id is a key's or a
  // staff member's, which the matrix has no kind for: a member id there must answer as a made-up one too.
  auditEvents: { kinds: { 'filter.actorId': 'member', 'filter.targetId': 'member' } },
  memberExport: { kinds: { id: 'member' } },
  // ——— mutations ———
  createActivity: { vars: ({ own }) => ({ input: { name: `${own.marker} made`, type: 'CUSTOM' } }) },
  editActivity: { kinds: { id: 'activity' }, vars: () => ({ input: { shortName: 'edited' } }) },
  deleteActivity: { kinds: { id: 'activity' }, vars: async ({ make }) => ({ id: await make.activity() }) },
  // The member by memberId, or by member (a MemberRef) when that is the slot swapped: not both.
  recordActivity: {
    kinds: { 'input.member.id': 'member' },
    vars: ({ own, slot }) => ({ input: slot === 'input.member.id' ? { member: { id: own.ids.member } } : { memberId: own.ids.member } }),
  },
  recordActivities: {
    kinds: { 'input.0.member.id': 'member' },
    vars: ({ own, slot }) => ({ input: [slot === 'input.0.member.id' ? { member: { id: own.ids.member } } : { memberId: own.ids.member }] }),
  },
  // The payload mutations answer a foreign or made-up id as a NOT_FOUND user error, the same for both.
  activityCreate: { vars: ({ own }) => ({ input: { name: `${own.marker} made`, type: 'CUSTOM' } }) },
  activityUpdate: { kinds: { id: 'activity' }, vars: () => ({ input: { shortName: 'edited' } }) },
  activityDelete: { kinds: { id: 'activity' }, vars: async ({ make }) => ({ id: await make.activity() }) },
  activityRecord: { kinds: { 'input.member.id': 'member' }, vars: ({ own }) => ({ input: { member: { id: own.ids.member } } }) },
  deleteMemberActivity: {
    vars: async ({ own, make, slot }) => {
      const member = await make.member();
      const record = await make.record(own.ids.activity, member.id);
      return slot === 'activityId' ? { memberId: member.id } : { memberId: member.id, recordId: record };
    },
  },
  brandCreate: { vars: ({ own }) => ({ input: { name: `${own.marker} brand made ${Math.random()}` } }) },
  brandUpdate: { kinds: { id: 'brand' }, vars: () => ({ input: { hashTag: 'edited' } }) },
  brandDelete: { kinds: { id: 'brand' }, vars: async ({ make }) => ({ id: await make.brand() }) },
  createBrand: { vars: ({ own }) => ({ input: { name: `${own.marker} brand made ${Math.random()}` } }) },
  editBrand: { kinds: { id: 'brand' }, vars: () => ({ input: { hashTag: 'edited' } }) },
  deleteBrand: { kinds: { id: 'brand' }, vars: async ({ make }) => ({ id: await make.brand() }) },
  registerMember: {
    vars: async ({ own, make, slot }) => ({
      input: {
        credentials: { network: 'email', email: newEmail(own), password: 'a-new-password' },
        // Registering an identity to an existing member: a fresh one, so no identity clashes.
        ...(slot === 'input.memberId' ? { memberId: (await make.member()).id } : {}),
      },
    }),
  },
  attachService: {
    vars: async ({ make }) => {
      const member = await make.member();
      return { memberId: member.id, credentials: { network: 'email', email: member.email, password: member.password } };
    },
  },
  login: { vars: ({ own }) => ({ input: { credentials: { network: 'email', email: own.email, password: own.password } } }) },
  memberRegister: { vars: ({ own }) => ({ input: { credentials: { network: 'email', email: newEmail(own), password: 'a-new-password' } } }) },
  memberLogin: { vars: ({ own }) => ({ input: { credentials: { network: 'email', email: own.email, password: own.password } } }) },
  memberUpdate: { kinds: { 'member.id': 'member' }, vars: ({ own }) => ({ member: { id: own.ids.member }, input: { city: 'Edited city' } }) },
  updateMember: { kinds: { id: 'member' }, vars: () => ({ input: { city: 'Edited city' } }) },
  resetPassword: {
    kinds: { id: 'member' },
    vars: async ({ make }) => {
      const member = await make.member();
      return { id: member.id, input: { email: member.email, password: 'another-password', serviceId: member.service } };
    },
  },
  verifyEmail: {
    kinds: { id: 'member' },
    vars: async ({ make }) => {
      const member = await make.member();
      return { id: member.id, input: { network: 'email', verifiedEmail: member.email, serviceId: member.service } };
    },
  },
  mergeMembers: {
    vars: async ({ make }) => {
      const [from, into] = [await make.member(), await make.member()];
      return { fromId: from.id, fromAccessToken: from.accessToken, intoId: into.id };
    },
  },
  deleteMember: { kinds: { id: 'member' }, vars: async ({ make }) => ({ id: (await make.member()).id }) },
  revokeMemberSessions: { kinds: { id: 'member' }, vars: async ({ make }) => ({ id: (await make.member()).id }) },
  refreshServiceTokens: { kinds: { id: 'member' }, vars: () => ({ network: 'email' }) },
  optIn: { vars: optInInput },
  optOut: { vars: optInInput },
  memberOptIn: { kinds: { 'member.id': 'member' }, vars: memberOptInArgs },
  memberOptOut: { kinds: { 'member.id': 'member' }, vars: memberOptInArgs },
  setSelfServiceLists: { kinds: { 'input.brandIds.0': 'brand', 'input.segmentIds.0': 'segment' }, vars: () => ({ input: { global: false } }) },
  // A member JWT's own operations: an API key is refused before any id is read (WRONG_APPLICATION);
  // test/members/viewer.test.ts and test/segments/optin-payloads.test.ts call them with member JWTs.
  viewerUpdate: { vars: () => ({ input: { firstName: 'Viewer' } }) },
  viewerSessions: {},
  viewerEndSessions: { kinds: { id: 'member' } },
  viewerOptIn: { vars: listRefArgs },
  viewerOptOut: { vars: listRefArgs },
  presaveToSegment: { vars: () => ({ input: { spotify: '6rqhFgbbKwnb9MLmUQDhG6', kind: 'TRACK' } }) },
  // A retry runs the job again: each call gets a finished job of its own.
  retryPresaveJob: { kinds: { id: 'presaveJob' }, vars: async ({ own, make }) => ({ id: await make.presaveJob(own.ids.segment) }) },
  segmentCreate: { vars: ({ own }) => ({ input: { name: `${own.marker} segment made ${Math.random()}` } }) },
  segmentUpdate: { kinds: { id: 'segment' }, vars: () => ({ input: { label: 'edited' } }) },
  segmentDelete: { kinds: { id: 'segment' }, vars: async ({ make }) => ({ id: await make.segment() }) },
  createSegment: { vars: ({ own }) => ({ input: { name: `${own.marker} segment made ${Math.random()}` } }) },
  editSegment: { kinds: { id: 'segment' }, vars: () => ({ input: { label: 'edited' } }) },
  deleteSegment: { kinds: { id: 'segment' }, vars: async ({ make }) => ({ id: await make.segment() }) },
  whitelistDomain: { vars: () => ({ domain: 'attacker.example.com' }) },
  unwhitelistDomain: { vars: () => ({ domain: 'attacker.example.com' }) },
  configureSignInNetwork: { vars: () => ({ input: signInNetwork }) },
  removeSignInNetwork: { vars: () => ({ network: 'google' }) },
  setRequiredFields: { vars: () => ({ fields: [] }) },
  setNetworkVerification: { vars: () => ({ mode: 'TRUST' }) },
  setSignInErrors: { vars: () => ({ mode: 'DISTINCT' }) },
  setBrandCustomFields: { vars: () => ({ enabled: false }) },
  setEmailSettings: { vars: () => ({ input: { senderName: 'Edited sender' } }) },
  setSignInPageLook: { vars: () => ({ input: { title: 'Edited title', accentColor: '#123456' } }) },
  requestPasswordReset: { vars: ({ own }) => ({ email: own.email }) },
  sendVerificationEmail: { kinds: { id: 'member' }, vars: async ({ make }) => ({ id: (await make.member()).id }) },
  completePasswordReset: { vars: async ({ make }) => ({ token: await make.emailLink('reset'), password: 'another-password' }) },
  completeEmailVerification: { vars: async ({ make }) => ({ token: await make.emailLink('verify') }) },
  exchangeSignInToken: { vars: async ({ own, make }) => ({ accessToken: await make.signInToken(own.ids.member) }) },
};

/** The same for each `/v1.1` route, by `METHOD path`; parameters as the caller sends them. */
export const restCases: Record<string, RestCase> = {
  'GET /account/usage': {
    probe: { interval: 'hour', app_scope: 'app' },
    params: () => ({ interval: 'hour', start_date: hourAgo().slice(0, 19).replace('T', ' '), period: '1 hour' }),
  },
  'GET /app/info': {},
  'POST /app/whitelist': { params: () => ({ domain: 'attacker-rest.example.com' }) },
  'POST /app/network-verification': { probe: { mode: 'trust' }, params: () => ({ mode: 'trust' }) },
  'POST /app/sign-in-errors': { probe: { mode: 'distinct' }, params: () => ({ mode: 'distinct' }) },
  'POST /app/brand-custom-fields': { probe: { enabled: '0' }, params: () => ({ enabled: '0' }) },
  'POST /app/unwhitelist': { params: () => ({ domain: 'attacker-rest.example.com' }) },
  'POST /member/register': {
    params: async ({ own, make, slot }) => ({
      service: 'email',
      email: newEmail(own),
      password: 'a-new-password',
      ...(slot === 'id' ? { id: (await make.member()).id } : {}),
    }),
  },
  'POST /member/login': { params: ({ own }) => ({ service: 'email', email: own.email, password: own.password }) },
  'POST /member/:id/register': {
    params: async ({ make }) => {
      const member = await make.member();
      return { ':id': member.id, service: 'email', email: member.email, password: member.password };
    },
  },
  'POST /member/:id/update': { params: () => ({ city: 'Edited city' }) },
  'POST /member/:id/reset': {
    params: async ({ make }) => {
      const member = await make.member();
      return { ':id': member.id, email: member.email, password: 'another-password', member_service_id: member.service };
    },
  },
  'POST /member/:id/verify': {
    params: async ({ make }) => {
      const member = await make.member();
      return { ':id': member.id, service: 'email', verified_email: member.email, serviceid: member.service };
    },
  },
  'POST /member/:id/merge': {
    params: async ({ make }) => {
      const [from, into] = [await make.member(), await make.member()];
      return { ':id': into.id, from: from.id, accesstoken: from.accessToken };
    },
  },
  'POST /member/:id/delete': { params: async ({ make }) => ({ ':id': (await make.member()).id }) },
  'POST /member/:id/sessions/revoke': { params: async ({ make }) => ({ ':id': (await make.member()).id }) },
  'POST /member/:id/refresh': { params: () => ({ service: 'email' }) },
  'GET /member/:id/domains': {},
  'GET /member/:id': {},
  'GET /member/:id/export': {},
  'GET /account/audit': { probe: { actor: 'api_key' } },
  'GET /member': { params: ({ own }) => ({ email: own.email }) },
  'GET /activities': {},
  'GET /brand/:id/activities': {},
  'POST /activity/create': { params: ({ own }) => ({ name: `${own.marker} made`, type: 'Custom' }) },
  'POST /activity/:id/edit': { probe: { onetime: '' }, params: () => ({ shortname: 'edited' }) },
  'POST /activity/:id/delete': { params: async ({ make }) => ({ ':id': await make.activity() }) },
  'POST /activity/record': { params: ({ own }) => ({ activityid: own.ids.activity, id: own.ids.member }) },
  'GET /member/:id/activity/check': { params: ({ own }) => ({ activityid: own.ids.activity }) },
  'POST /member/:id/activity/delete': {
    params: async ({ own, make, slot }): Promise<Record<string, string>> => {
      const member = await make.member();
      const record = await make.record(own.ids.activity, member.id);
      return slot === 'activityid' ? { ':id': member.id } : { ':id': member.id, recordid: record };
    },
  },
  'GET /activities/count/daily': {},
  'GET /activities/count/services': {},
  'GET /members/active': { probe: { order_by: 'score' } },
  'GET /members/all': {},
  'GET /members/login': { probe: { activityid: '' } },
  'GET /members/extended': { probe: { order_by: 'extended.points' }, params: () => ({ order_by: 'extended.points' }) },
  'GET /activity/feed': {},
  'GET /brand/:id': {},
  'GET /brands': {},
  'POST /brand/create': { params: ({ own }) => ({ name: `${own.marker} brand made ${Math.random()}` }) },
  'POST /brand/:id/edit': { params: () => ({ hashtag: 'edited' }) },
  'POST /brand/:id/delete': { params: async ({ make }) => ({ ':id': await make.brand() }) },
  'GET /brands/:id/crossover': {},
  'GET /brands/crossover': {},
  'GET /segments': {},
  'GET /brand/:id/segments': {},
  'POST /segment/create': { params: ({ own }) => ({ name: `${own.marker} segment made ${Math.random()}` }) },
  'POST /segment/:id/edit': { params: () => ({ label: 'edited' }) },
  'POST /segment/:id/delete': { params: async ({ make }) => ({ ':id': await make.segment() }) },
  'POST /optin': { probe: { segment: '' }, params: ({ own }) => ({ id: own.ids.member, segmentid: own.ids.segment }) },
  'POST /optout': { probe: { segment: '' }, params: ({ own }) => ({ id: own.ids.member, segmentid: own.ids.segment }) },
  'POST /brand/:id/optin': {},
  'POST /brand/:id/optout': {},
  'POST /segment/:id/presave': { params: () => ({ spotify: '6rqhFgbbKwnb9MLmUQDhG6', type: 'track' }) },
  'GET /segment/:id/presave/:jobId': {},
  'POST /segment/:id/presave/:jobId/retry': { params: async ({ own, make }) => ({ ':jobId': await make.presaveJob(own.ids.segment) }) },
  'GET /brand/:id/stats/activity': {},
  'GET /brand/:id/stats/timeline': {},
  'GET /brand/:id/stats/location': {},
  'GET /brand/:id/stats/members': {},
  'GET /brand/:id/stats/age': {},
  'GET /brand/:id/stats/gender': {},
  'GET /brand/:id/stats/segments': {},
  'GET /login/stats/alltime': {},
  'GET /login/stats/channels': {},
  'GET /login/stats/domains': {},
  'GET /login/stats/timeline': {},
  'GET /login/stats/totals': {},
  'GET /members/stats/activity': {},
  'GET /members/stats/visits': {},
  'GET /members/domains': {},
  'GET /auth': { params: async ({ own, make }) => ({ accesstoken: await make.signInToken(own.ids.member) }) },
  'POST /auth': { params: async ({ own, make }) => ({ accesstoken: await make.signInToken(own.ids.member) }) },
};
