/**
 * GraphQL errors name GraphQL arguments; the REST error body names the parameter the caller sent.
 * This table maps one to the other for every route (a name not listed is the same in both). A
 * route whose parameter goes by yet another name adjusts it with its own `errorParam`.
 */
const restParams: Readonly<Record<string, string>> = {
  orderField: 'order_by',
  activityIds: 'activityID',
  first: 'limit',
  offset: 'limit',
};

/** The REST parameter a GraphQL error's argument is to the caller. */
export function restParam(graphqlArgument: string): string {
  return Object.hasOwn(restParams, graphqlArgument) ? restParams[graphqlArgument] : graphqlArgument;
}
