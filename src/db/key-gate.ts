/** Refused by a KeyGate: the key already has as many requests waiting as it may. */
export class KeyGateFull extends Error {
  constructor(public readonly key: string) {
    super(`too many requests waiting for ${key}`);
    this.name = 'KeyGateFull';
  }
}

interface Waiter {
  admit: () => void;
  priority: number;
}

interface KeyLoad {
  running: number;
  /** In the order they are admitted: by priority, then by arrival. */
  waiting: Waiter[];
}

/**
 * A semaphore per key: at most `concurrent` holders of one key at once, at most `queued` more
 * waiting their turn in arrival order, and beyond that refused at once. One key's burst so waits
 * for its own slots instead of taking every worker the gateway has from other keys. Keys with
 * nothing running or waiting are forgotten, so the map holds only the keys at work.
 */
export class KeyGate {
  private readonly keys = new Map<string, KeyLoad>();

  constructor(private readonly limits: { concurrent: number; queued: number }) {}

  /**
   * The release of one of the key's slots when one is free now, else undefined (nothing queued):
   * what a caller tries before `acquire`, so that the usual case, a free slot, costs neither a
   * promise nor an abort signal.
   */
  tryAcquire(key: string): (() => void) | undefined {
    const load = this.keys.get(key) ?? { running: 0, waiting: [] };
    if (load.running >= this.limits.concurrent) return undefined;
    load.running += 1;
    this.keys.set(key, load);
    return this.releaser(key, load);
  }

  /**
   * Resolves with the release once one of the key's slots is free (call it exactly once, when the
   * work ends however it ends); throws KeyGateFull when the key's queue is full. A waiter with a
   * lower `priority` is admitted before those with a higher one; equal priorities in arrival order.
   * A waiter whose `signal` aborts leaves the queue and throws the signal's reason: one whose
   * caller is gone neither holds a place that a live caller may need nor takes a turn.
   */
  async acquire(key: string, { priority = 0, signal }: { priority?: number; signal?: AbortSignal } = {}): Promise<() => void> {
    signal?.throwIfAborted();
    const free = this.tryAcquire(key);
    if (free) return free;
    let load = this.keys.get(key);
    if (!load) this.keys.set(key, (load = { running: 0, waiting: [] }));
    if (load.waiting.length >= this.limits.queued) throw new KeyGateFull(key);
    // The slot is handed over by the release, so running never drops below the limit meanwhile.
    await new Promise<void>((admit, leave) => {
      const waiter: Waiter = { admit: () => (signal?.removeEventListener('abort', onAbort), admit()), priority };
      // The key stays: a waiter exists only while every slot is held, and the last release forgets it.
      const onAbort = () => {
        load.waiting.splice(load.waiting.indexOf(waiter), 1);
        leave(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const behind = load.waiting.findIndex((other) => other.priority > priority);
      load.waiting.splice(behind === -1 ? load.waiting.length : behind, 0, waiter);
    });
    return this.releaser(key, load);
  }

  private releaser(key: string, load: KeyLoad): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(key, load);
    };
  }

  private release(key: string, load: KeyLoad): void {
    const next = load.waiting.shift();
    if (next) return next.admit();
    load.running -= 1;
    if (load.running === 0) this.keys.delete(key);
  }

  /** Holders and waiters of `key` now. */
  load(key: string): { running: number; waiting: number } {
    const load = this.keys.get(key);
    return { running: load?.running ?? 0, waiting: load?.waiting.length ?? 0 };
  }
}
