import { and, asc, desc, eq, inArray, isNull, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { activityDefinitions, memberActivityDaily, members, optins, segmentMembers, segments } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import type { ResolvedWindow } from '../../filters/window.js';
import { countedRows } from '../scoring/counted-rows.queries.js';

/**
 * The counted rows of the window (rollup days and raw edges, see counted-rows.queries.ts) of the members
 * the filter admits. Without member conditions no member row is read at all.
 */
function scopedRows(db: Executor, filter: CompiledFilter, window: ResolvedWindow) {
  const counted = countedRows(db, filter, window);
  const conditions = filter.member();
  if (!conditions) return counted;
  return db
    .select({
      memberId: counted.memberId,
      day: counted.day,
      activityId: counted.activityId,
      brandId: counted.brandId,
      service: counted.service,
      count: counted.count,
      points: counted.points,
    })
    .from(counted)
    .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, counted.memberId)))
    .where(conditions)
    .as('scoped');
}

const total = (column: SQL | Parameters<typeof eq>[0]) => sql<number>`coalesce(sum(${column}), 0)::int`;
const distinct = (column: SQL | Parameters<typeof eq>[0]) => sql<number>`count(distinct ${column})::int`;

export type Grouping = 'activity' | 'type' | 'service';

/** Totals per activity, type or network, most records first, at most `limit` groups after the first `offset`. */
export async function activityTotals(db: Executor, { filter, window, grouping, limit, offset }: { filter: CompiledFilter; window: ResolvedWindow; grouping: Grouping; limit: number; offset: number }) {
  const rows = scopedRows(db, filter, window);
  const definitions = activityDefinitions;
  const key = grouping === 'activity' ? rows.activityId : grouping === 'type' ? definitions.type : rows.service;
  const items = await db
    .select({
      key: sql<string | null>`${key}::text`,
      activityId: grouping === 'activity' ? sql<number | null>`${rows.activityId}` : sql<number | null>`null::int`,
      activity: grouping === 'service' ? sql<string | null>`null` : grouping === 'type' ? sql<string | null>`${definitions.type}` : sql<string | null>`min(${definitions.name})`,
      type: grouping === 'service' ? sql<string | null>`null` : sql<string | null>`min(${definitions.type})`,
      service: grouping === 'service' ? sql<string | null>`${rows.service}` : grouping === 'activity' ? sql<string | null>`min(${definitions.service})` : sql<string | null>`null`,
      count: total(rows.count),
      distinctMembers: distinct(rows.memberId),
    })
    .from(rows)
    .innerJoin(definitions, and(eq(definitions.accountId, filter.accountId), eq(definitions.id, rows.activityId)))
    .groupBy(key)
    .orderBy(desc(total(rows.count)), sql`1`)
    .limit(limit)
    .offset(offset);
  if (!items.length) return { items, totalCount: 0, totalMembers: 0 };
  // The totals are made from the groups returned (the interface's `limit` bounds both).
  const keys = items.map((item) => item.key);
  const keyCondition = keys.some((value) => value === null) ? sql`(${key}::text in ${keys.filter((value) => value !== null).concat('\u0000')} or ${key} is null)` : sql`${key}::text in ${keys}`;
  const [totals] = await db
    .select({ members: distinct(rows.memberId) })
    .from(rows)
    .innerJoin(definitions, and(eq(definitions.accountId, filter.accountId), eq(definitions.id, rows.activityId)))
    .where(keyCondition);
  return { items, totalCount: items.reduce((sum, item) => sum + item.count, 0), totalMembers: totals.members };
}

/** Records and distinct members per network and day, and per network over the whole window (one query). */
export function serviceTimeline(db: Executor, filter: CompiledFilter, window: ResolvedWindow) {
  const rows = scopedRows(db, filter, window);
  return db
    .select({
      service: rows.service,
      day: sql<string | null>`${rows.day}`,
      count: total(rows.count),
      distinctMembers: distinct(rows.memberId),
    })
    .from(rows)
    .groupBy(sql`grouping sets ((${rows.service}, ${rows.day}), (${rows.service}))`);
}

/** Records and distinct members per day, and over the whole window (the row without a day). */
export function dailyActivity(db: Executor, filter: CompiledFilter, window: ResolvedWindow) {
  const rows = scopedRows(db, filter, window);
  return db
    .select({ day: sql<string | null>`${rows.day}`, count: total(rows.count), distinctMembers: distinct(rows.memberId) })
    .from(rows)
    .groupBy(sql`grouping sets ((${rows.day}), ())`);
}

/** Actions and distinct members per member country; the row without a country group is the total. */
export function locationTotals(db: Executor, filter: CompiledFilter, window: ResolvedWindow) {
  const counted = countedRows(db, filter, window);
  return db
    .select({
      country: sql<string | null>`upper(${members.country})`,
      isTotal: sql<boolean>`grouping(upper(${members.country})) = 1`,
      actions: total(counted.count),
      members: distinct(counted.memberId),
    })
    .from(counted)
    .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, counted.memberId)))
    .where(filter.member())
    .groupBy(sql`grouping sets ((upper(${members.country})), ())`);
}

/** Distinct members active in the window under the filter (on the filter's brand: all of them its members). */
export async function activeMemberCount(db: Executor, filter: CompiledFilter, window: ResolvedWindow): Promise<number> {
  const counted = countedRows(db, filter, window);
  const active = db.selectDistinct({ memberId: counted.memberId }).from(counted).as('active');
  const [row] = await db
    .select({ active: sql<number>`count(*)::int` })
    .from(active)
    .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, active.memberId)))
    .where(filter.member());
  return row.active;
}

/** Distinct members active in the window under the filter, counted by a member expression (age range, gender). */
export function activeMembersBy(db: Executor, filter: CompiledFilter, window: ResolvedWindow, bucket: SQL<string>) {
  const counted = countedRows(db, filter, window);
  const active = db.selectDistinct({ memberId: counted.memberId }).from(counted).as('active');
  return db
    .select({ bucket, members: sql<number>`count(*)::int` })
    .from(active)
    .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, active.memberId)))
    .where(filter.member())
    .groupBy(bucket)
    .orderBy(asc(bucket));
}

/** The age range of a birth date today, 'unknown' without one. */
export function ageRangeOf(birthDate: SQL | AnyColumn): SQL<string> {
  const years = sql`date_part('year', age(current_date, ${birthDate}))`;
  return sql<string>`case
  when ${birthDate} is null then 'unknown'
  when ${years} < 13 then 'under 13'
  when ${years} < 18 then '13-17'
  when ${years} < 25 then '18-24'
  when ${years} < 35 then '25-34'
  when ${years} < 45 then '35-44'
  when ${years} < 55 then '45-54'
  when ${years} < 65 then '55-64'
  else '65+' end`;
}

export const genderOf = (gender: SQL | AnyColumn) => sql<string>`coalesce(${gender}, 'unknown')`;

/** The buckets of the age and gender reports, of a member row and of a kept group's key. */
export const memberBuckets = {
  age: { ofMember: ageRangeOf(members.birthDate), ofKey: (birthDate: SQL) => ageRangeOf(sql`${birthDate}::date`) },
  gender: { ofMember: genderOf(members.gender), ofKey: genderOf },
};

/** Each live segment of the brand: its members now, and their records on the brand of all time. */
export function segmentTotals(db: Executor, accountId: number, brandId: number) {
  const membersOf = sql`(select ${optins.memberId} from ${optins} where ${optins.accountId} = ${accountId}
      and ${optins.segmentId} = ${segments.id} and ${optins.optedOutAt} is null
    union select ${segmentMembers.memberId} from ${segmentMembers} where ${segmentMembers.accountId} = ${accountId}
      and ${segmentMembers.segmentId} = ${segments.id})`;
  return db
    .select({
      segmentId: segments.id,
      name: segments.name,
      members: sql<number>`(select count(*) from ${membersOf} as segment_member)::int`,
      activities: sql<number>`(select coalesce(sum(${memberActivityDaily.count}), 0) from ${memberActivityDaily}
        where ${memberActivityDaily.accountId} = ${accountId} and ${memberActivityDaily.brandId} = ${brandId}
        and ${memberActivityDaily.memberId} in ${membersOf})::int`,
    })
    .from(segments)
    .where(and(eq(segments.accountId, accountId), eq(segments.brandId, brandId), isNull(segments.deletedAt)))
    .orderBy(asc(segments.id));
}

export async function segmentName(db: Executor, accountId: number, segmentId: number | undefined): Promise<string | null> {
  if (!segmentId) return null;
  const [row] = await db
    .select({ name: segments.name })
    .from(segments)
    .where(and(eq(segments.accountId, accountId), inArray(segments.id, [segmentId])));
  return row?.name ?? null;
}
