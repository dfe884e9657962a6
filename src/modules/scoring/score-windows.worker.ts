import type { Database, Executor } from '../../db/client.js';
import { keptDataWorkName, nameTransaction } from '../../db/work-names.js';
import { advanceSpans, catchUpOrder, cheapCorrectionRecords, targetCoverage, type CoveredWindow, type SignedSpan } from '../score-windows/score-windows.js';
import { forgetCoverage } from './score-windows.ranking.js';
import { buildMemberTotals, claimCoverage, coveredWindows, dropTotals, foldSpans, recordsAtMost, saveCoverage, stepEnd, windowStarts } from '../score-windows/score-windows.queries.js';
import { activityDimensions, buildActivityGroups, buildActivityTotals } from '../score-windows/score-window-activities.queries.js';
import { holdCoverageLock, holdTimelineDaysLock, holdTotalsLock, tryMoverLock } from '../score-windows/score-windows.locks.js';
import { keptDayList, makeTimelineDays, takeStaleMarks } from './timeline-days.queries.js';

/**
 * How many records one transaction folds into the totals, over all the ends it moves: a window far
 * behind (a gateway stopped for a day, a first coverage of years) catches up in steps bounded in
 * rows, whatever span of time they take, and a pass that fails resumes from the last step committed.
 */
export const maxStepRecords = 20_000;

interface Move {
  now: CoveredWindow;
  target: CoveredWindow;
}

/**
 * Where one step takes the windows of `moves`: each end moves only as far as its share of
 * `maxRecords` records takes it (stepEnd), with the spans to fold, and whether every one of them
 * reaches its target. An end shared by several windows (the new end of all of them, usually) is
 * read once and weighs as many shares, since each window folds its records. The share an end
 * leaves unused (the old ends of short windows hold the few records of a moment long ago) goes,
 * in a second read, to the ends that used all of theirs: after a burst of records of now, the new
 * end takes nearly the whole budget instead of its share of ten ends.
 */
async function planStep(tx: Executor, accountId: number, moves: readonly Move[], maxRecords: number) {
  const keyOf = (from: Date, to: Date) => `${from.getTime()}:${to.getTime()}`;
  const ends = new Map<string, { at: Date; to: Date; windows: number; reached: boolean }>();
  for (const { now, target } of moves) {
    for (const [from, to] of [
      [now.until, target.until],
      [now.from, target.from],
    ]) {
      if (from.getTime() === to.getTime()) continue;
      const end = ends.get(keyOf(from, to)) ?? { at: from, to, windows: 0, reached: false };
      end.windows += 1;
      ends.set(keyOf(from, to), end);
    }
  }
  let budget = maxRecords;
  for (let round = 0; round < 2; round += 1) {
    const open = [...ends.values()].filter((end) => !end.reached);
    const weight = open.reduce((sum, end) => sum + end.windows, 0);
    const share = Math.floor(budget / Math.max(1, weight));
    if (!open.length || (round > 0 && share < 1)) break;
    for (const end of open) {
      const step = await stepEnd(tx, accountId, end.at, end.to, Math.max(1, share));
      Object.assign(end, { at: step.at, reached: step.reached });
      budget -= step.records * end.windows;
    }
  }
  const endOf = (from: Date, to: Date) => ends.get(keyOf(from, to))?.at ?? to;
  const next: CoveredWindow[] = [];
  const spans: { windowId: number; span: SignedSpan }[] = [];
  let done = true;
  for (const { now, target } of moves) {
    const step = { windowId: target.windowId, from: endOf(now.from, target.from), until: endOf(now.until, target.until) };
    if (step.from.getTime() !== target.from.getTime() || step.until.getTime() !== target.until.getTime()) done = false;
    spans.push(...advanceSpans(now, step).map((span) => ({ windowId: target.windowId, span })));
    next.push(step);
  }
  return { next, spans, done };
}

/**
 * The first window, in `catchUpOrder`, that a ranking could not serve cheaply from its totals now:
 * more than `correctionRecords` records to correct (`cheapCorrectionRecords`; the rankings
 * themselves correct up to `maxCorrectionRecords`, more slowly, score-windows.ranking.ts), whether
 * a long stop left them or a burst of records of now. Counted a window at a time, each count
 * stopping past the bound, and no further than the first such window: during a long catch-up that
 * is the first one counted (counting every window's spans at once read 20,000 index entries a span,
 * a fifth of a step at large scale).
 */
async function firstUnservedWindow(tx: Executor, accountId: number, moves: readonly Move[], correctionRecords: number): Promise<Move | undefined> {
  const ordered = [...moves].sort((a, b) => catchUpOrder.indexOf(a.target.windowId) - catchUpOrder.indexOf(b.target.windowId));
  for (const move of ordered) {
    if (!(await recordsAtMost(tx, accountId, advanceSpans(move.now, move.target), correctionRecords))) return move;
  }
  return undefined;
}

/**
 * What one step folds: every window together when rankings can serve them all meanwhile (the
 * worker's usual pass, a short stop) or one step takes them all to their target; otherwise the
 * first window they cannot serve cheaply, with the whole step. That window is planned first: when
 * its own records exceed the step, so do every window's, and planning all of them as well read
 * another step's worth of index entries for nothing (half the planning reads of a long catch-up:
 * 60 of them in four steps at large scale, 1.4 s of the steps' 8 s).
 */
async function chooseStep(tx: Executor, accountId: number, moves: readonly Move[], maxRecords: number, correctionRecords: number) {
  const first = await firstUnservedWindow(tx, accountId, moves, correctionRecords);
  if (!first) return planStep(tx, accountId, moves, maxRecords);
  const alone = await planStep(tx, accountId, [first], maxRecords);
  if (alone.done && moves.length > 1) {
    const together = await planStep(tx, accountId, moves, maxRecords);
    if (together.done) return together;
  }
  return { ...alone, done: alone.done && moves.length === 1 };
}

/**
 * One step of an account's standard windows toward ending at `until`: both ends of each window
 * move and the totals take in the records that entered and give back those that left, in one
 * transaction holding the coverage lock exclusively, after a short one that claims the time before
 * `until` (claimCoverage): records of now are stored meanwhile without waiting, and the ones stored
 * before the claim are in the fold's snapshot. Each end moves only as far as its share of
 * `maxRecords` records takes it (stepEnd), so the step's statements are bounded whatever the lag.
 * A window not covered yet starts empty at `until` and grows backwards step by step, so even a
 * first coverage of years of records never holds the lock for long. Answers whether every window
 * has reached its target.
 *
 * When one step cannot take every window to its target, the windows that rankings cannot serve
 * cheaply from their totals meanwhile (firstUnservedWindow) take the whole step one at a time, in
 * `catchUpOrder`, and the others wait: a ranking reads a window's totals cheaply again as soon as
 * that window is near, whereas steps shared by all five windows kept every ranking on the daily
 * rollup, or on corrections of thousands of records, until the last step of a long catch-up.
 *
 * `correctionRecords` is the bound of a cheap correction (a test of small data sets it lower).
 * With `unlessMoving` (the gateways' workers) it leaves the account alone when another worker is
 * moving its windows now, and answers true: that worker takes them to its own target.
 */
export async function advanceWindows(
  db: Database,
  accountId: number,
  until: Date,
  maxRecords = maxStepRecords,
  { unlessMoving = false, correctionRecords = cheapCorrectionRecords } = {},
): Promise<boolean> {
  if (!(await claimCoverage(db, accountId, until, { unlessMoving }))) return true;
  const reached = await db.transaction(async (tx) => {
    await nameTransaction(tx, keptDataWorkName);
    if (unlessMoving && !(await tryMoverLock(tx, accountId))) return true;
    await holdCoverageLock(tx, accountId, 'exclusive');
    const current = new Map((await coveredWindows(tx, accountId)).map((w) => [w.windowId, w]));
    const moves: Move[] = [];
    for (const target of targetCoverage(until)) {
      const now = current.get(target.windowId) ?? { windowId: target.windowId, from: target.until, until: target.until };
      // Another gateway (a clock ahead of ours) may have moved further: never move back.
      if (now.until > target.until) continue;
      if (now.until.getTime() === target.until.getTime() && now.from.getTime() === target.from.getTime()) continue;
      moves.push({ now, target });
    }
    const { next, spans, done } = await chooseStep(tx, accountId, moves, maxRecords, correctionRecords);
    await foldSpans(tx, accountId, spans);
    await saveCoverage(tx, accountId, next);
    return done;
  });
  forgetCoverage(db, accountId);
  return reached;
}

/**
 * First coverage of an account's windows in one pass over its records, for bulk loads (the
 * benchmark's generator): quicker than stepping, but it holds the coverage lock throughout, so the
 * gateway's worker steps instead.
 *
 * Three builds read the records or the rollup and write tables of their own: the totals with their
 * member counts and groups; the activity totals, then their groups a dimension each; and the
 * timeline's kept days. With `parallel` (PostgreSQL) each step runs in a session of its own, so
 * the server spreads them over its cores (the pool needs one connection more than the steps that
 * run at once, five, or steps wait for one), while this transaction holds the timeline-days,
 * coverage and totals locks for them (after claiming the time before `until`): a recording waits
 * for the coverage saved last, and no reader uses totals without it. A step that fails leaves the
 * others' committed rows, which are taken out again before the error is thrown on.
 */
export async function buildWindows(db: Database, accountId: number, until: Date, { parallel = false } = {}): Promise<void> {
  const windows = targetCoverage(until);
  const days = keptDayList(until);
  type Step = (s: Executor) => Promise<unknown>;
  /** Each build: stages one after another, the steps of a stage at once. */
  const builds: Step[][][] = [
    [[(s) => buildMemberTotals(s, accountId, windows)]],
    [[(s) => buildActivityTotals(s, accountId, windowStarts(windows), until)], activityDimensions.map((dimension) => (s: Executor) => buildActivityGroups(s, accountId, dimension))],
    // Two weeks a statement: each one's distinct members are counted in memory.
    // The marks of changes already made are taken first, then the days made in later statements
    // (later snapshots), as keepTimelineDaysStep does: a change the days miss keeps its mark.
    [
      [
        async (s) => {
          await takeStaleMarks(s, accountId);
          for (let at = 0; at < days.length; at += 14) await makeTimelineDays(s, accountId, days.slice(at, at + 14));
        },
      ],
    ],
  ];
  let started = false;
  await claimCoverage(db, accountId, until);
  try {
    await db.transaction(async (tx) => {
      // Every lock of score-windows.locks.ts but the claims', in their order: the build makes timeline days too.
      await holdTimelineDaysLock(tx, accountId, 'exclusive');
      await holdCoverageLock(tx, accountId, 'exclusive');
      await holdTotalsLock(tx, accountId);
      if ((await coveredWindows(tx, accountId)).length) throw new Error(`account ${accountId} already has covered windows`);
      started = true;
      const run = async (stages: Step[][]) => {
        for (const steps of stages) {
          if (parallel) await Promise.all(steps.map((step) => db.transaction(step)));
          else for (const step of steps) await step(tx);
        }
      };
      if (parallel) await Promise.all(builds.map(run));
      else for (const build of builds) await run(build);
      await saveCoverage(tx, accountId, windows);
    });
  } catch (error) {
    if (parallel && started) await db.transaction((tx) => dropTotals(tx, accountId));
    throw error;
  }
  forgetCoverage(db, accountId);
}

/** Steps an account's windows until they end at `until`. */
export async function coverUntil(db: Database, accountId: number, until: Date, maxRecords = maxStepRecords): Promise<void> {
  while (!(await advanceWindows(db, accountId, until, maxRecords)));
}
