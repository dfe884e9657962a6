import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import { activityRecords, memberActivityDaily } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import { within, type ResolvedWindow } from '../../filters/window.js';
import { formatDay, shiftByPeriod, truncate } from '../../lib/time.js';

/**
 * Whole UTC days inside the window are read from the daily rollup; only the partial days at its
 * two ends are read from the raw records. A six-month score therefore touches at most two days
 * of records, and still counts exactly from `start` to `end`.
 */
export function splitWindow(window: ResolvedWindow) {
  const firstWholeDay = truncate(window.start, 'day') < window.start ? shiftByPeriod(truncate(window.start, 'day'), 1, 'DAY') : window.start;
  const endOfWholeDays = truncate(window.end, 'day');
  if (firstWholeDay >= endOfWholeDays) return { wholeDays: undefined, rawSpans: [window] };
  return {
    wholeDays: { from: formatDay(firstWholeDay), until: formatDay(endOfWholeDays) },
    rawSpans: [
      { start: window.start, end: firstWholeDay },
      { start: endOfWholeDays, end: window.end },
    ].filter((span) => span.start < span.end),
  };
}

/**
 * The counted activity of a window under a filter, as rows of (member, UTC day, activity, brand,
 * service, count, points): rollup rows for whole days, one row per record for the partial days. Member
 * conditions are not applied here; callers join `members` and add `filter.member()`.
 * `memberIds` narrows the rows early, for per-member lookups.
 */
export function countedRows(db: Executor, filter: CompiledFilter, window: ResolvedWindow, memberIds?: readonly number[]) {
  const { wholeDays, rawSpans } = splitWindow(window);
  const daily = memberActivityDaily;
  const records = activityRecords;
  const forMembers = (column: typeof daily.memberId | typeof records.memberId): SQL | undefined =>
    memberIds ? sql`${column} in ${memberIds.length ? memberIds : [0]}` : undefined;

  const fromRecords = db
    .select({
      memberId: records.memberId,
      day: sql<string>`(${records.completedAt} at time zone 'UTC')::date::text`.as('day'),
      activityId: records.activityId,
      brandId: records.brandId,
      service: records.service,
      count: sql<number>`1`.as('count'),
      points: records.points,
    })
    .from(records)
    .where(
      and(
        eq(records.accountId, filter.accountId),
        or(...rawSpans.map((span) => within(records.completedAt, span))),
        filter.activity(records),
        forMembers(records.memberId),
      ),
    );
  if (!wholeDays) return fromRecords.as('counted');

  const fromRollup = db
    .select({
      memberId: daily.memberId,
      day: sql<string>`${daily.day}::text`.as('day'),
      activityId: daily.activityId,
      brandId: daily.brandId,
      service: daily.service,
      count: daily.count,
      points: daily.points,
    })
    .from(daily)
    .where(
      and(
        eq(daily.accountId, filter.accountId),
        sql`${daily.day} >= ${wholeDays.from} and ${daily.day} < ${wholeDays.until}`,
        filter.activity(daily),
        forMembers(daily.memberId),
      ),
    );
  return (rawSpans.length ? unionAll(fromRollup, fromRecords) : fromRollup).as('counted');
}
