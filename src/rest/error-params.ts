/**
 * GraphQL errors name GraphQL arguments, and for a field of an input (MemberFilter, WindowInput)
 * the field's own name (`brandId`, `start`); the REST error body names the parameter the caller
 * sent. This table maps one to the other for every route (a name not listed is the same in both).
 * A route whose parameter goes by yet another name adjusts it with its own `errorParam`.
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
  // WindowInput
  start: 'start_date',
  end: 'end_date',
  periodEnd: 'period_end',
};

/** The REST parameter a GraphQL error's argument is to the caller. */
export function restParam(graphqlArgument: string): string {
  return Object.hasOwn(restParams, graphqlArgument) ? restParams[graphqlArgument] : graphqlArgument;
}
