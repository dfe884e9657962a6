/**
 * Progress of the generator's phases on stderr (stdout keeps the one JSON line that callers parse):
 * a line every few seconds per running phase with the rows done, the share of the total and the
 * rate, and at the end a summary of every phase's time.
 */

export interface PhaseResult {
  name: string;
  rows: number;
  seconds: number;
  /** Timed inside the phase before it (shown indented). */
  within?: boolean;
}

type Counter = () => number | Promise<number>;

const interval = 3000;
const grouped = (value: number) => Math.round(value).toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export class Progress {
  readonly results: PhaseResult[] = [];
  private readonly started = performance.now();

  /**
   * Runs one phase. `count` reports the rows done so far (polled every few seconds); `total`, when
   * known, gives the percentage. The phase's row count (for the summary) is what `work` returns
   * when it returns a number.
   */
  async phase<T>(name: string, options: { total?: number; count?: Counter; unit?: string; detail?: () => Promise<string>; rate?: boolean }, work: () => Promise<T>): Promise<T> {
    const unit = options.unit ?? 'rows';
    const start = performance.now();
    let last = { at: start, done: 0 };
    let polling = false;
    const line = (done: number, now: number) => {
      const elapsed = now - start;
      const rate = done / Math.max(elapsed / 1000, 1e-3);
      const recent = (done - last.done) / Math.max((now - last.at) / 1000, 1e-3);
      const share = options.total ? ` ${((100 * done) / options.total).toFixed(1).padStart(5)} %` : '';
      const of = options.total ? ` / ${grouped(options.total)}` : '';
      const speed = options.rate === false ? '' : `, ${grouped(rate)} ${unit}/s (last ${interval / 1000} s: ${grouped(recent)}/s)`;
      return `[${name}] ${grouped(done)}${of} ${unit}${share}${speed}, ${seconds(elapsed)}`;
    };
    const timer = setInterval(() => {
      if (polling) return;
      polling = true;
      void (async () => {
        try {
          const now = performance.now();
          if (options.count) {
            const done = await options.count();
            const detail = options.detail ? await options.detail() : '';
            process.stderr.write(`${line(done, now)}${detail ? ` (${detail})` : ''}\n`);
            last = { at: now, done };
          } else {
            process.stderr.write(`[${name}] running, ${seconds(now - start)}\n`);
          }
        } catch {
          // a failed poll only skips one line
        } finally {
          polling = false;
        }
      })();
    }, interval);
    try {
      const outcome = await work();
      const end = performance.now();
      const rows = typeof outcome === 'number' ? outcome : 0;
      this.results.push({ name, rows, seconds: (end - start) / 1000 });
      process.stderr.write(`[${name}] done in ${seconds(end - start)}${rows ? `: ${grouped(rows)} rows, ${grouped(rows / Math.max((end - start) / 1000, 1e-3))} rows/s` : ''}\n`);
      return outcome;
    } finally {
      clearInterval(timer);
    }
  }

  /** Adds a line to the summary for work timed inside a phase (indented under it). */
  record(name: string, rows: number, seconds: number): void {
    this.results.push({ name, rows, seconds, within: true });
  }

  /** The phase table, on stderr. */
  summary(): void {
    const total = (performance.now() - this.started) / 1000;
    const label = (result: PhaseResult) => `${result.within ? '  ' : ''}${result.name}`;
    const width = Math.max(...this.results.map((result) => label(result).length), 5);
    const rows = this.results.map(
      (result) =>
        `  ${label(result).padEnd(width)}  ${result.seconds.toFixed(1).padStart(7)} s  ${(result.rows ? grouped(result.rows) : '').padStart(12)}  ${(result.rows ? `${grouped(result.rows / Math.max(result.seconds, 1e-3))}/s` : '').padStart(12)}`,
    );
    process.stderr.write(`phases:\n${rows.join('\n')}\n  ${'total'.padEnd(width)}  ${total.toFixed(1).padStart(7)} s\n`);
  }
}

/** Runs the tasks on `workers` at a time, longest first as given. */
export async function inParallel<T>(workers: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(workers, tasks.length) }, async () => {
      while (next < tasks.length) {
        const index = next;
        next += 1;
        results[index] = await tasks[index]();
      }
    }),
  );
  return results;
}
