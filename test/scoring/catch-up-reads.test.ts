import { describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/client.js';
import { AppError } from '../../src/core/errors.js';
import { RequestStatements } from '../../src/db/request-statements.js';
import { runCounted } from '../../src/db/roundtrips.js';
import { catchUpReadLoad, catchUpReadsPerAccount, catchUpReadsQueued, catchUpRead } from '../../src/modules/scoring/catch-up-reads.js';

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

const day = 86_400_000;
/** A window of `days` ending now. */
const lastDays = (days: number) => ({ start: new Date(Date.now() - days * day), end: new Date() });
const week = lastDays(7);
/** A lagging read of account `accountId` over a week. */
const lagging = (accountId: number, window = week) => ({ accountId, lagging: true, window });

/** Held reads of a week that take every catch-up turn of the account, and their answers. */
function takeEveryTurn(db: Executor, accountId: number, started: string[]) {
  const holders = Array.from({ length: catchUpReadsPerAccount }, (_, index) => heldRead(started, `holder ${index}`));
  return { holders, held: holders.map((holder) => catchUpRead(db, lagging(accountId), holder.read)) };
}

/** Lets every settled promise's continuations run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('rollup reads while a window catches up', () => {
  it('run at most catchUpReadsPerAccount of an account at once, the others in arrival order; reads of windows not lagging, and other accounts, never wait', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const reads = ['a', 'b', 'c', 'd'].map((name) => heldRead(started, name));
    const answers = reads.map((read) => catchUpRead(db, lagging(1), read.read));
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd'].slice(0, catchUpReadsPerAccount));
    expect(catchUpReadLoad(db, 1)).toEqual({ running: catchUpReadsPerAccount, waiting: 4 - catchUpReadsPerAccount });

    // Not lagging, or another account's: at once.
    const free = heldRead(started, 'free');
    const freeAnswer = catchUpRead(db, { accountId: 1, lagging: false, window: week }, free.read);
    const other = heldRead(started, 'other account');
    const otherAnswer = catchUpRead(db, lagging(2), other.read);
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
    const answers = held.map((read) => catchUpRead(db, lagging(7), read.read));
    await settle();
    const refused = heldRead(started, 'refused');
    const error = await catchUpRead(db, lagging(7), refused.read).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).extensions.code).toBe('RATE_LIMITED');
    expect(started).not.toContain('refused');
    for (const read of held) read.finish();
    await Promise.all(answers);
    expect(catchUpReadLoad(db, 7)).toEqual({ running: 0, waiting: 0 });
  });

  it('gives a free turn to the shortest window waiting, then to the earliest of equal windows', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const { holders, held } = takeEveryTurn(db, 3, started);
    const queued = [
      { name: 'six months', window: lastDays(182) },
      { name: 'first week', window: week },
      { name: 'month', window: lastDays(30) },
      { name: 'second week', window: week },
    ].map(({ name, window }) => ({ name, ...heldRead(started, name), window }));
    const answers = queued.map((read) => catchUpRead(db, lagging(3, read.window), read.read));
    await settle();
    expect(catchUpReadLoad(db, 3).waiting).toBe(queued.length);

    // Each finished read hands its turn to the next waiter in the order of their windows' lengths.
    for (const finished of [...holders, ...queued]) {
      finished.finish();
      await settle();
    }
    expect(started.slice(catchUpReadsPerAccount)).toEqual(['first week', 'second week', 'month', 'six months']);
    expect(await Promise.all(answers)).toEqual(queued.map((read) => read.name));
    await Promise.all(held);
    expect(catchUpReadLoad(db, 3)).toEqual({ running: 0, waiting: 0 });
  });

  it('lets a waiting read go when its request is abandoned (its client left, or its deadline passed): it leaves the queue and never reads', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const { holders, held } = takeEveryTurn(db, 4, started);
    const request = new RequestStatements(0);
    const abandoned = heldRead(started, 'abandoned');
    const answer = runCounted({ count: 0, statements: request }, () => catchUpRead(db, lagging(4), abandoned.read));
    await settle();
    expect(catchUpReadLoad(db, 4)).toEqual({ running: catchUpReadsPerAccount, waiting: 1 });
    request.abandon();
    await expect(answer).rejects.toMatchObject({ code: '57014' });
    expect(catchUpReadLoad(db, 4)).toEqual({ running: catchUpReadsPerAccount, waiting: 0 });
    for (const holder of holders) holder.finish();
    await Promise.all(held);
    expect(started).not.toContain('abandoned');
    expect(catchUpReadLoad(db, 4)).toEqual({ running: 0, waiting: 0 });
  });
});
