import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import { activityRecords, memberActivityDaily } from '../../db/schema/index.js';
import { timestampParam } from '../../db/timestamps.js';
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
  const split = splitWindow(window);
  const { wholeDays, rawSpans } = split;
  const tail = lastPartialDay(filter.accountId, window, split);
  const daily = memberActivityDaily;
  const records = activityRecords;
  const forMembers = (column: typeof daily.memberId | typeof records.memberId): SQL | undefined => (memberIds ? sql`${column} in ${memberIds.length ? memberIds : [0]}` : undefined);

  const fromRecords = (spans: readonly { start: Date; end: Date }[], ...conditions: SQL[]) =>
    db
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
      .where(and(eq(records.accountId, filter.accountId), or(...spans.map((span) => within(records.completedAt, span))), filter.activity(records), forMembers(records.memberId), ...conditions));
  const fromRollup = (days: SQL, ...conditions: SQL[]) =>
    db
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
      .where(and(eq(daily.accountId, filter.accountId), days, filter.activity(daily), forMembers(daily.memberId), ...conditions));
  if (!wholeDays) return fromRecords(rawSpans).as('counted');

  const wholes = fromRollup(sql`${daily.day} >= ${wholeDays.from} and ${daily.day} < ${wholeDays.until}`);
  const spans = tail ? rawSpans.filter((span) => span !== tail.span) : rawSpans;
  const others = spans.length ? fromRecords(spans) : undefined;
  if (!tail) return (others ? unionAll(wholes, others) : wholes).as('counted');
  // The last partial day from its rollup rows when that is exact, from its records otherwise (one of the two reads nothing).
  const tailDay = fromRollup(sql`${daily.day} = ${tail.day}`, tail.quiet);
  const tailRecords = fromRecords([tail.span], sql`not ${tail.quiet}`);
  return (others ? unionAll(wholes, tailDay, tailRecords, others) : unionAll(wholes, tailDay, tailRecords)).as('counted');
}

/**
 * The window's last partial day, `[midnight, end)`, when it has whole days before it: a window
 * ending now ends in a day whose records so far are all the day's records, since none can be
 * stored completing in the future. That day's rollup rows then count exactly what its records
 * would, read from a covering index instead of every record of the day so far (at a label's
 * scale, hundreds of thousands by evening). `quiet` is the condition that makes it so: no record
 * of the account completed from `end` to the next midnight; when one did, the records are read.
 */
export function lastPartialDay(accountId: number, window: ResolvedWindow, { wholeDays, rawSpans } = splitWindow(window)): { day: string; span: { start: Date; end: Date }; quiet: SQL } | undefined {
  const span = rawSpans.at(-1);
  if (!wholeDays || !span || span.start.getTime() !== truncate(window.end, 'day').getTime()) return undefined;
  const nextMidnight = shiftByPeriod(span.start, 1, 'DAY');
  const r = activityRecords;
  const quiet = sql`not exists (select 1 from ${r} where ${r.accountId} = ${accountId}
    and ${r.completedAt} >= ${timestampParam(span.end)} and ${r.completedAt} < ${timestampParam(nextMidnight)})`;
  return { day: formatDay(span.start), span, quiet };
}
