import type { MemberFilter, PeriodInput, WindowInput } from '../generated/graphql.js';
import { invalidParameter } from '../core/errors.js';
import type { Params } from './params.js';

/**
 * The seed's shared filter parameters, read in one place and handed to GraphQL as one
 * `MemberFilter`; the filter compiler gives them their meaning. Every operation reads the whole
 * set: parameters an operation does not list are simply absent in its calls.
 */
export function memberFilterOf(params: Params): MemberFilter {
  return {
    brandId: idParam(params, 'brandid'),
    // Listings call it segmentID, the feed and member show segment.
    segmentId: idParam(params, 'segmentid') ?? idParam(params, 'segment'),
    membersFromSegment: idParam(params, 'members_from_segment'),
    activityIds: idList(params, 'activityid'),
    includeOneTime: params.boolean('includeonetime'),
    services: params.list('services')?.map((service) => service.toLowerCase()),
    countries: params.list('country'),
    region: params.string('region'),
    domain: params.string('domain'),
    memberIds: idList(params, 'members'),
    excludeMemberIds: idList(params, 'exclude_members'),
    emails: params.list('emails'),
    anyOfActivities: activityRefs(params, 'anyofactivities'),
    allOfActivities: activityRefs(params, 'allofactivities'),
    paidOnly: params.boolean('paid_only'),
    optedIn: params.boolean('optedin'),
    requiredFields: params.list('required_fields'),
  };
}

/** `start_date`, `end_date`, `period` and `period_end`; each operation applies its default and maximum. */
export function windowOf(params: Params): WindowInput {
  const period = (name: string): PeriodInput | undefined => params.period(name);
  return { start: params.timestamp('start_date'), end: params.timestamp('end_date'), period: period('period'), periodEnd: period('period_end') };
}

function idParam(params: Params, name: string): string | undefined {
  const value = params.string(name);
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value) || value === '0') throw invalidParameter(name, 'expected a numeric id');
  return value;
}

function idList(params: Params, name: string): string[] | undefined {
  const items = params.list(name);
  for (const item of items ?? []) if (!/^\d{1,15}$/.test(item)) throw invalidParameter(name, 'expected numeric ids separated by commas');
  return items;
}

/** `12,7-30`: activity 12 of any brand, activity 30 of brand 7. */
function activityRefs(params: Params, name: string) {
  return params.list(name)?.map((item) => {
    const match = /^(?:(\d{1,15})-)?(\d{1,15})$/.exec(item);
    if (!match) throw invalidParameter(name, "expected activity ids, or '<brandid>-<activityid>', separated by commas");
    return { activityId: match[2], brandId: match[1] };
  });
}
