import { clientGoneMark } from './errors.js';
/**
 * The statements a request has running on PostgreSQL, so that none outlives its purpose: each is
 * cancelled when it runs longer than the statement timeout (STATEMENT_TIMEOUT_MS), and all of them
 * are when the request's client goes away before its answer (http/server.ts calls `abandon`). The
 * request's scope (db/roundtrips.ts: the counter the HTTP layer opens per request) carries them;
 * db/client.ts registers every statement sent through the pool while a scope is current.
 *
 * The timeout is the request's, kept by the gateway rather than the server's `statement_timeout`:
 * the pool's connections are shared with the background workers, whose passes have a budget of
 * their own. A statement's time counts from when it is handed to the pool, so a wait for a free
 * connection is part of it. The embedded database (PGlite) runs in the process and cannot cancel a
 * statement: there neither the timeout nor the cancellation applies.
 */

/** What a running statement offers (postgres.js's Query): cancel, and the settlement it is waited on by. */
export interface CancellableStatement {
  cancel(): unknown;
  resolve: (value: unknown) => unknown;
  reject: (error: unknown) => unknown;
  /** Runs the statement; replaced for a statement of an abandoned request, which is refused without being sent. */
  handler: (statement: never) => unknown;
  /** What `cancel` calls (postgres.js): it answers a promise, which `cancel` drops, settled once the cancel request was sent. */
  canceller?: ((statement: never) => unknown) | null;
  /** postgres.js: the connection's backend once the statement was sent to it. */
  state?: unknown;
  /** postgres.js: whether the connection has started reading the statement's answer. */
  active?: boolean;
}

/**
 * Cancels the statement. A cancel request goes over a connection of its own, which may fail (the
 * database unreachable): postgres.js's `cancel()` drops that promise, and its failure would be an
 * unhandled rejection, so the canceller is called here and its failure ignored (the statement
 * then fails or ends on its own).
 */
function sendCancel(statement: CancellableStatement): void {
  const { canceller } = statement;
  if (typeof canceller !== 'function') {
    statement.cancel();
    return;
  }
  statement.canceller = null;
  const sent = canceller(statement as never);
  if (sent instanceof Promise) sent.catch(() => {});
}

/** The error a statement of an abandoned request fails with, as PostgreSQL's own cancellation (SQLSTATE 57014). */
function abandonedError(): Error {
  return Object.assign(new Error('canceling statement: the client went away'), { code: '57014', [clientGoneMark]: true });
}

/**
 * How often a statement sent behind another on its connection is looked at again, until it starts
 * and can be cancelled (RequestStatements.cancel).
 */
const queuedRecheckMs = 20;

/**
 * How long a statement must have run before a departed client's cancel is sent for it. PostgreSQL's
 * cancel names a backend, not a statement, and travels on a connection of its own: sent for a
 * statement about to finish, it can land on the next statement that backend runs, another
 * request's, pipelined behind it. A statement this old is unlikely to finish in the moment the
 * cancel takes; a younger one is cancelled when it reaches this age, unless it has finished by then.
 */
export const cancelAfterRunningMs = 250;

export class RequestStatements {
  private readonly running = new Map<CancellableStatement, { timer?: NodeJS.Timeout; startedAt: number }>();
  private abandoned = false;
  private readonly abandonment = new AbortController();
  /**
   * Whose share of the pool the request's statements count against (db/connection-shares.ts): its
   * caller's account, set once the caller is known; unset, they are no one's (unbounded).
   */
  owner?: string;
  /**
   * Transactions of the request holding a connection now: a statement the request sends outside
   * them meanwhile is not made to wait for its owner's share, which the transaction already holds
   * (it would wait for itself when the share is one).
   */
  transactions = 0;

  /** `timeoutMs` 0: no timeout. Work shared by several requests runs under statements of its own with the same timeout. */
  constructor(readonly timeoutMs: number) {}

  /** How many statements of the request are running now. */
  get size(): number {
    return this.running.size;
  }

  /** Registers a statement as it is created, before it is sent; it leaves the set when it settles. */
  track<T extends CancellableStatement>(statement: T): T {
    if (this.abandoned) {
      statement.handler = () => statement.reject(abandonedError());
      return statement;
    }
    const timer = this.timeoutMs > 0 ? setTimeout(() => this.cancel(statement), this.timeoutMs) : undefined;
    timer?.unref();
    this.running.set(statement, { timer, startedAt: Date.now() });
    const settle = () => {
      clearTimeout(this.running.get(statement)?.timer);
      this.running.delete(statement);
    };
    const { resolve, reject } = statement;
    statement.resolve = (value) => (settle(), resolve(value));
    // A statement cancelled because its client left fails with PostgreSQL's own cancellation: marked,
    // so it is not mistaken for a timeout or logged as a failure (core/errors.ts).
    statement.reject = (error) => (settle(), reject(this.abandoned ? markClientGone(error) : error));
    return statement;
  }

  /**
   * Aborted when the request is abandoned, with the error its statements then fail with: for what
   * the request waits on besides statements (a turn in a queue), so that it stops waiting.
   */
  get signal(): AbortSignal {
    return this.abandonment.signal;
  }

  /** The client went away: cancels what runs, and refuses what the request still sends. */
  abandon(): void {
    if (this.abandoned) return;
    this.abandoned = true;
    this.abandonment.abort(abandonedError());
    const now = Date.now();
    for (const [statement, state] of this.running) {
      clearTimeout(state.timer);
      const wait = cancelAfterRunningMs - (now - state.startedAt);
      if (wait <= 0) {
        this.cancel(statement);
        continue;
      }
      // Cleared when the statement settles first (settle), so a finished statement is never cancelled.
      state.timer = setTimeout(() => this.cancel(statement), wait);
      state.timer.unref();
    }
  }

  /**
   * Cancels a statement still running. One sent to a connection behind another (pipelined) and not
   * started yet is left until it starts: postgres.js (3.4.9) marks such a statement cancelled and,
   * when its turn comes, sends the cancel and moves on to the statement after it while the server
   * still answers the cancelled one, so the next statement took the cancelled one's rows (another
   * request's) and the cancelled one never settled (test/db/cancel-queued.test.ts). The pools keep
   * the driver's pipelining: limiting it breaks the driver's transactions (a `begin` sent behind
   * another statement then never reserves its connection).
   */
  private cancel(statement: CancellableStatement): void {
    const state = this.running.get(statement);
    if (!state) return;
    if (statement.state && !statement.active) {
      state.timer = setTimeout(() => this.cancel(statement), queuedRecheckMs);
      state.timer.unref();
      return;
    }
    sendCancel(statement);
  }
}

function markClientGone(error: unknown): unknown {
  if (error && typeof error === 'object') Object.assign(error, { [clientGoneMark]: true });
  return error;
}
