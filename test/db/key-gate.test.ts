import { describe, expect, it } from 'vitest';
import { KeyGate, KeyGateFull } from '../../src/db/key-gate.js';

describe('KeyGate', () => {
  it('tryAcquire takes a free slot at once, and none (queuing nothing) when the key has no free slot', async () => {
    const gate = new KeyGate({ concurrent: 2, queued: 5 });
    const first = gate.tryAcquire('a')!;
    const second = await gate.acquire('a');
    expect(gate.tryAcquire('a')).toBeUndefined();
    expect(gate.load('a')).toEqual({ running: 2, waiting: 0 });
    const waiting = gate.acquire('a');
    expect(gate.load('a')).toEqual({ running: 2, waiting: 1 });
    first();
    first(); // once only
    const third = await waiting;
    expect(gate.load('a')).toEqual({ running: 2, waiting: 0 });
    second();
    third();
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
    // A key nothing holds is forgotten again after a slot taken and given back.
    gate.tryAcquire('b')!();
    expect(gate.load('b')).toEqual({ running: 0, waiting: 0 });
  });

  it('admits `concurrent` holders per key, queues `queued` more in arrival order, refuses the rest', async () => {
    const gate = new KeyGate({ concurrent: 2, queued: 2 });
    const first = await gate.acquire('a');
    const second = await gate.acquire('a');
    const admitted: string[] = [];
    const third = gate.acquire('a').then((release) => (admitted.push('third'), release));
    const fourth = gate.acquire('a').then((release) => (admitted.push('fourth'), release));
    await expect(gate.acquire('a')).rejects.toBeInstanceOf(KeyGateFull);
    expect(gate.load('a')).toEqual({ running: 2, waiting: 2 });
    // Another key has slots of its own.
    const other = await gate.acquire('b');
    expect(gate.load('b')).toEqual({ running: 1, waiting: 0 });

    first();
    first(); // a second call of one release gives nothing back twice
    await third;
    expect(admitted).toEqual(['third']);
    expect(gate.load('a')).toEqual({ running: 2, waiting: 1 });
    second();
    (await third)();
    (await fourth)();
    expect(admitted).toEqual(['third', 'fourth']);
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
    other();
    expect(gate.load('b')).toEqual({ running: 0, waiting: 0 });
  });

  it('admits waiters by priority, lowest first, and equal priorities in arrival order', async () => {
    const gate = new KeyGate({ concurrent: 1, queued: 4 });
    const holder = await gate.acquire('a');
    const admitted: string[] = [];
    const releases = new Map<string, Promise<() => void>>();
    for (const [name, priority] of [
      ['late', 3],
      ['first of two', 1],
      ['middle', 2],
      ['second of two', 1],
    ] as const) {
      releases.set(
        name,
        gate.acquire('a', { priority }).then((release) => (admitted.push(name), release)),
      );
    }
    // Each holder's release admits the next waiter; the admitted one releases in turn.
    holder();
    for (let index = 0; index < releases.size; index += 1) {
      await expect.poll(() => admitted.length).toBe(index + 1);
      (await releases.get(admitted[index])!)();
    }
    expect(admitted).toEqual(['first of two', 'second of two', 'middle', 'late']);
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('lets a waiter go when its signal aborts: it leaves the queue with the reason and is never admitted', async () => {
    const gate = new KeyGate({ concurrent: 1, queued: 2 });
    const holder = await gate.acquire('a');
    const leaving = new AbortController();
    const gone = Object.assign(new Error('the client went away'), { code: '57014' });
    const admitted: string[] = [];
    const left = gate.acquire('a', { signal: leaving.signal }).then(() => admitted.push('left'));
    const staying = gate.acquire('a').then((release) => (admitted.push('staying'), release));
    expect(gate.load('a')).toEqual({ running: 1, waiting: 2 });
    leaving.abort(gone);
    await expect(left).rejects.toBe(gone);
    expect(gate.load('a')).toEqual({ running: 1, waiting: 1 });
    // Its place is free again, and the next release goes to the waiter still there.
    const third = gate.acquire('a');
    holder();
    (await staying)();
    (await third)();
    expect(admitted).toEqual(['staying']);
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
    // A signal aborted already takes nothing.
    await expect(gate.acquire('b', { signal: leaving.signal })).rejects.toBe(gone);
    expect(gate.load('b')).toEqual({ running: 0, waiting: 0 });
  });
});
