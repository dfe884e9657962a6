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

/**
 * The order in which windows far behind catch up (see advanceWindows): one week first, the period
 * rankings default to, then six months, the longest a ranking may ask for, then the others.
 */
export const catchUpOrder: readonly number[] = [2, 5, 1, 3, 4];

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
 * How far a requested window may lie from a covered one to be served from its totals: a window
 * within this of a covered window, or a standard one ending now whatever its totals lag (the
 * worker was stopped, or catches up). Either is served while its correction spans hold at most
 * `maxCorrectionRecords` records; other windows read the daily rollup.
 */
export const maxCorrectionMs = 30 * 60_000;

/**
 * Most records a ranking corrects a lagging window's totals with. The worker folds that many in a
 * step or two, so once it has caught up most of a long stop the rankings leave the rollup again.
 */
export const maxCorrectionRecords = 20_000;

/**
 * Most records a ranking corrects a lagging standard window with, by the window's length:
 * `maxCorrectionRecords` a week of it, and never fewer (six months: 520,000). The daily rollup that
 * answers instead costs in proportion to the window's days, a correction in proportion to the
 * records it corrects: alone at large scale after a 24-hour stop, six months corrected 114,000
 * records in 1.0–1.3 s against 7.9–8.4 s on the rollup, a week 236,000 in 2.3–2.8 s against
 * 0.5–0.7 s (bench/results/HISTORY.md, "Recovery after a stop, fourth round"). A correction past
 * `maxCorrectionRecords` takes a catch-up turn, as a rollup read does, and with the shortest
 * window's turns first, six months' corrections wait while the week's cliff lasts.
 */
export function correctionBound(windowId: number, now = new Date()): number {
  const window = targetCoverage(now).find((target) => target.windowId === windowId);
  const weeks = window ? (window.until.getTime() - window.from.getTime()) / (7 * 86_400_000) : 1;
  return Math.round(maxCorrectionRecords * Math.max(1, weeks));
}

/**
 * Most records a ranking corrects within its latency target at large scale (about 20 ms of them
 * on a quiet machine; 20,000 took 2–4 s a ranking under load). The worker catches windows up one
 * at a time, in `catchUpOrder`, until each corrects no more than this, before moving the next:
 * a window left at the rankings' own bound is served, but slowly, for the rest of the catch-up
 * (bench/results/HISTORY.md, "Recovery after a stop, third round").
 */
export const cheapCorrectionRecords = 2_000;

/** A covered window chosen to serve a request, and the spans of records that correct it. */
export interface ClosestWindow {
  windowId: number;
  spans: SignedSpan[];
}

/**
 * The covered window that serves `window` with the fewest records to correct, if one is close
 * enough, or lags behind the standard window (ending `now`) that `window` is. The corrections are `[start, from)`
 * and `[until, end)` (see scoring/kept-totals.queries.ts), so their length is how far the two
 * ends lie apart.
 */
export function closestWindow(covered: readonly CoveredWindow[], window: ResolvedWindow, now = new Date()): ClosestWindow | undefined {
  let best: { candidate: CoveredWindow; length: number } | undefined;
  const standard = new Map(targetCoverage(now).map((w) => [w.windowId, w]));
  for (const candidate of covered) {
    const length = Math.abs(window.start.getTime() - candidate.from.getTime()) + Math.abs(window.end.getTime() - candidate.until.getTime());
    const target = standard.get(candidate.windowId);
    const isStandard = target && Math.abs(window.start.getTime() - target.from.getTime()) + Math.abs(window.end.getTime() - target.until.getTime()) <= maxCorrectionMs;
    if ((length <= maxCorrectionMs || isStandard) && (!best || length < best.length)) best = { candidate, length };
  }
  if (!best) return undefined;
  const { candidate } = best;
  const spans = [
    { start: window.start, end: candidate.from, sign: 1 as const },
    { start: candidate.until, end: window.end, sign: 1 as const },
  ]
    .map(forwards)
    .filter((span) => span.start < span.end);
  return { windowId: candidate.windowId, spans };
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
