import { and, gte, lt, type Column, type SQL } from 'drizzle-orm';
import { invalidParameter } from '../core/errors.js';
import { formatTimestamp, shiftByPeriod, type PeriodUnitName } from '../lib/time.js';
import type { PeriodInput, WindowInput } from './window.types.js';

export interface Period {
  amount: number;
  unit: PeriodUnitName;
}

export interface WindowRules {
  /** Span used when the caller gives no start (the interface's default is one week). */
  defaultPeriod: Period;
  /** Longest span the operation serves; a longer request is clamped to it, ending at the same end. */
  maxPeriod: Period;
}

export interface ResolvedWindow {
  start: Date;
  end: Date;
}

export const oneWeek: Period = { amount: 1, unit: 'WEEK' };
export const threeMonths: Period = { amount: 3, unit: 'MONTH' };
export const sixMonths: Period = { amount: 6, unit: 'MONTH' };

/** Listings, the feed and the statistics: one week by default, six months at most. */
export const listingWindow: WindowRules = { defaultPeriod: oneWeek, maxPeriod: sixMonths };
/** A single member's figures (member show): one week by default, three months at most. */
export const memberWindow: WindowRules = { defaultPeriod: oneWeek, maxPeriod: threeMonths };

function checkPeriod(period: PeriodInput | undefined, param: string): Period | undefined {
  if (!period) return undefined;
  if (!Number.isInteger(period.amount) || period.amount < 1 || period.amount > 10_000) {
    throw invalidParameter(param, 'expected a whole number of at least 1 followed by Day, Week or Month');
  }
  return { amount: period.amount, unit: period.unit };
}

/**
 * The window rules of the interface, in one place: end at `end`, or `periodEnd` before now, or
 * now; start at `start` or `period` before the end (default one week); clamp to the maximum.
 */
export function resolveWindow(input: WindowInput | undefined | null, rules: WindowRules, now = new Date()): ResolvedWindow {
  const period = checkPeriod(input?.period ?? undefined, 'period');
  const periodEnd = checkPeriod(input?.periodEnd ?? undefined, 'periodEnd');
  const end = input?.end ?? (periodEnd ? shiftByPeriod(now, -periodEnd.amount, periodEnd.unit) : now);
  const span = period ?? rules.defaultPeriod;
  let start = input?.start ?? shiftByPeriod(end, -span.amount, span.unit);
  if (start >= end) throw invalidParameter(input?.start ? 'start' : 'period', 'the window must start before it ends');
  const earliest = shiftByPeriod(end, -rules.maxPeriod.amount, rules.maxPeriod.unit);
  if (start < earliest) start = earliest;
  return { start, end };
}

/** Whether a window was cut to the operation's maximum span, and the sentence that tells the caller so. */
export interface WindowClamp {
  clamped: boolean;
  notice: string | null;
}

/**
 * What resolveWindow did to a window too long for the operation, for answers whose interface has
 * no maximum of its own to point at (brand statistics): `clamped` and a `notice`, as usage answers.
 * Pure, on the same rules; a window whose start falls within a second of the limit is not clamped.
 */
export function windowClamp(input: WindowInput | undefined | null, rules: WindowRules, now = new Date()): WindowClamp {
  const period = input?.period ?? undefined;
  const periodEnd = input?.periodEnd ?? undefined;
  const end = input?.end ?? (periodEnd ? shiftByPeriod(now, -periodEnd.amount, periodEnd.unit) : now);
  const span = period ?? rules.defaultPeriod;
  const start = input?.start ?? shiftByPeriod(end, -span.amount, span.unit);
  const earliest = shiftByPeriod(end, -rules.maxPeriod.amount, rules.maxPeriod.unit);
  if (start.getTime() >= earliest.getTime() - 1000) return { clamped: false, notice: null };
  const longest = `${rules.maxPeriod.amount} ${rules.maxPeriod.unit.toLowerCase()}${rules.maxPeriod.amount === 1 ? '' : 's'}`;
  return {
    clamped: true,
    notice: `The window was cut to ${longest}, the longest this operation serves: it runs from ${formatTimestamp(earliest)} to ${formatTimestamp(end)} (UTC).`,
  };
}

/** `start <= column < end`, with the dates bound through the column so every driver encodes them alike. */
export function within(column: Column, window: { start: Date; end: Date }): SQL {
  return and(gte(column, window.start), lt(column, window.end))!;
}
