import type { Period, ResolvedWindow } from '../../filters/window.js';
import { shiftByPeriod } from '../../lib/time.js';

/**
 * The standard windows whose per-member totals are kept (`score_window_totals`): the periods the
 * interface offers by name, ending now. Ids are stored; never renumber them.
 */
export const standardWindows: readonly { id: number; period: Period }[] = [
  { id: 1, period: { amount: 1, unit: 'DAY' } },
  { id: 2, period: { amount: 1, unit: 'WEEK' } },
  { id: 3, period: { amount: 1, unit: 'MONTH' } },
  { id: 4, period: { amount: 3, unit: 'MONTH' } },
  { id: 5, period: { amount: 6, unit: 'MONTH' } },
];

/** The totals of one standard window count the records completed in [from, until). */
export interface CoveredWindow {
  windowId: number;
  from: Date;
  until: Date;
}

/**
 * Records in [start, end) count `sign` times. A span may run backwards (end before start): it then
 * counts the records of [end, start) `-sign` times, so spans add up like intervals on a line.
 */
export interface SignedSpan {
  start: Date;
  end: Date;
  sign: 1 | -1;
}

/** The same span, forwards. */
function forwards(span: SignedSpan): SignedSpan {
  return span.start <= span.end ? span : { start: span.end, end: span.start, sign: span.sign === 1 ? -1 : 1 };
}

/**
 * Longest stretch of raw records a ranking reads to correct a standard window's totals. Past it
 * (an unusual window, or totals the worker has not moved for a while) the daily rollup serves.
 */
export const maxCorrectionMs = 30 * 60_000;

/**
 * The covered window that serves `window` with the fewest records to correct, if one is close
 * enough. The corrections are `[start, from)` and `[until, end)` (see scoring/kept-totals.queries.ts),
 * so their length is how far the two ends lie apart.
 */
export function closestWindow(covered: readonly CoveredWindow[], window: ResolvedWindow): number | undefined {
  let best: { windowId: number; length: number } | undefined;
  for (const candidate of covered) {
    const length = Math.abs(window.start.getTime() - candidate.from.getTime()) + Math.abs(window.end.getTime() - candidate.until.getTime());
    if (length <= maxCorrectionMs && (!best || length < best.length)) best = { windowId: candidate.windowId, length };
  }
  return best?.windowId;
}

/** Where each standard window's totals should stand once they count everything before `until`. */
export function targetCoverage(until: Date): CoveredWindow[] {
  return standardWindows.map(({ id, period }) => ({ windowId: id, from: shiftByPeriod(until, -period.amount, period.unit), until }));
}

/** The spans that move a window's totals from one coverage to another: + [until, until′) − [from, from′). */
export function advanceSpans(from: CoveredWindow, to: CoveredWindow): SignedSpan[] {
  return [
    { start: from.until, end: to.until, sign: 1 as const },
    { start: from.from, end: to.from, sign: -1 as const },
  ]
    .map(forwards)
    .filter((span) => span.start < span.end);
}
