import type { Logger } from 'pino';
import { databaseUnavailable } from '../db/errors.js';
import { outsideRequest } from '../db/roundtrips.js';

export interface PeriodicPassOptions<T> {
  /** Names the worker in its log lines. */
  name: string;
  everyMs: number;
  log: Logger;
  /** What happens while passes fail, for the log line that reports the trouble. */
  meanwhile: string;
  pass: () => Promise<T>;
}

/**
 * A background worker's pass, run at start, then from a timer, and on request. A request is
 * answered by a pass that starts after it, so the pass sees whatever the caller wrote first (a
 * queued record, say); requests made while a pass runs share one pass queued behind it. The timer
 * only starts a pass when none runs. A timer must not let anything reject unheard, so a failing
 * pass (the database down, say) is logged once when the trouble starts and once when a pass
 * succeeds again, not on every tick, and the next tick simply tries again.
 */
export class PeriodicPass<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | undefined;
  /** The pass that starts when the running one ends, for the requests made meanwhile. */
  private queued: Promise<T> | undefined;
  private stoppedFlag = false;
  /** Set while passes fail, so an outage is logged once rather than on every tick. */
  private failing = false;

  constructor(private readonly options: PeriodicPassOptions<T>) {}

  /** Set by `stop()`: a long pass checks it between steps. */
  get stopped(): boolean {
    return this.stoppedFlag;
  }

  start(): void {
    this.stoppedFlag = false;
    this.timer ??= setInterval(() => {
      if (!this.running) this.tick();
    }, this.options.everyMs);
    this.timer.unref();
    this.tick();
  }

  async stop(): Promise<void> {
    this.stoppedFlag = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    // A failing pass has been logged by tick(); stopping does not fail because of it.
    await (this.queued ?? this.running)?.catch(() => {});
  }

  /**
   * Runs a pass that starts after this call: now when none runs, else once the running one ends.
   * Joining the running pass instead would miss what the caller wrote after that pass had looked.
   */
  run(): Promise<T> {
    if (!this.running) return this.begin();
    const ended = this.running.then(
      () => {},
      () => {},
    );
    this.queued ??= ended.then(() => {
      this.queued = undefined;
      return this.begin();
    });
    return this.queued;
  }

  private begin(): Promise<T> {
    // A pass woken by a request (a queued record) is still no request's work.
    this.running ??= outsideRequest(() => this.options.pass()).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** One pass in the background: never rejects, logs the start and end of a run of failures. */
  tick(): void {
    const { name, log, meanwhile } = this.options;
    this.run().then(
      () => {
        if (!this.failing) return;
        this.failing = false;
        log.info(`${name}: passes succeed again`);
      },
      (error: unknown) => {
        if (this.failing) return;
        this.failing = true;
        const message = databaseUnavailable(error) ? `${name}: database unavailable` : `${name}: pass failed`;
        log.warn({ err: error }, `${message}; ${meanwhile} (logged again when a pass succeeds)`);
      },
    );
  }
}
