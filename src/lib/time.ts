import { UTCDate } from '@date-fns/utc';
// One module per function: the package index loads all of date-fns, a third of a second at start.
import { addDays } from 'date-fns/addDays';
import { addHours } from 'date-fns/addHours';
import { addMonths } from 'date-fns/addMonths';
import { addWeeks } from 'date-fns/addWeeks';
import { startOfDay } from 'date-fns/startOfDay';
import { startOfHour } from 'date-fns/startOfHour';
import { startOfMonth } from 'date-fns/startOfMonth';

/** Every time the interface shows or reads is UTC, in the seed's `YYYY-MM-DD HH:MM:SS` form. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** A time the GraphQL layer gave as ISO text, in the interface's form; null stays null. */
export function formatOptionalTimestamp(value: string | null | undefined): string | null {
  return value ? formatTimestamp(new Date(value)) : null;
}

export function formatDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function formatMonth(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** Reads `YYYY-MM-DD HH:MM:SS` (or just the date, or ISO 8601) as UTC; undefined when malformed. */
export function parseTimestamp(value: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?Z?)?$/.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = match;
  const date = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  // Date.UTC rolls 2026-02-31 over to March: a rolled-over date was not a real date.
  if (date.getUTCFullYear() !== +y || date.getUTCMonth() !== +mo - 1 || date.getUTCDate() !== +d) return undefined;
  if (+h > 23 || +mi > 59 || +s > 59) return undefined;
  return date;
}

export type PeriodUnitName = 'HOUR' | 'DAY' | 'WEEK' | 'MONTH';

/** Calendar arithmetic in UTC: one month back from 31 March is 28 (or 29) February. */
export function shiftByPeriod(date: Date, amount: number, unit: PeriodUnitName): Date {
  const utc = new UTCDate(date.getTime());
  const shifted = unit === 'HOUR' ? addHours(utc, amount) : unit === 'DAY' ? addDays(utc, amount) : unit === 'WEEK' ? addWeeks(utc, amount) : addMonths(utc, amount);
  return new Date(shifted.getTime());
}

export type TruncateUnit = 'hour' | 'day' | 'month';

export function truncate(date: Date, unit: TruncateUnit): Date {
  const utc = new UTCDate(date.getTime());
  const truncated = unit === 'hour' ? startOfHour(utc) : unit === 'day' ? startOfDay(utc) : startOfMonth(utc);
  return new Date(truncated.getTime());
}

/** The start of each bucket from `start` (inclusive) to `end` (exclusive). */
export function bucketStarts(start: Date, end: Date, unit: TruncateUnit): Date[] {
  const step: PeriodUnitName = unit === 'hour' ? 'HOUR' : unit === 'day' ? 'DAY' : 'MONTH';
  const starts: Date[] = [];
  for (let at = truncate(start, unit); at < end; at = shiftByPeriod(at, 1, step)) starts.push(at);
  return starts;
}

/** Whole years from a `YYYY-MM-DD` birth date to `now` (UTC days): 29 February birthdays count from 1 March in other years. */
export function ageInYears(birthDate: string, now = new Date()): number {
  const [year, month, day] = birthDate.split('-').map(Number);
  const years = now.getUTCFullYear() - year;
  const beforeBirthday = now.getUTCMonth() + 1 < month || (now.getUTCMonth() + 1 === month && now.getUTCDate() < day);
  return beforeBirthday ? years - 1 : years;
}
