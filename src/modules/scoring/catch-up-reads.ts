import type { Executor } from '../../db/client.js';
import { currentRequestStatements } from '../../db/roundtrips.js';
import type { ResolvedWindow } from '../../filters/window.js';
import { AppError } from '../../core/errors.js';
import { KeyGate, KeyGateFull } from '../../lib/key-gate.js';

/**
 * Reads that stand in for a cheap read of a standard window's kept totals while the worker folds
 * what the totals miss (after a stop, or a burst of batch ingestion; score-windows.ranking.ts
 * decides): a read of the daily rollup, or a correction of more than `maxCorrectionRecords`
 * records. At most this many of an account's run at once in a gateway, the others wait their turn.
 *
 * Each such read takes seconds (every rollup row of the window summed per member, or the records
 * the totals miss), and every ranking of the window takes one until the fold has caught up. The
 * fold is one session: under ten such reads at once it had a small share of the two cores and
 * folded 1,300 records a second, and the cliff lasted minutes (docs/performance.md, "Rankings
 * after a burst of batch ingestion"; with the turns, its "second round": less than half as long).
 * Waiting their turn, the readers leave the fold the CPU that ends the cliff, and the rankings
 * answer from the totals again sooner; the answers are the same.
 *
 * Shorter windows take their turn first. A read's cost grows with its window's days of rollup
 * (at large scale, alone: one week 0.5–0.7 s, six months 8 s), and in arrival order a week's
 * reads waited behind six months' until the client gave up: for the first 40 s after a day's stop
 * no ranking answered at all (docs/performance.md, "Recovery after a stop, fifth round"). A longer
 * window waits no longer than the catch-up takes: the worker folds the week first, and once a
 * window's totals answer, its rankings take no turn (six months' corrections so wait until the
 * week is folded: "Recovery after a stop, sixth round"). Meanwhile its waiters may outlast their
 * clients; a waiter whose request is abandoned (its client left, its deadline passed) leaves the
 * queue, so the departed cannot fill it for the live.
 */
export const catchUpReadsPerAccount = 2;

/** Readers of an account waiting their turn beyond which a ranking is refused (RATE_LIMITED): a bound on what waits in memory. */
export const catchUpReadsQueued = 256;

/** One gate per database handle, so test databases in one process do not share turns. */
const gates = new WeakMap<Executor, KeyGate>();

function gateOf(db: Executor): KeyGate {
  let gate = gates.get(db);
  if (!gate) {
    gate = new KeyGate({ concurrent: catchUpReadsPerAccount, queued: catchUpReadsQueued });
    gates.set(db, gate);
  }
  return gate;
}

/**
 * Runs `read` (of the daily rollup, or a large correction of the totals, over `window`) at once, or,
 * when `lagging` (a standard window's totals would answer it cheaply once folded), in one of the
 * account's catch-up turns.
 */
export async function catchUpRead<T>(db: Executor, { accountId, lagging, window }: { accountId: number; lagging: boolean; window: ResolvedWindow }, read: () => Promise<T>): Promise<T> {
  if (!lagging) return read();
  let release: () => void;
  try {
    release = await gateOf(db).acquire(String(accountId), {
      priority: window.end.getTime() - window.start.getTime(),
      signal: currentRequestStatements()?.signal,
    });
  } catch (error) {
    if (!(error instanceof KeyGateFull)) throw error;
    throw new AppError('RATE_LIMITED', 'Rankings of this window are catching up (after a pause or a burst of records) and too many wait now; retry in a second.');
  }
  try {
    return await read();
  } finally {
    release();
  }
}

/** The account's catch-up reads running and waiting now (tests, diagnostics). */
export function catchUpReadLoad(db: Executor, accountId: number): { running: number; waiting: number } {
  return gates.get(db)?.load(String(accountId)) ?? { running: 0, waiting: 0 };
}
