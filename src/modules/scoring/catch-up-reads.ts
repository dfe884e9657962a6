import { AsyncLocalStorage } from 'node:async_hooks';
import type { Executor } from '../../db/client.js';
import { RequestStatements } from '../../db/request-statements.js';
import { currentRequestStatements, currentRoundTripCounter, runCounted, type RoundTripCounter } from '../../db/roundtrips.js';
import type { ResolvedWindow } from '../../filters/window.js';
import { rateLimited } from '../../core/errors.js';
import { KeyGate, KeyGateFull } from '../../db/key-gate.js';

/**
 * Reads that stand in for a cheap read of a standard window's kept totals while the worker folds
 * what the totals miss (after a stop, or a burst of batch ingestion; score-windows.ranking.ts
 * decides): a read of the daily rollup, or a correction of more than `maxCorrectionRecords`
 * records. At most this many of an account's run at once in a gateway, the others wait their turn.
 *
 * Each such read takes seconds (every rollup row of the window summed per member, or the records
 * the totals miss), and every ranking of the window takes one until the fold has caught up. The
 * fold is one session: under ten such reads at once it had a small share of the two cores and
 * folded 1,300 records a second, and the cliff lasted minutes (bench/results/HISTORY.md, "Rankings
 * after a burst of batch ingestion"; with the turns, "Rankings after a burst, second round": less than
 * half as long).
 * Waiting their turn, the readers leave the fold the CPU that ends the cliff, and the rankings
 * answer from the totals again sooner; the answers are the same.
 *
 * Shorter windows take their turn first. A read's cost grows with its window's days of rollup
 * (at large scale, alone: one week 0.5–0.7 s, six months 8 s), and in arrival order a week's
 * reads waited behind six months' until the client gave up: for the first 40 s after a day's stop
 * no ranking answered at all (bench/results/HISTORY.md, "Recovery after a stop, fifth round"). A longer
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
  if (!lagging || holdsTurn(db, accountId)) return read();
  const release = await takeTurn(db, accountId, window, currentRequestStatements()?.signal);
  try {
    return await read();
  } finally {
    release();
  }
}

/** Waits for one of the account's turns, the shortest window first; RATE_LIMITED when too many wait. */
async function takeTurn(db: Executor, accountId: number, window: ResolvedWindow, signal: AbortSignal | undefined): Promise<() => void> {
  try {
    return await gateOf(db).acquire(String(accountId), { priority: window.end.getTime() - window.start.getTime(), signal });
  } catch (error) {
    if (!(error instanceof KeyGateFull)) throw error;
    throw rateLimited('Rankings of this window are catching up (after a pause or a burst of records) and too many wait now; retry in a second.', 1);
  }
}

/** The account whose turn the work running now holds (a shared read's): the catch-up reads within it take no second turn. */
const heldTurn = new AsyncLocalStorage<{ db: Executor; accountId: number }>();

function holdsTurn(db: Executor, accountId: number): boolean {
  const held = heldTurn.getStore();
  return held !== undefined && held.db === db && held.accountId === accountId;
}

/** A shared read, and the requests waiting for its answer. */
interface SharedRead {
  answer: Promise<unknown>;
  /** Requests still waiting for the answer; none left aborts `abandoned`. */
  live: number;
  abandoned: AbortController;
  /** The round-trip counters of the requests that share it: each is charged its part of the read's statements. */
  sharers: RoundTripCounter[];
}

/** An account's shared reads, by what they read: those still joinable (not started) and those running. */
interface AccountReads {
  joinable: Map<string, SharedRead>;
  running: Map<string, SharedRead>;
}

/** Per database handle and account; an account is forgotten once it has no shared read. */
const sharedReads = new WeakMap<Executor, Map<number, AccountReads>>();

function sharedReadsOf(db: Executor, accountId: number): AccountReads {
  let byAccount = sharedReads.get(db);
  if (!byAccount) sharedReads.set(db, (byAccount = new Map<number, AccountReads>()));
  let reads = byAccount.get(accountId);
  if (!reads) byAccount.set(accountId, (reads = { joinable: new Map(), running: new Map() }));
  return reads;
}

function forgetIfIdle(db: Executor, accountId: number, reads: AccountReads): void {
  const byAccount = sharedReads.get(db);
  if (!reads.joinable.size && !reads.running.size && byAccount?.get(accountId) === reads) byAccount.delete(accountId);
}

/**
 * A catch-up read (a lagging ranking: see catchUpRead) that the requests asking the same `key` of
 * the account share until it starts. `key` names everything the answer depends on but the moment
 * it is read: the filter, window and page as the caller wrote them, and what the page reads.
 * `read` resolves the window when it starts, so the answer counts every record stored before any
 * of its requests asked, as a read of its own would; a request that asks once it has started
 * waits for the next read of the key, which starts when this one ends (a key reads one at a time).
 *
 * Why: while a window catches up, its rankings take seconds each and the account's turns are few,
 * so the requests that ask for the same page (a leaderboard opened by many fans at once) queued one
 * behind another, and most waited longer than their clients would; with the shortest window's
 * turns first, a week's page asked without pause took every turn and six months' none. Shared, a
 * page costs one read at a time however many ask for it, and the other turn is left for the other
 * windows' rankings (bench/results/HISTORY.md, "Recovery after a stop, seventh round").
 *
 * The read is no one request's: its statements run under statements of their own (timed out as a
 * request's are), cancelled once every request waiting for it has gone, and it leaves the queue
 * then if it has not started. Each request is charged its part of the statements.
 */
export function sharedCatchUpRead<T>(db: Executor, { accountId, window, key }: { accountId: number; window: ResolvedWindow; key: string }, read: () => Promise<T>): Promise<T> {
  const statements = currentRequestStatements();
  statements?.signal.throwIfAborted();
  const reads = sharedReadsOf(db, accountId);
  let shared = reads.joinable.get(key);
  if (!shared) {
    const created: SharedRead = { answer: Promise.resolve(), live: 0, abandoned: new AbortController(), sharers: [] };
    const before = reads.running.get(key)?.answer;
    created.answer = (async () => {
      // One read of a key at a time: the next waits for the one running, then for a turn.
      await before?.catch(() => {});
      let release: () => void;
      try {
        created.abandoned.signal.throwIfAborted();
        release = await takeTurn(db, accountId, window, created.abandoned.signal);
      } catch (error) {
        if (reads.joinable.get(key) === created) reads.joinable.delete(key);
        forgetIfIdle(db, accountId, reads);
        throw error;
      }
      // Started: a request that asks from now on waits for the next read.
      if (reads.joinable.get(key) === created) reads.joinable.delete(key);
      reads.running.set(key, created);
      try {
        return await runShared(db, accountId, created, statements?.timeoutMs ?? 0, read);
      } finally {
        release();
        if (reads.running.get(key) === created) reads.running.delete(key);
        forgetIfIdle(db, accountId, reads);
      }
    })();
    // Its requests each see its outcome; once all have gone, no one does.
    created.answer.catch(() => {});
    reads.joinable.set(key, (shared = created));
  }
  return joinShared(shared, statements?.signal) as Promise<T>;
}

/** Runs a shared read in its turn, under statements of its own, charging its requests their part. */
async function runShared<T>(db: Executor, accountId: number, shared: SharedRead, timeoutMs: number, read: () => Promise<T>): Promise<T> {
  const statements = new RequestStatements(timeoutMs);
  shared.abandoned.signal.addEventListener('abort', () => statements.abandon(), { once: true });
  const counter: RoundTripCounter = { count: 0, statements };
  try {
    return await runCounted(counter, () => heldTurn.run({ db, accountId }, read));
  } finally {
    for (const sharer of shared.sharers) sharer.count += counter.count / shared.sharers.length;
  }
}

/** The shared read's answer for one more request, which stops waiting for it when abandoned. */
function joinShared(shared: SharedRead, signal: AbortSignal | undefined): Promise<unknown> {
  shared.live += 1;
  const counter = currentRoundTripCounter();
  if (counter) shared.sharers.push(counter);
  return new Promise((resolve, reject) => {
    const leave = () => {
      shared.live -= 1;
      if (shared.live === 0) shared.abandoned.abort(signal?.reason);
    };
    const onAbort = () => {
      leave();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    shared.answer.then(
      (value) => (signal?.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal?.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}

/** The account's catch-up reads running and waiting now (a shared read counts once), and the requests waiting for shared reads not started yet (tests, diagnostics). */
export function catchUpReadLoad(db: Executor, accountId: number): { running: number; waiting: number; sharing: number } {
  const { running, waiting } = gates.get(db)?.load(String(accountId)) ?? { running: 0, waiting: 0 };
  let sharing = 0;
  for (const shared of sharedReads.get(db)?.get(accountId)?.joinable.values() ?? []) sharing += shared.live;
  return { running, waiting, sharing };
}
