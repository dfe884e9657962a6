import { invalidParameter } from './errors.js';

/**
 * The most items any list a caller sends may hold: a filter's member ids, emails, networks,
 * activities, countries, the refs of anyOf/allOfActivities, a record batch, a REST comma list.
 * It matches the interface's largest page (1,000 members), so a list can name any page's members,
 * and it keeps every statement a list reaches (its parameters, its planning) and every parse of
 * one bounded. GraphQL checks every list of a request's arguments and variables at once
 * (graphql/limits.ts), REST every comma list it reads (rest/params.ts), and the filter compiler
 * the lists of a filter however it arrived (a segment's saved filter too).
 */
export const maxListItems = 1000;

/** The refusal of a list longer than `maxListItems`, naming the argument or parameter. */
export function listTooLong(param: string, length: number, max = maxListItems) {
  return invalidParameter(param, `expected at most ${max} items, got ${length}`);
}

/** The list, checked against `maxListItems`; `param` names it in the refusal. */
export function boundedList<T>(values: readonly T[] | undefined | null, param: string, max = maxListItems): readonly T[] | undefined | null {
  if (values && values.length > max) throw listTooLong(param, values.length, max);
  return values;
}
