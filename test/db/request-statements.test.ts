import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isClientGone } from '../../src/db/errors.js';
import { cancelAfterRunningMs, RequestStatements, type CancellableStatement } from '../../src/db/request-statements.js';

/** A statement as postgres.js hands it over: counts its cancels, settles when told. */
function statement() {
  const fake = {
    cancels: 0,
    settled: undefined as unknown,
    cancel() {
      fake.cancels += 1;
    },
    resolve: (value: unknown) => (fake.settled = value),
    reject: (error: unknown) => (fake.settled = error),
    handler: () => undefined,
  };
  return fake satisfies CancellableStatement;
}

describe('a request whose client went away', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('cancels a statement that has run long enough at once', () => {
    const statements = new RequestStatements(0);
    const running = statements.track(statement());
    vi.advanceTimersByTime(cancelAfterRunningMs);
    statements.abandon();
    expect(running.cancels).toBe(1);
  });

  it('never cancels a young statement that finishes first: the cancel could land on the next statement of its connection', () => {
    const statements = new RequestStatements(0);
    const young = statements.track(statement());
    statements.abandon();
    expect(young.cancels).toBe(0);
    young.resolve([{ count: 1 }]);
    vi.advanceTimersByTime(cancelAfterRunningMs * 4);
    expect(young.cancels).toBe(0);
    expect(young.settled).toEqual([{ count: 1 }]);
  });

  it('cancels a young statement once it reaches the age, when it is still running', () => {
    const statements = new RequestStatements(0);
    const young = statements.track(statement());
    statements.abandon();
    vi.advanceTimersByTime(cancelAfterRunningMs - 1);
    expect(young.cancels).toBe(0);
    vi.advanceTimersByTime(1);
    expect(young.cancels).toBe(1);
  });

  it('refuses, unsent, what the request sends afterwards, marked as its client gone', () => {
    const statements = new RequestStatements(0);
    statements.abandon();
    const late = statements.track(statement());
    late.handler();
    expect(isClientGone(late.settled)).toBe(true);
  });
});

describe('a statement sent behind another on its connection', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** Sent to a connection (postgres.js sets `state`) that has not started reading its answer. */
  const queued = () => Object.assign(statement(), { state: { pid: 1 }, active: false });

  it("is cancelled only once it starts: postgres.js gave the cancelled one's answer to the statement after it", () => {
    const statements = new RequestStatements(100);
    const waiting = statements.track(queued());
    vi.advanceTimersByTime(500);
    expect(waiting.cancels).toBe(0);
    waiting.active = true;
    vi.advanceTimersByTime(20);
    expect(waiting.cancels).toBe(1);
  });

  it('is never cancelled when it finishes while its request is abandoned', () => {
    const statements = new RequestStatements(0);
    const waiting = statements.track(queued());
    vi.advanceTimersByTime(cancelAfterRunningMs);
    statements.abandon();
    vi.advanceTimersByTime(cancelAfterRunningMs * 2);
    expect(waiting.cancels).toBe(0);
    waiting.active = true;
    waiting.resolve([]);
    vi.advanceTimersByTime(cancelAfterRunningMs * 2);
    expect(waiting.cancels).toBe(0);
  });
});
