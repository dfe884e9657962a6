import { describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/client.js';
import { AppError } from '../../src/core/errors.js';
import { RequestStatements } from '../../src/db/request-statements.js';
import { countRoundTrip, runCounted } from '../../src/db/roundtrips.js';
import { catchUpReadLoad, catchUpReadsPerAccount, catchUpReadsQueued, catchUpRead, sharedCatchUpRead } from '../../src/modules/scoring/catch-up-reads.js';

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
    expect(catchUpReadLoad(db, 1)).toEqual({ running: catchUpReadsPerAccount, waiting: 4 - catchUpReadsPerAccount, sharing: 0 });

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
    expect(catchUpReadLoad(db, 1)).toEqual({ running: 0, waiting: 0, sharing: 0 });
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
    expect(catchUpReadLoad(db, 7)).toEqual({ running: 0, waiting: 0, sharing: 0 });
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
    expect(catchUpReadLoad(db, 3)).toEqual({ running: 0, waiting: 0, sharing: 0 });
  });

  it('lets a waiting read go when its request is abandoned (its client left, or its deadline passed): it leaves the queue and never reads', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const { holders, held } = takeEveryTurn(db, 4, started);
    const request = new RequestStatements(0);
    const abandoned = heldRead(started, 'abandoned');
    const answer = runCounted({ count: 0, statements: request }, () => catchUpRead(db, lagging(4), abandoned.read));
    await settle();
    expect(catchUpReadLoad(db, 4)).toEqual({ running: catchUpReadsPerAccount, waiting: 1, sharing: 0 });
    request.abandon();
    await expect(answer).rejects.toMatchObject({ code: '57014' });
    expect(catchUpReadLoad(db, 4)).toEqual({ running: catchUpReadsPerAccount, waiting: 0, sharing: 0 });
    for (const holder of holders) holder.finish();
    await Promise.all(held);
    expect(started).not.toContain('abandoned');
    expect(catchUpReadLoad(db, 4)).toEqual({ running: 0, waiting: 0, sharing: 0 });
  });
});

/** A request's scope: its statements (abandoned when its client leaves) and its round-trip counter. */
function request() {
  const counter = { count: 0, statements: new RequestStatements(0) };
  return { counter, run: <T>(work: () => Promise<T>) => runCounted(counter, work) };
}

describe('catch-up reads shared by the requests that ask the same', () => {
  it('one read answers every request of a key that asked while it waited; a request after it started, or of another key, waits for a read of its own', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const { holders, held } = takeEveryTurn(db, 5, started);
    const first = heldRead(started, 'page 1');
    const other = heldRead(started, 'page 2');
    const reads = [first.read, first.read, other.read, first.read];
    const keys = ['page 1', 'page 1', 'page 2', 'page 1'];
    const answers = keys.map((key, index) => sharedCatchUpRead(db, { accountId: 5, window: week, key }, reads[index]));
    await settle();
    // Two reads wait, one for each key; four requests wait for them.
    expect(catchUpReadLoad(db, 5)).toEqual({ running: catchUpReadsPerAccount, waiting: 2, sharing: 4 });

    holders[0].finish();
    await settle();
    expect(started.slice(catchUpReadsPerAccount)).toEqual(['page 1']);
    // Started: a request asking page 1 now waits for the next read, which waits for this one to end
    // before it queues for a turn.
    const later = heldRead(started, 'page 1 again');
    const laterAnswer = sharedCatchUpRead(db, { accountId: 5, window: week, key: 'page 1' }, later.read);
    await settle();
    expect(catchUpReadLoad(db, 5)).toEqual({ running: catchUpReadsPerAccount, waiting: 1, sharing: 2 });
    first.finish();
    expect(await Promise.all([answers[0], answers[1], answers[3]])).toEqual(['page 1', 'page 1', 'page 1']);
    await settle();
    expect(started.slice(catchUpReadsPerAccount)).toEqual(['page 1', 'page 2']);
    other.finish();
    expect(await answers[2]).toBe('page 2');
    await settle();
    expect(started.slice(catchUpReadsPerAccount)).toEqual(['page 1', 'page 2', 'page 1 again']);
    later.finish();
    expect(await laterAnswer).toBe('page 1 again');
    holders[1].finish();
    await Promise.all(held);
    expect(catchUpReadLoad(db, 5)).toEqual({ running: 0, waiting: 0, sharing: 0 });
  });

  it('reads for the requests still waiting when one leaves; leaves the queue, never reading, once all have left; fails each with its error', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const { holders, held } = takeEveryTurn(db, 6, started);
    const [leaving, staying] = [request(), request()];
    const shared = heldRead(started, 'shared');
    const leavingAnswer = leaving.run(() => sharedCatchUpRead(db, { accountId: 6, window: week, key: 'k' }, shared.read));
    const stayingAnswer = staying.run(() => sharedCatchUpRead(db, { accountId: 6, window: week, key: 'k' }, shared.read));
    await settle();
    leaving.counter.statements.abandon();
    await expect(leavingAnswer).rejects.toMatchObject({ code: '57014' });
    expect(catchUpReadLoad(db, 6)).toEqual({ running: catchUpReadsPerAccount, waiting: 1, sharing: 1 });

    // Every request of a read leaves: it leaves the queue.
    const gone = [request(), request()];
    const abandoned = heldRead(started, 'abandoned');
    const goneAnswers = gone.map((one) => one.run(() => sharedCatchUpRead(db, { accountId: 6, window: week, key: 'gone' }, abandoned.read)));
    await settle();
    expect(catchUpReadLoad(db, 6)).toEqual({ running: catchUpReadsPerAccount, waiting: 2, sharing: 3 });
    for (const one of gone) one.counter.statements.abandon();
    for (const answer of goneAnswers) await expect(answer).rejects.toMatchObject({ code: '57014' });
    expect(catchUpReadLoad(db, 6)).toEqual({ running: catchUpReadsPerAccount, waiting: 1, sharing: 1 });

    holders[0].finish();
    await settle();
    shared.fail(new Error('statement timeout'));
    await expect(stayingAnswer).rejects.toThrow('statement timeout');
    holders[1].finish();
    await Promise.all(held);
    expect(started).toContain('shared');
    expect(started).not.toContain('abandoned');
    expect(catchUpReadLoad(db, 6)).toEqual({ running: 0, waiting: 0, sharing: 0 });
  });

  it('holds its turn for the catch-up reads within it, which take no second one, and charges each request its part of the statements', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const { holders, held } = takeEveryTurn(db, 8, started);
    const requests = [request(), request()];
    const inner = heldRead(started, 'inner');
    const answers = requests.map((one) =>
      one.run(() =>
        sharedCatchUpRead(db, { accountId: 8, window: week, key: 'k' }, async () => {
          // Two statements, then a ranking's own catch-up read.
          countRoundTrip();
          countRoundTrip();
          return catchUpRead(db, lagging(8), inner.read);
        }),
      ),
    );
    await settle();
    holders[0].finish();
    await settle();
    // The other turn is still held, and the inner read runs all the same.
    expect(started).toContain('inner');
    expect(catchUpReadLoad(db, 8)).toEqual({ running: catchUpReadsPerAccount, waiting: 0, sharing: 0 });
    inner.finish();
    expect(await Promise.all(answers)).toEqual(['inner', 'inner']);
    expect(requests.map((one) => one.counter.count)).toEqual([1, 1]);
    holders[1].finish();
    await Promise.all(held);
  });
});

describe('a key read again', () => {
  it('waits for the read of the key running, even with a turn free, then reads at once', async () => {
    const db = {} as Executor;
    const started: string[] = [];
    const first = heldRead(started, 'first');
    const second = heldRead(started, 'second');
    const firstAnswer = sharedCatchUpRead(db, { accountId: 9, window: week, key: 'k' }, first.read);
    await settle();
    const secondAnswer = sharedCatchUpRead(db, { accountId: 9, window: week, key: 'k' }, second.read);
    await settle();
    expect(started).toEqual(['first']);
    expect(catchUpReadLoad(db, 9)).toEqual({ running: 1, waiting: 0, sharing: 1 });
    first.finish();
    expect(await firstAnswer).toBe('first');
    await settle();
    expect(started).toEqual(['first', 'second']);
    second.finish();
    expect(await secondAnswer).toBe('second');
    expect(catchUpReadLoad(db, 9)).toEqual({ running: 0, waiting: 0, sharing: 0 });
  });
});
