/**
 * GraphQL errors name GraphQL arguments, and for a field of an input (MemberFilter, WindowInput,
 * ServiceCredentialsInput) the field's own name (`brandId`, `start`, `authToken`); never a REST
 * parameter. The REST error body names the parameter the caller sent: the plugin (rest/plugin.ts)
 * asks the route first, through its `errorParam` hook, and otherwise this one table, which holds
 * the names every route shares (a name in neither is the same in both).
 *
 * A route's hook is for a GraphQL name its parameters spell differently from the table: `brandId`
 * is `brandID` for the member filter's errors, but `brandid` on the segment, opt-in and activity
 * definition routes and the path's `id` on `/brand/:id/segments`. Most hooks are a fixed map
 * (`routeParams`); one that depends on what the caller sent reads the parameters (the opt-in
 * routes' `segmentid` or `segment`).
 */
const restParams: Readonly<Record<string, string>> = {
  orderField: 'order_by',
  first: 'limit',
  offset: 'limit',
  // MemberFilter (rest/filter-params.ts reads them). segmentId is `segmentid` or `segment` on
  // REST; its errors have always named segmentID.
  brandId: 'brandID',
  segmentId: 'segmentID',
  membersFromSegment: 'members_from_segment',
  activityIds: 'activityID',
  memberIds: 'members',
  excludeMemberIds: 'exclude_members',
  anyOfActivities: 'anyofactivities',
  allOfActivities: 'allofactivities',
  countries: 'country',
  optedIn: 'optedin',
  requiredFields: 'required_fields',
  // Activities and merges
  activityId: 'activityid',
  recordId: 'recordid',
  fromId: 'from',
  fromAccessToken: 'accesstoken',
  shortName: 'shortname',
  // Members: the member is `id`, a partner's id `partnerID` (whatever the route reads), the
  // network `service`, as in every route that takes them.
  memberId: 'id',
  partnerId: 'partnerID',
  network: 'service',
  authToken: 'authtoken',
  verifiedEmail: 'verified_email',
  // WindowInput
  start: 'start_date',
  end: 'end_date',
  periodEnd: 'period_end',
};

/** The REST parameter a GraphQL error's argument is to the caller, unless its route says otherwise. */
export function restParam(graphqlArgument: string): string {
  return Object.hasOwn(restParams, graphqlArgument) ? restParams[graphqlArgument] : graphqlArgument;
}

/** A route's `errorParam` hook for GraphQL names the route spells its own way: `routeParams({ brandId: 'brandid' })`. */
export function routeParams(names: Readonly<Record<string, string>>): (graphqlArgument: string) => string | undefined {
  return (graphqlArgument) => (Object.hasOwn(names, graphqlArgument) ? names[graphqlArgument] : undefined);
}
