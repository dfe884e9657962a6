import { isDriverTypeFetchFault, reportDriverSocketFault } from './db/errors.js';

interface ProcessLog {
  error(object: object, message: string): void;
  warn(object: object, message: string): void;
  fatal(object: object, message: string): void;
}

export interface ProcessHandlerOptions {
  /** How the process ends after an unknown uncaught exception (tests replace it). */
  exit?: (code: number) => void;
}

/**
 * What the gateway does with failures that escape every `await`.
 *
 * - An unhandled rejection is logged and the process keeps running. A promise nobody awaited is a
 *   bug in one code path (a background timer, say), not a corrupted process, and stopping the whole
 *   gateway — every request in flight — for it turns a database blip into an outage. The driver's
 *   own type fetch on a lost connection (`isDriverTypeFetchFault`), known and harmless, is a warning.
 * - An uncaught exception is different: it was thrown through a stack that did not expect it, so
 *   whatever that code was doing (a half-updated structure, a socket in an unknown state) cannot be
 *   trusted; Node documents that resuming is unsafe. It is logged and the process exits with 1, for
 *   the supervisor to restart it, with one exception: postgres.js's write to a closed socket
 *   (porsager/postgres#1208, see `isDriverSocketFault`), a known fault after which only the pool is
 *   broken; the pool is replaced and the process carries on.
 *
 * Returns a function that removes the handlers.
 */
export function installProcessHandlers(log: ProcessLog, options: ProcessHandlerOptions = {}): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const onRejection = (reason: unknown) => {
    if (isDriverTypeFetchFault(reason)) {
      log.warn({ err: reason }, "database driver's type fetch failed on a lost connection (porsager/postgres#1192); the statements after it are answered on their own");
      return;
    }
    log.error({ err: reason }, 'unhandled promise rejection; the process keeps running');
  };
  const onException = (error: Error, origin: string) => {
    if (reportDriverSocketFault(error)) {
      log.warn({ err: error }, 'database driver wrote to a closed connection (porsager/postgres#1208); its pool is replaced');
      return;
    }
    log.fatal({ err: error, origin }, 'uncaught exception; exiting');
    exit(1);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
