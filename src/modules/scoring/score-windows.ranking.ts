import type { Executor } from '../../db/client.js';
import type { CompiledFilter } from '../../filters/compile.js';
import type { ResolvedWindow } from '../../filters/window.js';
import type { Direction, Keyset, ListedMember } from './scoring.queries.js';
import { findMembersByIds, type MemberReads } from '../members/members.queries.js';
import { closestWindow, correctionBound, maxCorrectionRecords, type ClosestWindow, type CoveredWindow } from '../score-windows/score-windows.js';
import { coveredWindows, recordsUpTo, type TotalsScope } from '../score-windows/score-windows.queries.js';
import { countTotalsAbove, countTotalsBefore, edgeScores, rankedWithEdges, type EdgeScore, type TotalsOrder } from './kept-totals.queries.js';

/**
 * Rankings from the per-member totals of a standard window (see docs/performance.md, "Rankings
 * from kept totals"). A member's score in the requested window is their total plus the records of
 * the correction spans (the few seconds between the totals' ends and the window's). Only members
 * with records in those spans — the edge members — can differ from their total, so a page is the
 * first `offset + limit + edges` rows of the totals' order without the edge members, merged with
 * the edge members at their exact score: at least `offset + limit` exact rows are in hand, and
 * every member not read scores no better than them.
 */
export interface TotalsPlan {
  scope: TotalsScope;
  window: ResolvedWindow;
}

/**
 * Each account's covered windows, as read a moment ago: enough to choose which window serves a
 * request (the corrections themselves are computed from the coverage as it is when they run).
 * Per database handle, so test databases in one process do not mix.
 */
const coverageCache = new WeakMap<Executor, Map<number, { at: number; windows: Promise<CoveredWindow[]> }>>();
const coverageTtlMs = 5_000;

function cachedCoverage(db: Executor, accountId: number): Promise<CoveredWindow[]> {
  let byAccount = coverageCache.get(db);
  if (!byAccount) {
    byAccount = new Map();
    coverageCache.set(db, byAccount);
  }
  const cached = byAccount.get(accountId);
  if (cached && performance.now() - cached.at < coverageTtlMs) return cached.windows;
  const windows = coveredWindows(db, accountId);
  byAccount.set(accountId, { at: performance.now(), windows });
  windows.catch(() => byAccount.delete(accountId));
  return windows;
}

/** Forgets what this process read of an account's coverage (the worker moved it). */
export function forgetCoverage(db: Executor, accountId: number): void {
  coverageCache.get(db)?.delete(accountId);
  recordsCache.get(db)?.delete(accountId);
}

/**
 * How many records a window's correction spans were found to hold, per account and window, as
 * counted a moment ago (as long as the coverage is remembered), up to the window's bound
 * (correctionBound) and one more: the spans of requests moments apart differ by the records of
 * that moment, and the count is a read of up to the bound's index entries a span (a few
 * milliseconds while the window keeps up). A ranking so corrects at most the bound plus what is
 * stored within those seconds; a shorter memory would put the count into more requests of their own.
 */
const recordsCache = new WeakMap<Executor, Map<number, Map<number, { at: number; records: Promise<number> }>>>();

function recordsToCorrect(db: Executor, accountId: number, closest: ClosestWindow, bound: number): Promise<number> {
  let byAccount = recordsCache.get(db);
  if (!byAccount) {
    byAccount = new Map();
    recordsCache.set(db, byAccount);
  }
  let byWindow = byAccount.get(accountId);
  if (!byWindow) {
    byWindow = new Map();
    byAccount.set(accountId, byWindow);
  }
  const cached = byWindow.get(closest.windowId);
  if (cached && performance.now() - cached.at < coverageTtlMs) return cached.records;
  const records = recordsUpTo(db, accountId, closest.spans, bound);
  byWindow.set(closest.windowId, { at: performance.now(), records });
  records.catch(() => byWindow.delete(closest.windowId));
  return records;
}

/**
 * How a ranking or count of this filter and window is answered: `plan`, the totals that answer it,
 * when the filter counts what every total counts (repeatable records, at most one brand) and a
 * standard window is close to the requested one with at most its bound of records to correct
 * (correctionBound); otherwise the caller counts from the daily rollup. `lagging`: the totals miss
 * more than a cheap correction (`maxCorrectionRecords`) until the worker has folded it (a stop, a
 * burst of records), so the read, a large correction or the rollup, takes a catch-up turn
 * (catch-up-reads.ts).
 */
export interface TotalsChoice {
  plan: TotalsPlan | undefined;
  lagging: boolean;
}

export async function chooseTotals(db: Executor, filter: CompiledFilter, window: ResolvedWindow): Promise<TotalsChoice> {
  if (filter.totalsBrandId === undefined) return { plan: undefined, lagging: false };
  const closest = closestWindow(await cachedCoverage(db, filter.accountId), window);
  if (!closest) return { plan: undefined, lagging: false };
  // Totals serve while the records they miss are within the window's bound, however recent: a
  // burst of batch ingestion stores hundreds of thousands of records in a minute, and a week's
  // ranking that corrected them all took seconds (docs/performance.md, "Rankings after a burst of
  // batch ingestion"), more than its rollup; six months' rollup costs more than such a correction.
  const bound = correctionBound(closest.windowId);
  const records = await recordsToCorrect(db, filter.accountId, closest, bound);
  if (records > bound) return { plan: undefined, lagging: true };
  const windowId = closest.windowId;
  return {
    plan: { scope: { accountId: filter.accountId, windowId, brandId: filter.totalsBrandId, memberConditions: filter.member() }, window },
    lagging: records > maxCorrectionRecords,
  };
}

interface Scored {
  memberId: number;
  points: number;
}

/** Compares two rows in the walking order: `< 0` when `a` comes first. */
function comparator(order: TotalsOrder) {
  const points = order.points === 'DESC' ? -1 : 1;
  const ids = order.ids === 'DESC' ? -1 : 1;
  return (a: Scored, b: Scored) => (a.points - b.points) * points || (a.memberId - b.memberId) * ids;
}

/**
 * A ranked page and, when asked for with `count` and ranked from the kept totals, how many members
 * the ranking holds, read in the same statement as the page's edge members.
 */
export interface RankedPage {
  rows: ListedMember[];
  count?: () => Promise<number>;
}

export async function rankFromTotals(
  db: Executor,
  plan: TotalsPlan,
  direction: Direction,
  page: { limit: number; offset: number; keyset?: Keyset },
  reads?: MemberReads,
  options: { count?: boolean } = {},
): Promise<RankedPage> {
  // Walking backwards from a keyset reads the reverse order and flips the page afterwards.
  const backwards = page.keyset?.before ?? false;
  const reverse = (d: Direction): Direction => (d === 'ASC' ? 'DESC' : 'ASC');
  const order: TotalsOrder = backwards ? { points: reverse(direction), ids: 'DESC' } : { points: direction, ids: 'ASC' };
  const after = page.keyset ? { points: Number(page.keyset.key), memberId: page.keyset.id } : undefined;
  const compare = comparator(order);

  const wanted = page.offset + page.limit;
  const { edges, counted, read } = await rankedWithEdges(db, plan.scope, plan.window, order, after, wanted, options);
  const edgeIds = new Set(edges.map((edge) => edge.memberId));
  const candidates = [...read.filter((row) => !edgeIds.has(row.memberId)), ...edges.filter((edge) => edge.activityCount > 0 && (!after || compare(after, edge) < 0))].sort(compare);
  const rows = candidates.slice(page.offset, wanted);
  if (backwards) rows.reverse();
  // The page's members, with what its fields read, in one more statement.
  const ids = rows.map((row) => row.memberId);
  const found = new Map((ids.length ? await findMembersByIds(db, plan.scope.accountId, ids, reads) : []).map((member) => [member.id, member]));
  const listed = rows.flatMap((row) => {
    // A member deleted between the two statements is left out.
    const member = found.get(row.memberId);
    return member ? [{ member, score: { points: row.points, activityCount: row.activityCount } }] : [];
  });
  return { rows: listed, count: counted === undefined ? undefined : () => Promise.resolve(countWith(counted, edges)) };
}

/** Edge members active in the window: they count whatever their totals say. */
const activeEdges = (edges: readonly EdgeScore[]) => edges.filter((edge) => edge.activityCount > 0);

export async function countFromTotals(db: Executor, plan: TotalsPlan): Promise<number> {
  const { edges, counted } = await edgeScores(db, plan.scope, plan.window, { count: true });
  return countWith(counted!, edges);
}

/** The members a ranking holds: those the totals hold, with the edge members at their score in the window. */
function countWith(counted: number, edges: readonly EdgeScore[]): number {
  return counted - edges.filter((edge) => edge.inTotals).length + activeEdges(edges).length;
}

/** Members with more than `points` in the window, counted up to `cap`. */
export async function countAboveFromTotals(db: Executor, plan: TotalsPlan, points: number, cap: number): Promise<number> {
  const { edges } = await edgeScores(db, plan.scope, plan.window);
  const inTotals = edges.filter((edge) => edge.inTotals).map((edge) => edge.memberId);
  const others = await countTotalsAbove(db, plan.scope, points, inTotals, cap);
  return Math.min(cap, others + activeEdges(edges).filter((edge) => edge.points > points).length);
}

/** Members placed before the row in the ranking's order (`direction`, ties by id ascending), counted up to `cap`. */
export async function countBeforeFromTotals(db: Executor, plan: TotalsPlan, row: Scored, direction: Direction, cap: number): Promise<number> {
  const { edges } = await edgeScores(db, plan.scope, plan.window);
  const inTotals = edges.filter((edge) => edge.inTotals).map((edge) => edge.memberId);
  const others = await countTotalsBefore(db, plan.scope, row, direction, inTotals, cap);
  const compare = comparator({ points: direction, ids: 'ASC' });
  return Math.min(cap, others + activeEdges(edges).filter((edge) => compare(edge, row) < 0).length);
}
