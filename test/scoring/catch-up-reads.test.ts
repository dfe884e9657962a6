import { describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/client.js';
import { AppError } from '../../src/core/errors.js';
import { catchUpReadLoad, catchUpReadsPerAccount, catchUpReadsQueued, readRollup } from '../../src/modules/scoring/catch-up-reads.js';

/** A read that ends when the test says so, and tells when it started. */
function heldRead(log: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => ((finish = resolve), (fail = reject)));
  const read = () => {
    log.push(name);
    return done;
  };
  return { read, finish: () => finish(name), fail: (error: Error) => fail(error) };
}

/** Lets every settled promise's continuations run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('rollup reads while a window catches up', () => {
  it('run at most catchUpReadsPerAccount of an account at once, the others in arrival order; reads of windows not lagging, and other accounts, never wait', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const reads = ['a', 'b', 'c', 'd'].map((name) => heldRead(started, name));
    const answers = reads.map((read) => readRollup(db, 1, true, read.read));
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd'].slice(0, catchUpReadsPerAccount));
    expect(catchUpReadLoad(db, 1)).toEqual({ running: catchUpReadsPerAccount, waiting: 4 - catchUpReadsPerAccount });

    // Not lagging, or another account's: at once.
    const free = heldRead(started, 'free');
    const freeAnswer = readRollup(db, 1, false, free.read);
    const other = heldRead(started, 'other account');
    const otherAnswer = readRollup(db, 2, true, other.read);
    await settle();
    expect(started.slice(-2)).toEqual(['free', 'other account']);
    free.finish();
    other.finish();
    expect([await freeAnswer, await otherAnswer]).toEqual(['free', 'other account']);

    // A read that fails gives its turn back, and its caller has the error.
    reads[0].fail(new Error('statement timeout'));
    await expect(answers[0]).rejects.toThrow('statement timeout');
    await settle();
    expect(started).toContain('c');
    expect(started).not.toContain('d');
    reads[1].finish();
    await settle();
    expect(started).toContain('d');
    reads[2].finish();
    reads[3].finish();
    expect(await Promise.all(answers.slice(1))).toEqual(['b', 'c', 'd']);
    expect(catchUpReadLoad(db, 1)).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses with RATE_LIMITED, reading nothing, once catchUpReadsQueued readers wait', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const held = Array.from({ length: catchUpReadsPerAccount + catchUpReadsQueued }, (_, index) => heldRead(started, String(index)));
    const answers = held.map((read) => readRollup(db, 7, true, read.read));
    await settle();
    const refused = heldRead(started, 'refused');
    const error = await readRollup(db, 7, true, refused.read).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).extensions.code).toBe('RATE_LIMITED');
    expect(started).not.toContain('refused');
    for (const read of held) read.finish();
    await Promise.all(answers);
    expect(catchUpReadLoad(db, 7)).toEqual({ running: 0, waiting: 0 });
  });
});
