import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { typedArray } from '../db/arrays.js';
import type { Executor } from '../db/client.js';
import { activityRecords, brandMemberRechecks, brandMembers, brands, memberActivityDaily, memberDomains, members, memberServices, optins, segmentMembers, segments } from '../db/schema/index.js';
import { within, type ResolvedWindow } from './window.js';

/** The SQL of a member filter's conditions; which conditions apply, and their checks, are compile.ts's. */

type AnyColumn = Parameters<typeof eq>[0];

/** The columns of a row that can be counted: a raw record or a daily rollup row. */
export interface ActivityColumns {
  memberId: SQL.Aliased | SQL | AnyColumn;
  activityId: SQL | AnyColumn;
  brandId: SQL | AnyColumn;
  service: SQL | AnyColumn;
  oneTime: SQL | AnyColumn;
}

/** Which counted rows a filter keeps: its brand, activities and networks, and one-time activities or not. */
export function activityConditions(
  columns: ActivityColumns,
  scope: { brandId: number | undefined; activityIds: number[] | undefined; services: string[] | undefined; includeOneTime: boolean },
): SQL | undefined {
  return and(
    scope.brandId ? sql`${columns.brandId} = ${scope.brandId}` : undefined,
    scope.activityIds ? sql`${columns.activityId} in ${scope.activityIds}` : undefined,
    scope.services?.length ? sql`${columns.service} in ${scope.services}` : undefined,
    scope.includeOneTime ? undefined : sql`not ${columns.oneTime}`,
  );
}

/** Profile fields `required_fields` may name (any case), by their record names. */
const requirableColumns = {
  email: members.email,
  verifiedemail: members.verifiedEmail,
  firstname: members.firstName,
  surname: members.surname,
  username: members.username,
  gender: members.gender,
  birthdate: members.birthDate,
  bio: members.bio,
  avatarurl: members.avatarUrl,
  address: members.address,
  addressline2: members.addressLine2,
  city: members.city,
  state: members.state,
  country: members.country,
  postcode: members.postCode,
  homephone: members.homePhone,
  mobilephone: members.mobilePhone,
  website: members.website,
} as const;

/** The member has this profile field filled in; undefined for a name that is no profile field. */
export function profileFieldFilled(name: string): SQL | undefined {
  // Own properties only: a name such as `__proto__` must not reach the object's prototype.
  const key = name.toLowerCase();
  const column = Object.hasOwn(requirableColumns, key) ? requirableColumns[key as keyof typeof requirableColumns] : undefined;
  return column ? sql`coalesce(${column}::text, '') <> ''` : undefined;
}

/** The member has this custom (extended) field filled in, by its path. */
export function extendedFieldFilled(path: readonly string[]): SQL {
  return sql`coalesce(${members.extended} #>> ${`{${path.join(',')}}`}, '') <> ''`;
}

export const memberIdIn = (ids: number[]): SQL => sql`${members.id} in ${ids}`;
export const memberIdNotIn = (ids: number[]): SQL => sql`${members.id} not in ${ids}`;
/** Either address, compared in lower case. */
export const emailIn = (emails: string[]): SQL => sql`(lower(${members.email}) in ${emails} or lower(${members.verifiedEmail}) in ${emails})`;
/** Countries in upper case. */
export const countryIn = (countries: string[]): SQL => sql`upper(${members.country}) in ${countries}`;
/** A region in lower case. */
export const regionIs = (region: string): SQL => sql`lower(${members.state}) = ${region}`;

/** The member registered on one of these domains. */
export function registeredOnDomain(accountId: number, domains: string[]): SQL {
  return sql`exists (select 1 from ${memberDomains} where ${memberDomains.accountId} = ${accountId}
    and ${memberDomains.memberId} = ${members.id} and ${memberDomains.registered}
    and ${memberDomains.domain} in ${domains})`;
}

/**
 * The member linked a service of these networks (any, without), paid for (or not asked). A filter's
 * `services` is about records (their network); this stands in for it only where no record is read.
 */
export function hasService(accountId: number, networks: string[] | undefined, paidOnly: boolean): SQL {
  return sql`exists (select 1 from ${memberServices} where ${and(
    eq(memberServices.accountId, accountId),
    eq(memberServices.memberId, members.id),
    networks?.length ? sql`${memberServices.network} in ${networks}` : undefined,
    paidOnly ? eq(memberServices.paidAccount, true) : undefined,
  )})`;
}

/**
 * The member is one of the brand's members: opted into it now, or with a daily rollup row on it
 * (a record on it at any time). Read from the kept pairs (`brand_members`, see docs/scoring.md), one
 * index probe per member; a pair queued for a recheck counts only while a rollup row or a current
 * opt-in still holds it, so the answer is exact before the worker settles the queue.
 */
export function brandMemberOf(accountId: number, brandId: number): SQL {
  return sql`exists (select 1 from ${brandMembers} bm where bm.account_id = ${accountId} and bm.brand_id = ${brandId} and bm.member_id = ${members.id}
    and (not exists (select 1 from ${brandMemberRechecks} r where r.account_id = ${accountId} and r.brand_id = ${brandId} and r.member_id = ${members.id})
      or exists (select 1 from ${memberActivityDaily} d where d.account_id = ${accountId} and d.brand_id = ${brandId} and d.member_id = ${members.id})
      or exists (select 1 from ${optins} o where o.account_id = ${accountId} and o.brand_id = ${brandId} and o.member_id = ${members.id} and o.opted_out_at is null)))`;
}

export interface ActivityRef {
  activityId: number;
  brandId?: number;
}

/**
 * The activity refs as two array parameters (activity ids; brand ids, 0 for any brand), repeats
 * dropped: whatever the number of refs, the statement holds one subquery and two parameters, so
 * its planning costs the same for one ref as for a thousand.
 */
function refArrays(refs: readonly ActivityRef[]): { activityIds: SQL; brandIds: SQL; count: number } {
  const unique = [...new Map(refs.map((ref) => [`${ref.activityId}:${ref.brandId ?? 0}`, ref])).values()];
  return {
    activityIds: typedArray(
      unique.map((ref) => ref.activityId),
      'int',
    ),
    brandIds: typedArray(
      unique.map((ref) => ref.brandId ?? 0),
      'int',
    ),
    count: unique.length,
  };
}

/** How many of the refs the member performed inside the window, read from the records: one correlated subquery for every ref. */
function refsPerformed(accountId: number, window: ResolvedWindow | undefined, refs: readonly ActivityRef[]): { performed: SQL; count: number } {
  const { activityIds, brandIds, count } = refArrays(refs);
  const performed = sql`(select count(*) from unnest(${activityIds}, ${brandIds}) as ref(activity_id, brand_id)
    where exists (select 1 from ${activityRecords} where ${and(
      eq(activityRecords.accountId, accountId),
      eq(activityRecords.memberId, members.id),
      sql`${activityRecords.activityId} = ref.activity_id`,
      sql`(ref.brand_id = 0 or ${activityRecords.brandId} = ref.brand_id)`,
      window ? within(activityRecords.completedAt, window) : undefined,
    )}))`;
  return { performed, count };
}

/** Did the member perform every one of these activities (of their brands) inside the window? */
export function performedAllOf(accountId: number, window: ResolvedWindow | undefined, refs: readonly ActivityRef[]): SQL {
  const { performed, count } = refsPerformed(accountId, window, refs);
  return sql`${performed} = ${count}`;
}

/** Did the member perform any of these activities inside the window? */
export function performedAnyOf(accountId: number, window: ResolvedWindow | undefined, refs: readonly ActivityRef[]): SQL {
  const { performed } = refsPerformed(accountId, window, refs);
  return sql`${performed} > 0`;
}

export interface SegmentRow {
  id: number;
  brandId: number | null;
  kind: 'list' | 'filter';
}

/** Members of a segment: opted into a list segment, or computed into a filter segment. */
export function inSegment(accountId: number, segment: SegmentRow): SQL {
  if (segment.kind === 'filter') {
    return sql`exists (select 1 from ${segmentMembers} where ${segmentMembers.accountId} = ${accountId}
      and ${segmentMembers.segmentId} = ${segment.id} and ${segmentMembers.memberId} = ${members.id})`;
  }
  return currentOptIn(accountId, sql`${optins.segmentId} = ${segment.id}`);
}

/** Members currently opted into the brand's own list. */
export function optedIntoBrand(accountId: number, brandId: number): SQL {
  return currentOptIn(accountId, sql`${optins.brandId} = ${brandId}`);
}

function currentOptIn(accountId: number, list: SQL): SQL {
  return sql`exists (select 1 from ${optins} where ${optins.accountId} = ${accountId} and ${optins.memberId} = ${members.id}
    and ${list} and ${optins.optedOutAt} is null)`;
}

/** A live segment of the account. */
export async function findLiveSegment(db: Executor, accountId: number, id: number): Promise<SegmentRow | undefined> {
  const [row] = await db
    .select({ id: segments.id, brandId: segments.brandId, kind: segments.kind })
    .from(segments)
    .where(and(eq(segments.accountId, accountId), eq(segments.id, id), isNull(segments.deletedAt)));
  return row;
}

/**
 * Brands found, per database handle (a transaction's own, or the pool's; test databases in one
 * process do not mix): a brand is never deleted, only marked, so a brand once found stays found,
 * and a busy brand's reports and rankings do not ask again on every request.
 */
const foundBrands = new WeakMap<Executor, Set<string>>();
const foundBrandsLimit = 100_000;

/** Is this a brand of the account, deleted or not? */
export async function brandExists(db: Executor, accountId: number, id: number): Promise<boolean> {
  const key = `${accountId}:${id}`;
  let found = foundBrands.get(db);
  if (found?.has(key)) return true;
  const [row] = await db
    .select({ id: brands.id })
    .from(brands)
    .where(and(eq(brands.accountId, accountId), eq(brands.id, id)));
  if (!row) return false;
  if (!found || found.size >= foundBrandsLimit) foundBrands.set(db, (found = new Set()));
  found.add(key);
  return true;
}
