import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { PeriodicPass } from '../../src/lib/periodic-pass.js';

/**
 * A worker's pass asked for on request (the async queue's and the outbox's `drain`) must see what
 * the caller wrote before asking, even while a pass that looked earlier is still running.
 */
function gatedPass(firstFails = false) {
  const written: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let passes = 0;
  const pass = new PeriodicPass<number>({
    name: 'test pass',
    everyMs: 60_000,
    log: pino({ level: 'silent' }),
    meanwhile: 'nothing',
    pass: async () => {
      passes += 1;
      const seen = written.length;
      if (passes === 1) {
        await gate;
        if (firstFails) throw new Error('the first pass fails');
      }
      return seen;
    },
  });
  return { pass, written, release, passes: () => passes };
}

describe('a background pass asked for on request', () => {
  it('starts after the request, so it sees what was written before it; requests meanwhile share one pass', async () => {
    const { pass, written, release, passes } = gatedPass();
    const early = pass.run();
    // The early pass has looked; the record comes after, while it still runs.
    written.push('record');
    const late = pass.run();
    const alsoLate = pass.run();
    expect(alsoLate).toBe(late);
    release();
    expect(await early).toBe(0);
    expect(await late).toBe(1);
    expect(passes()).toBe(2);
    // With no pass running, a request starts one at once.
    expect(await pass.run()).toBe(1);
    expect(passes()).toBe(3);
  });

  it('runs the queued pass when the running one fails, and stop waits for both', async () => {
    const { pass, written, release, passes } = gatedPass(true);
    const early = pass.run().catch((error: Error) => error.message);
    written.push('record');
    const late = pass.run();
    release();
    await pass.stop();
    expect(passes()).toBe(2);
    expect(await early).toBe('the first pass fails');
    expect(await late).toBe(1);
  });
});
