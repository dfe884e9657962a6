import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestStatements } from './request-statements.js';

/**
 * Counts SQL statements sent to the database, per request and in total. Every statement goes
 * through Drizzle's logger, so the count is exact; tests and the benchmark read it to prove that a
 * page of N members costs a fixed number of round trips.
 */
export interface RoundTripCounter {
  count: number;
  /**
   * The request's running statements (db/request-statements.ts), timed out and cancelled with it.
   * Absent for work that is no one request's (a batch settled for several, the workers).
   */
  statements?: RequestStatements;
}

const scope = new AsyncLocalStorage<RoundTripCounter>();
let total = 0;

export function countRoundTrip(): void {
  total += 1;
  const counter = scope.getStore();
  if (counter) counter.count += 1;
}

/** Runs `work` with a fresh counter and returns its result with the number of statements it sent. */
export async function withRoundTripCount<T>(work: () => Promise<T>): Promise<{ result: T; roundTrips: number }> {
  const counter: RoundTripCounter = { count: 0 };
  const result = await scope.run(counter, work);
  return { result, roundTrips: counter.count };
}

/** The counter of the request the caller works for, if any (work shared by requests charges each its part). */
export function currentRoundTripCounter(): RoundTripCounter | undefined {
  return scope.getStore();
}

/** Runs `work` inside an existing counter (the HTTP layer opens one per request). */
export function runCounted<T>(counter: RoundTripCounter, work: () => T): T {
  return scope.run(counter, work);
}

/**
 * Runs `work` as no request's: work a request starts but that outlives it (a background job, a
 * worker's pass it woke up) is neither counted as the request's nor timed out or cancelled with it.
 */
export function outsideRequest<T>(work: () => T): T {
  return scope.exit(work);
}

/** The running statements of the request the caller works for, if any. */
export function currentRequestStatements(): RequestStatements | undefined {
  return scope.getStore()?.statements;
}

export function totalRoundTrips(): number {
  return total;
}
