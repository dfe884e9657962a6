/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type AuditFilter = {
  action?: string | null | undefined;
  actor?: string | null | undefined;
  fanId?: string | number | null | undefined;
  from?: string | null | undefined;
  to?: string | null | undefined;
};

export type FanProfileInput = {
  birthDate?: string | null | undefined;
  country?: string | null | undefined;
  email?: string | null | undefined;
  firstName?: string | null | undefined;
  gender?: string | null | undefined;
  lastName?: string | null | undefined;
  username?: string | null | undefined;
};

export type StaffRole =
  | 'admin'
  | 'analyst'
  | 'owner'
  | 'support';

export type AuditEventsQueryVariables = Exact<{
  filter?: AuditFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AuditEventsQuery = { auditEvents: { edges: Array<{ cursor: string, node: { id: string, at: string, actor: string, actorType: string, action: string, targetType: string | null, targetId: string | null, outcome: string, ip: string | null, requestId: string | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type SearchFansQueryVariables = Exact<{
  search: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type SearchFansQuery = { fans: { edges: Array<{ cursor: string, node: { id: string, email: string | null, firstName: string | null, lastName: string | null, username: string | null, country: string | null, createdAt: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type FanProfileFragment = { id: string, email: string | null, firstName: string | null, lastName: string | null, username: string | null, country: string | null, gender: string | null, birthDate: string | null, createdAt: string, score: { points: number, rank: number | null } | null, can: { edit: boolean, sessions: boolean, reset: boolean, merge: boolean, export: boolean, erase: boolean } };

export type FanQueryVariables = Exact<{
  id: string | number;
}>;


export type FanQuery = { fan: { id: string, email: string | null, firstName: string | null, lastName: string | null, username: string | null, country: string | null, gender: string | null, birthDate: string | null, createdAt: string, services: Array<{ network: string, userId: string, username: string | null, linkedAt: string | null }>, optIns: Array<{ name: string, optedIn: boolean, updatedAt: string | null }>, sessions: Array<{ id: string, createdAt: string, lastSeenAt: string | null, userAgent: string | null, network: string | null }>, emails: Array<{ id: string, kind: string, subject: string, status: string, sentAt: string | null }>, score: { points: number, rank: number | null } | null, can: { edit: boolean, sessions: boolean, reset: boolean, merge: boolean, export: boolean, erase: boolean } } | null };

export type FanActivityQueryVariables = Exact<{
  id: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type FanActivityQuery = { fan: { id: string, activity: { edges: Array<{ cursor: string, node: { id: string, activity: string, network: string | null, points: number, completedAt: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type UpdateFanMutationVariables = Exact<{
  id: string | number;
  input: FanProfileInput;
}>;


export type UpdateFanMutation = { updateFan: { id: string, email: string | null, firstName: string | null, lastName: string | null, username: string | null, country: string | null, gender: string | null, birthDate: string | null, createdAt: string, score: { points: number, rank: number | null } | null, can: { edit: boolean, sessions: boolean, reset: boolean, merge: boolean, export: boolean, erase: boolean } } };

export type EndFanSessionsMutationVariables = Exact<{
  id: string | number;
}>;


export type EndFanSessionsMutation = { endFanSessions: { id: string } };

export type SendFanPasswordResetMutationVariables = Exact<{
  id: string | number;
}>;


export type SendFanPasswordResetMutation = { sendFanPasswordReset: boolean };

export type MergePreviewQueryVariables = Exact<{
  keepId: string | number;
  otherId: string | number;
}>;


export type MergePreviewQuery = { mergePreview: { keep: { id: string, email: string | null, firstName: string | null, lastName: string | null }, other: { id: string, email: string | null, firstName: string | null, lastName: string | null }, moves: Array<{ what: string, count: number }> } };

export type MergeFansMutationVariables = Exact<{
  keepId: string | number;
  otherId: string | number;
}>;


export type MergeFansMutation = { mergeFans: { id: string } };

export type EraseFanMutationVariables = Exact<{
  id: string | number;
  confirmEmail: string;
}>;


export type EraseFanMutation = { eraseFan: boolean };

export type SegmentsQueryVariables = Exact<{ [key: string]: never; }>;


export type SegmentsQuery = { segments: Array<{ id: string, name: string, description: string | null, size: number }> };

export type StaffListQueryVariables = Exact<{ [key: string]: never; }>;


export type StaffListQuery = { staff: Array<{ staffId: string, email: string, role: StaffRole, totpEnabled: boolean }> };

export type InviteStaffMutationVariables = Exact<{
  email: string;
  role: StaffRole;
}>;


export type InviteStaffMutation = { inviteStaff: { link: string, expiresAt: string } };

export type SetStaffRoleMutationVariables = Exact<{
  staffId: string | number;
  role: StaffRole;
}>;


export type SetStaffRoleMutation = { setStaffRole: { staffId: string, role: StaffRole } };

export type RemoveStaffMutationVariables = Exact<{
  staffId: string | number;
}>;


export type RemoveStaffMutation = { removeStaff: boolean };

export type RequireTotpMutationVariables = Exact<{
  required: boolean;
}>;


export type RequireTotpMutation = { requireTotp: boolean };

export type StartTotpSetupMutationVariables = Exact<{ [key: string]: never; }>;


export type StartTotpSetupMutation = { startTotpSetup: { secret: string, uri: string, qr: string } };

export type ConfirmTotpMutationVariables = Exact<{
  code: string;
}>;


export type ConfirmTotpMutation = { confirmTotp: { id: string, totpEnabled: boolean } };

export type ChangePasswordMutationVariables = Exact<{
  current: string;
  next: string;
}>;


export type ChangePasswordMutation = { changePassword: { id: string } };

export type StatsQueryVariables = Exact<{ [key: string]: never; }>;


export type StatsQuery = { stats: { fans: number, activeFans: number, records: number, registrations: number, activityPerDay: Array<{ date: string, count: number }>, registrationsPerDay: Array<{ date: string, count: number }>, byActivity: Array<{ name: string, count: number }>, byCountry: Array<{ name: string, count: number }> } };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { id: string, email: string, role: StaffRole, permissions: Array<string>, accountName: string, totpEnabled: boolean, totpRequired: boolean } | null };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const FanProfileFragmentDoc = new TypedDocumentString(`
    fragment FanProfile on Fan {
  id
  email
  firstName
  lastName
  username
  country
  gender
  birthDate
  createdAt
  score {
    points
    rank
  }
  can {
    edit
    sessions
    reset
    merge
    export
    erase
  }
}
    `, {"fragmentName":"FanProfile"}) as unknown as TypedDocumentString<FanProfileFragment, unknown>;
export const AuditEventsDocument = new TypedDocumentString(`
    query AuditEvents($filter: AuditFilter, $first: Int, $after: String) {
  auditEvents(filter: $filter, first: $first, after: $after) {
    edges {
      cursor
      node {
        id
        at
        actor
        actorType
        action
        targetType
        targetId
        outcome
        ip
        requestId
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<AuditEventsQuery, AuditEventsQueryVariables>;
export const SearchFansDocument = new TypedDocumentString(`
    query SearchFans($search: String!, $first: Int, $after: String) {
  fans(search: $search, first: $first, after: $after) {
    edges {
      cursor
      node {
        id
        email
        firstName
        lastName
        username
        country
        createdAt
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<SearchFansQuery, SearchFansQueryVariables>;
export const FanDocument = new TypedDocumentString(`
    query Fan($id: ID!) {
  fan(id: $id) {
    ...FanProfile
    services {
      network
      userId
      username
      linkedAt
    }
    optIns {
      name
      optedIn
      updatedAt
    }
    sessions {
      id
      createdAt
      lastSeenAt
      userAgent
      network
    }
    emails {
      id
      kind
      subject
      status
      sentAt
    }
  }
}
    fragment FanProfile on Fan {
  id
  email
  firstName
  lastName
  username
  country
  gender
  birthDate
  createdAt
  score {
    points
    rank
  }
  can {
    edit
    sessions
    reset
    merge
    export
    erase
  }
}`) as unknown as TypedDocumentString<FanQuery, FanQueryVariables>;
export const FanActivityDocument = new TypedDocumentString(`
    query FanActivity($id: ID!, $first: Int, $after: String) {
  fan(id: $id) {
    id
    activity(first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          activity
          network
          points
          completedAt
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
}
    `) as unknown as TypedDocumentString<FanActivityQuery, FanActivityQueryVariables>;
export const UpdateFanDocument = new TypedDocumentString(`
    mutation UpdateFan($id: ID!, $input: FanProfileInput!) {
  updateFan(id: $id, input: $input) {
    ...FanProfile
  }
}
    fragment FanProfile on Fan {
  id
  email
  firstName
  lastName
  username
  country
  gender
  birthDate
  createdAt
  score {
    points
    rank
  }
  can {
    edit
    sessions
    reset
    merge
    export
    erase
  }
}`) as unknown as TypedDocumentString<UpdateFanMutation, UpdateFanMutationVariables>;
export const EndFanSessionsDocument = new TypedDocumentString(`
    mutation EndFanSessions($id: ID!) {
  endFanSessions(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<EndFanSessionsMutation, EndFanSessionsMutationVariables>;
export const SendFanPasswordResetDocument = new TypedDocumentString(`
    mutation SendFanPasswordReset($id: ID!) {
  sendFanPasswordReset(id: $id)
}
    `) as unknown as TypedDocumentString<SendFanPasswordResetMutation, SendFanPasswordResetMutationVariables>;
export const MergePreviewDocument = new TypedDocumentString(`
    query MergePreview($keepId: ID!, $otherId: ID!) {
  mergePreview(keepId: $keepId, otherId: $otherId) {
    keep {
      id
      email
      firstName
      lastName
    }
    other {
      id
      email
      firstName
      lastName
    }
    moves {
      what
      count
    }
  }
}
    `) as unknown as TypedDocumentString<MergePreviewQuery, MergePreviewQueryVariables>;
export const MergeFansDocument = new TypedDocumentString(`
    mutation MergeFans($keepId: ID!, $otherId: ID!) {
  mergeFans(keepId: $keepId, otherId: $otherId) {
    id
  }
}
    `) as unknown as TypedDocumentString<MergeFansMutation, MergeFansMutationVariables>;
export const EraseFanDocument = new TypedDocumentString(`
    mutation EraseFan($id: ID!, $confirmEmail: String!) {
  eraseFan(id: $id, confirmEmail: $confirmEmail)
}
    `) as unknown as TypedDocumentString<EraseFanMutation, EraseFanMutationVariables>;
export const SegmentsDocument = new TypedDocumentString(`
    query Segments {
  segments {
    id
    name
    description
    size
  }
}
    `) as unknown as TypedDocumentString<SegmentsQuery, SegmentsQueryVariables>;
export const StaffListDocument = new TypedDocumentString(`
    query StaffList {
  staff {
    staffId
    email
    role
    totpEnabled
  }
}
    `) as unknown as TypedDocumentString<StaffListQuery, StaffListQueryVariables>;
export const InviteStaffDocument = new TypedDocumentString(`
    mutation InviteStaff($email: String!, $role: StaffRole!) {
  inviteStaff(email: $email, role: $role) {
    link
    expiresAt
  }
}
    `) as unknown as TypedDocumentString<InviteStaffMutation, InviteStaffMutationVariables>;
export const SetStaffRoleDocument = new TypedDocumentString(`
    mutation SetStaffRole($staffId: ID!, $role: StaffRole!) {
  setStaffRole(staffId: $staffId, role: $role) {
    staffId
    role
  }
}
    `) as unknown as TypedDocumentString<SetStaffRoleMutation, SetStaffRoleMutationVariables>;
export const RemoveStaffDocument = new TypedDocumentString(`
    mutation RemoveStaff($staffId: ID!) {
  removeStaff(staffId: $staffId)
}
    `) as unknown as TypedDocumentString<RemoveStaffMutation, RemoveStaffMutationVariables>;
export const RequireTotpDocument = new TypedDocumentString(`
    mutation RequireTotp($required: Boolean!) {
  requireTotp(required: $required)
}
    `) as unknown as TypedDocumentString<RequireTotpMutation, RequireTotpMutationVariables>;
export const StartTotpSetupDocument = new TypedDocumentString(`
    mutation StartTotpSetup {
  startTotpSetup {
    secret
    uri
    qr
  }
}
    `) as unknown as TypedDocumentString<StartTotpSetupMutation, StartTotpSetupMutationVariables>;
export const ConfirmTotpDocument = new TypedDocumentString(`
    mutation ConfirmTotp($code: String!) {
  confirmTotp(code: $code) {
    id
    totpEnabled
  }
}
    `) as unknown as TypedDocumentString<ConfirmTotpMutation, ConfirmTotpMutationVariables>;
export const ChangePasswordDocument = new TypedDocumentString(`
    mutation ChangePassword($current: String!, $next: String!) {
  changePassword(current: $current, next: $next) {
    id
  }
}
    `) as unknown as TypedDocumentString<ChangePasswordMutation, ChangePasswordMutationVariables>;
export const StatsDocument = new TypedDocumentString(`
    query Stats {
  stats {
    fans
    activeFans
    records
    registrations
    activityPerDay {
      date
      count
    }
    registrationsPerDay {
      date
      count
    }
    byActivity {
      name
      count
    }
    byCountry {
      name
      count
    }
  }
}
    `) as unknown as TypedDocumentString<StatsQuery, StatsQueryVariables>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    id
    email
    role
    permissions
    accountName
    totpEnabled
    totpRequired
  }
}
    `) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;