import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { activityRecords, brands, memberDomains, members, memberServices, optins, segmentMembers, segments } from '../db/schema/index.js';
import { AppError, invalidParameter, notFound } from '../graphql/errors.js';
import { normaliseDomain } from '../modules/tenancy/tenancy.service.js';
import { within, type ResolvedWindow } from './window.js';
import type { ActivityRefInput, MemberFilter } from './member-filter.types.js';
import { isId, maxIntegerId } from '../lib/ids.js';

/** The columns of a row that can be counted: a raw record or a daily rollup row. */
export interface ActivityColumns {
  memberId: SQL.Aliased | SQL | AnyColumn;
  activityId: SQL | AnyColumn;
  brandId: SQL | AnyColumn;
  service: SQL | AnyColumn;
  oneTime: SQL | AnyColumn;
}
type AnyColumn = Parameters<typeof eq>[0];

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
}

/** A positive integer id from a filter field, reported under its REST name. */
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

/** Profile fields `required_fields` may name (any case), by their record names. */
const requirableColumns = {
  email: members.email, verifiedemail: members.verifiedEmail, firstname: members.firstName, surname: members.surname,
  username: members.username, gender: members.gender, birthdate: members.birthDate, bio: members.bio,
  avatarurl: members.avatarUrl, address: members.address, addressline2: members.addressLine2, city: members.city,
  state: members.state, country: members.country, postcode: members.postCode, homephone: members.homePhone,
  mobilephone: members.mobilePhone, website: members.website,
} as const;

function requiredField(name: string): SQL {
  const extended = /^extended\.(.+)$/i.exec(name);
  if (extended) {
    const path = extended[1].split('.');
    return sql`coalesce(${members.extended} #>> ${`{${path.join(',')}}`}, '') <> ''`;
  }
  // Own properties only: a name such as `__proto__` must not reach the object's prototype.
  const key = name.toLowerCase();
  const column = Object.hasOwn(requirableColumns, key) ? requirableColumns[key as keyof typeof requirableColumns] : undefined;
  if (!column) {
    throw invalidParameter('required_fields', `unknown field '${name}': expected profile fields such as Email, FirstName, City, or extended.<name>`);
  }
  return sql`coalesce(${column}::text, '') <> ''`;
}

function activityRefs(refs: readonly ActivityRefInput[] | undefined | null, param: string) {
  return refs?.map((ref) => ({ activityId: filterId(ref.activityId, param)!, brandId: filterId(ref.brandId, param) }));
}

/** Did the member perform this activity (of this brand) inside the window? Read from the records. */
function performed(accountId: number, window: ResolvedWindow | undefined, ref: { activityId: number; brandId?: number }): SQL {
  return sql`exists (select 1 from ${activityRecords} where ${and(
    eq(activityRecords.accountId, accountId),
    eq(activityRecords.memberId, members.id),
    eq(activityRecords.activityId, ref.activityId),
    ref.brandId ? eq(activityRecords.brandId, ref.brandId) : undefined,
    window ? within(activityRecords.completedAt, window) : undefined,
  )})`;
}

interface SegmentRow {
  id: number;
  brandId: number | null;
  kind: 'list' | 'filter';
}

/** Members of a segment: opted into a list segment, or computed into a filter segment. */
function inSegment(accountId: number, segment: SegmentRow): SQL {
  if (segment.kind === 'filter') {
    return sql`exists (select 1 from ${segmentMembers} where ${segmentMembers.accountId} = ${accountId}
      and ${segmentMembers.segmentId} = ${segment.id} and ${segmentMembers.memberId} = ${members.id})`;
  }
  return currentOptIn(accountId, sql`${optins.segmentId} = ${segment.id}`);
}

function currentOptIn(accountId: number, list: SQL): SQL {
  return sql`exists (select 1 from ${optins} where ${optins.accountId} = ${accountId} and ${optins.memberId} = ${members.id}
    and ${list} and ${optins.optedOutAt} is null)`;
}

async function findSegment(db: Executor, accountId: number, id: number, param: string): Promise<SegmentRow> {
  const [row] = await db
    .select({ id: segments.id, brandId: segments.brandId, kind: segments.kind })
    .from(segments)
    .where(and(eq(segments.accountId, accountId), eq(segments.id, id), isNull(segments.deletedAt)));
  if (!row) throw notFound('Segment', param);
  return row;
}

async function assertBrand(db: Executor, accountId: number, id: number, param: string): Promise<void> {
  // Deleted brands stay filterable: their history is still readable.
  const [row] = await db.select({ id: brands.id }).from(brands).where(and(eq(brands.accountId, accountId), eq(brands.id, id)));
  if (!row) throw notFound('Brand', param);
}

/**
 * Checks a filter against the account (ids of another account are not found) and compiles it.
 * `window` is the operation's resolved window: any-of and all-of activities are read inside it.
 */
export async function compileFilter(
  db: Executor,
  accountId: number,
  filter: MemberFilter | undefined | null,
  window: ResolvedWindow | undefined,
): Promise<CompiledFilter> {
  const f = filter ?? {};
  const brandId = filterId(f.brandId, 'brandID');
  const segmentId = filterId(f.segmentId, 'segmentID');
  const fromSegmentId = filterId(f.membersFromSegment, 'members_from_segment');
  const activityIds = idList(f.activityIds, 'activityID');
  const memberIds = idList(f.memberIds, 'members');
  const excluded = idList(f.excludeMemberIds, 'exclude_members');
  const anyOf = activityRefs(f.anyOfActivities, 'anyofactivities');
  const allOf = activityRefs(f.allOfActivities, 'allofactivities');
  const services = f.services?.map((service) => service.trim().toLowerCase()).filter(Boolean);
  const countries = f.countries?.map((country) => country.trim().toUpperCase()).filter(Boolean);
  for (const country of countries ?? []) {
    if (!/^[A-Z]{2}$/.test(country)) throw invalidParameter('country', 'expected ISO 3166-1 alpha-2 codes such as GB,US');
  }
  if (f.region && countries?.length !== 1) throw invalidParameter('region', 'region applies only with exactly one country');
  if (f.optedIn && !brandId && !segmentId) throw invalidParameter('optedin', 'optedin needs a brand or a segment to be opted into');
  const domain = f.domain ? normaliseDomain(f.domain).replace(/^www\./, '') : undefined;
  const required = f.requiredFields?.map(requiredField);

  if (brandId) await assertBrand(db, accountId, brandId, 'brandID');
  const segment = segmentId ? await findSegment(db, accountId, segmentId, 'segmentID') : undefined;
  const fromSegment = fromSegmentId ? await findSegment(db, accountId, fromSegmentId, 'members_from_segment') : undefined;
  // A brand segment scopes activity to its brand, unless the filter names a brand itself.
  const scopeBrandId = brandId ?? segment?.brandId ?? undefined;
  if (brandId && segment?.brandId && segment.brandId !== brandId) {
    throw new AppError('INVALID_PARAMETER', 'The segment belongs to another brand than brandID.', 'segmentID');
  }

  const memberConditions: SQL[] = [];
  if (memberIds) memberConditions.push(sql`${members.id} in ${memberIds}`);
  if (excluded) memberConditions.push(sql`${members.id} not in ${excluded}`);
  if (f.emails?.length) {
    const emails = f.emails.map((email) => email.trim().toLowerCase());
    memberConditions.push(sql`(lower(${members.email}) in ${emails} or lower(${members.verifiedEmail}) in ${emails})`);
  }
  if (countries?.length) memberConditions.push(sql`upper(${members.country}) in ${countries}`);
  if (f.region) memberConditions.push(sql`lower(${members.state}) = ${f.region.trim().toLowerCase()}`);
  if (domain) {
    memberConditions.push(sql`exists (select 1 from ${memberDomains} where ${memberDomains.accountId} = ${accountId}
      and ${memberDomains.memberId} = ${members.id} and ${memberDomains.registered}
      and ${memberDomains.domain} in ${[domain, `www.${domain}`]})`);
  }
  if (services?.length || f.paidOnly) {
    memberConditions.push(sql`exists (select 1 from ${memberServices} where ${and(
      eq(memberServices.accountId, accountId),
      eq(memberServices.memberId, members.id),
      services?.length ? sql`${memberServices.network} in ${services}` : undefined,
      f.paidOnly ? eq(memberServices.paidAccount, true) : undefined,
    )})`);
  }
  if (segment) memberConditions.push(inSegment(accountId, segment));
  if (fromSegment) memberConditions.push(inSegment(accountId, fromSegment));
  if (f.optedIn) {
    memberConditions.push(segment ? inSegment(accountId, segment) : currentOptIn(accountId, sql`${optins.brandId} = ${brandId}`));
  }
  if (anyOf?.length) memberConditions.push(sql`(${sql.join(anyOf.map((ref) => performed(accountId, window, ref)), sql` or `)})`);
  for (const ref of allOf ?? []) memberConditions.push(performed(accountId, window, ref));
  memberConditions.push(...(required ?? []));

  return {
    accountId,
    window,
    brandId: scopeBrandId,
    totalsBrandId: activityIds || services?.length || f.includeOneTime ? undefined : (scopeBrandId ?? 0),
    activity(columns) {
      return and(
        scopeBrandId ? sql`${columns.brandId} = ${scopeBrandId}` : undefined,
        activityIds ? sql`${columns.activityId} in ${activityIds}` : undefined,
        services?.length ? sql`${columns.service} in ${services}` : undefined,
        f.includeOneTime ? undefined : sql`not ${columns.oneTime}`,
      );
    },
    member() {
      return memberConditions.length ? and(...memberConditions) : undefined;
    },
  };
}
