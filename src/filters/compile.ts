import { and, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError, invalidParameter, notFound } from '../core/errors.js';
import { normaliseDomain } from '../lib/domains.js';
import type { ResolvedWindow } from './window.js';
import {
  activityConditions,
  brandExists,
  brandMemberOf,
  countryIn,
  emailIn,
  extendedFieldFilled,
  findLiveSegment,
  hasService,
  inSegment,
  memberIdIn,
  memberIdNotIn,
  optedIntoBrand,
  performedAllOf,
  performedAnyOf,
  profileFieldFilled,
  regionIs,
  registeredOnDomain,
  type ActivityColumns,
  type SegmentRow,
} from './member-filter.queries.js';
import type { ActivityRefInput, MemberFilter } from './member-filter.types.js';
import { isId, maxIntegerId } from '../lib/ids.js';
import { boundedList } from '../core/list-limits.js';
import { validateAll } from '../core/user-errors.js';
import { validateAllAsync } from '../core/validate-all-async.js';

export type { ActivityColumns } from './member-filter.queries.js';

/**
 * A filter checked against the account and ready to be added to any query: `activity` limits the
 * rows that count, `member` limits the members (conditions on the `members` table, so the query
 * must read from or join it). Built once per operation; every listing, the feed, member show and
 * the statistics use it, so the same parameters always mean the same members.
 */
export interface CompiledFilter {
  accountId: number;
  window: ResolvedWindow | undefined;
  /** The brand the filter is about (its own or its segment's), for shaping responses. */
  brandId: number | undefined;
  /**
   * When the activity conditions are no more than a brand (repeatable records, any activity and
   * network): that brand, or 0 for every brand. The kept per-member totals count exactly this.
   */
  totalsBrandId: number | undefined;
  activity(columns: ActivityColumns): SQL | undefined;
  member(): SQL | undefined;
  /**
   * For what reads no records (listings by id, join or login date, or a custom field; the visits
   * timeline): the activity conditions that can be said of a member instead. `brandID` is then the
   * brand's members (opted in now, or a record on it at any time) and `services` a linked identity
   * on one of the networks. Added to `member()`, never instead of it.
   */
  withoutRecords(): SQL | undefined;
}

/** A positive integer id from a filter field or argument, reported under `param`: its GraphQL name (REST's comes from rest/error-params.ts). */
export function filterId(value: string | undefined | null, param: string, max = maxIntegerId): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const id = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!isId(id, max)) throw invalidParameter(param, `expected a numeric id from 1 to ${max}`);
  return id;
}

function idList(values: readonly string[] | undefined | null, param: string): number[] | undefined {
  if (!values?.length) return undefined;
  return values.map((value) => filterId(value, param)!);
}

function requiredField(name: string): SQL {
  const extended = /^extended\.(.+)$/i.exec(name);
  if (extended) return extendedFieldFilled(extended[1].split('.'));
  const filled = profileFieldFilled(name);
  if (!filled) {
    throw invalidParameter('requiredFields', `unknown field '${name}': expected profile fields such as Email, FirstName, City, or extended.<name>`);
  }
  return filled;
}

/** Country codes as filters take them: ISO 3166-1 alpha-2, any case, reported under `countries`. */
export function countryCodes(values: readonly string[] | undefined | null): string[] | undefined {
  const countries = values?.map((country) => country.trim().toUpperCase()).filter(Boolean);
  for (const country of countries ?? []) {
    if (!/^[A-Z]{2}$/.test(country)) throw invalidParameter('countries', 'expected ISO 3166-1 alpha-2 codes such as GB,US');
  }
  return countries;
}

function activityRefs(refs: readonly ActivityRefInput[] | undefined | null, param: string) {
  return refs?.map((ref) => ({ activityId: filterId(ref.activityId, param)!, brandId: filterId(ref.brandId, param) }));
}

async function findSegment(db: Executor, accountId: number, id: number, param: string): Promise<SegmentRow> {
  const row = await findLiveSegment(db, accountId, id);
  if (!row) throw notFound('Segment', param);
  return row;
}

async function assertBrand(db: Executor, accountId: number, id: number, param: string): Promise<void> {
  // Deleted brands stay filterable: their history is still readable.
  if (!(await brandExists(db, accountId, id))) throw notFound('Brand', param);
}

/** The filter's lists, so many items at most each (core/list-limits.ts), before anything reads them. */
const listFields = ['activityIds', 'services', 'countries', 'memberIds', 'excludeMemberIds', 'emails', 'anyOfActivities', 'allOfActivities', 'requiredFields'] as const;

function checkListSizes(filter: MemberFilter): void {
  validateAll(Object.fromEntries(listFields.map((name) => [name, () => boundedList<unknown>(filter[name], name)])), (key) => [key]);
}

/** The filter field a check of compileFilter is about, where the check's name is not the field's. */
const fieldOfCheck: Record<string, string> = { brand: 'brandId', segment: 'segmentId', fromSegment: 'membersFromSegment' };

/**
 * Checks a filter against the account (ids of another account are not found) and compiles it.
 * `window` is the operation's resolved window: any-of and all-of activities are read inside it.
 * Every field's form is checked (validateAll: each problem under its field, the first as it was
 * always reported; a list too long stops there), then, when all are right, the ids it names.
 */
export async function compileFilter(db: Executor, accountId: number, filter: MemberFilter | undefined | null, window: ResolvedWindow | undefined): Promise<CompiledFilter> {
  const f = filter ?? {};
  checkListSizes(f);
  /** Checks that failed, so a check that depends on another's value is not reported for it. */
  const failed = new Set<string>();
  let brandId: number | undefined;
  let segmentId: number | undefined;
  let countries: string[] | undefined;
  const tracked =
    <T>(name: string, read: () => T) =>
    (): T => {
      try {
        return read();
      } catch (error) {
        failed.add(name);
        throw error;
      }
    };
  const form = validateAll(
    {
      brandId: tracked('brandId', () => (brandId = filterId(f.brandId, 'brandId'))),
      segmentId: tracked('segmentId', () => (segmentId = filterId(f.segmentId, 'segmentId'))),
      membersFromSegment: () => filterId(f.membersFromSegment, 'membersFromSegment'),
      activityIds: () => idList(f.activityIds, 'activityIds'),
      memberIds: () => idList(f.memberIds, 'memberIds'),
      excludeMemberIds: () => idList(f.excludeMemberIds, 'excludeMemberIds'),
      anyOfActivities: () => activityRefs(f.anyOfActivities, 'anyOfActivities'),
      allOfActivities: () => activityRefs(f.allOfActivities, 'allOfActivities'),
      countries: tracked('countries', () => (countries = countryCodes(f.countries))),
      region: () => {
        if (f.region && !failed.has('countries') && countries?.length !== 1) throw invalidParameter('region', 'region applies only with exactly one country');
      },
      optedIn: () => {
        if (failed.has('brandId') || failed.has('segmentId')) return;
        if (f.optedIn && !brandId && !segmentId) {
          throw invalidParameter('optedIn', 'optedin needs a brand or a segment to be opted into');
        }
      },
      domain: () => (f.domain ? normaliseDomain(f.domain).replace(/^www\./, '') : undefined),
      requiredFields: () => f.requiredFields?.map(requiredField),
    },
    (key) => [key],
  );
  const { membersFromSegment: fromSegmentId, activityIds, memberIds, excludeMemberIds: excluded, domain, requiredFields: required } = form;
  const anyOf = form.anyOfActivities;
  const allOf = form.allOfActivities;
  const services = f.services?.map((service) => service.trim().toLowerCase()).filter(Boolean);

  const found = await validateAllAsync(
    {
      brand: async () => {
        if (brandId) await assertBrand(db, accountId, brandId, 'brandId');
      },
      segment: () => (segmentId ? findSegment(db, accountId, segmentId, 'segmentId') : undefined),
      fromSegment: () => (fromSegmentId ? findSegment(db, accountId, fromSegmentId, 'membersFromSegment') : undefined),
    },
    (key) => [fieldOfCheck[key] ?? key],
  );
  const { segment, fromSegment } = found;
  // A brand segment scopes activity to its brand, unless the filter names a brand itself.
  const scopeBrandId = brandId ?? segment?.brandId ?? undefined;
  if (brandId && segment?.brandId && segment.brandId !== brandId) {
    throw new AppError('INVALID_PARAMETER', 'The segment belongs to another brand than brandID.', 'segmentId');
  }

  const memberConditions: SQL[] = [];
  if (memberIds) memberConditions.push(memberIdIn(memberIds));
  if (excluded) memberConditions.push(memberIdNotIn(excluded));
  if (f.emails?.length) memberConditions.push(emailIn(f.emails.map((email) => email.trim().toLowerCase())));
  if (countries?.length) memberConditions.push(countryIn(countries));
  if (f.region) memberConditions.push(regionIs(f.region.trim().toLowerCase()));
  if (domain) memberConditions.push(registeredOnDomain(accountId, [domain, `www.${domain}`]));
  // `services` keeps records of those networks (activity conditions): a member's linked identities
  // do not decide which of their records count. paid_only is about the member's identities.
  if (f.paidOnly) memberConditions.push(hasService(accountId, undefined, true));
  if (segment) memberConditions.push(inSegment(accountId, segment));
  if (fromSegment) memberConditions.push(inSegment(accountId, fromSegment));
  if (f.optedIn) memberConditions.push(segment ? inSegment(accountId, segment) : optedIntoBrand(accountId, brandId!));
  if (anyOf?.length) memberConditions.push(performedAnyOf(accountId, window, anyOf));
  if (allOf?.length) memberConditions.push(performedAllOf(accountId, window, allOf));
  memberConditions.push(...(required ?? []));

  return {
    accountId,
    window,
    brandId: scopeBrandId,
    totalsBrandId: activityIds || services?.length || f.includeOneTime ? undefined : (scopeBrandId ?? 0),
    activity(columns) {
      return activityConditions(columns, { brandId: scopeBrandId, activityIds, services, includeOneTime: Boolean(f.includeOneTime) });
    },
    member() {
      return memberConditions.length ? and(...memberConditions) : undefined;
    },
    withoutRecords() {
      return and(brandId ? brandMemberOf(accountId, brandId) : undefined, services?.length ? hasService(accountId, services, false) : undefined);
    },
  };
}
