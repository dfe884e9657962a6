import { KeyGate } from './key-gate.js';
import type { CancellableStatement, RequestStatements } from './request-statements.js';

/**
 * The connections of one PostgreSQL pool that one account's requests may hold at once. A statement
 * sent outside a transaction holds a connection from when postgres.js is handed it until it
 * settles, and a transaction for as long as it is open (db/client.ts counts them so for /metrics);
 * a request's statements count against its owner (RequestStatements.owner, its caller's account).
 * Past the share, the owner's next statement or transaction waits, in arrival order, for one of its
 * own to settle: one account running 30-second statements (a feed filtered by emails on tables
 * never analysed) held all ten connections, and another tenant's read waited 30 s behind them.
 * With a share of half the pool, the other half stays for everyone else.
 *
 * The wait is part of the statement's time (STATEMENT_TIMEOUT_MS counts from when it is created),
 * and a statement cancelled or abandoned while it waits leaves the queue without being sent. Work
 * no request owns (the workers, a batch shared by several requests) is not counted. A request
 * with a transaction open sends its other statements without waiting, since the transaction holds
 * a share already. The embedded database is a single connection taken in turn: none of this
 * applies there (http/request-slots.ts bounds what a key holds of it).
 */
export class ConnectionShares {
  private readonly gate: KeyGate;

  constructor(readonly share: number) {
    // Waiters are bounded by the requests an account may have running (REQUESTS_PER_ACCOUNT).
    this.gate = new KeyGate({ concurrent: share, queued: Number.MAX_SAFE_INTEGER });
  }

  /**
   * Makes `statement` (not sent yet) wait for one of its owner's connections before it is sent,
   * and give it back once it settles.
   */
  gateStatement(statement: CancellableStatement, request: RequestStatements | undefined): void {
    const owner = request?.owner;
    if (!owner || request.transactions > 0) return;
    const send = statement.handler;
    const { resolve, reject } = statement;
    let settled = false;
    let release: (() => void) | undefined;
    // Only a statement that has to wait makes an abort signal: aborting one builds a DOMException
    // with its stack, which cost 3 % of a member show's CPU when every statement made one.
    let leave: AbortController | undefined;
    const settle = () => {
      settled = true;
      if (release) release();
      else leave?.abort();
    };
    statement.resolve = (value) => (settle(), resolve(value));
    statement.reject = (error) => (settle(), reject(error));
    statement.handler = (query: never) => {
      release = this.gate.tryAcquire(owner);
      if (release) return send(query);
      leave = new AbortController();
      this.gate.acquire(owner, { signal: leave.signal }).then(
        (given) => {
          release = given;
          // Cancelled or refused while it waited (postgres.js rejects a statement not yet sent in place).
          if (settled) return given();
          send(query);
        },
        () => {}, // left the queue: the statement has settled already
      );
    };
  }

  /** Runs `open` (a transaction's `begin`) once one of the owner's connections is free, holding it until the transaction ends. */
  async gateTransaction<T>(request: RequestStatements | undefined, open: () => Promise<T>): Promise<T> {
    const owner = request?.owner;
    if (!owner || request.transactions > 0) return open();
    const release = await this.gate.acquire(owner, { signal: request.signal });
    request.transactions += 1;
    try {
      return await open();
    } finally {
      request.transactions -= 1;
      release();
    }
  }

  /** The connections `owner` holds and waits for now. */
  load(owner: string): { running: number; waiting: number } {
    return this.gate.load(owner);
  }
}
