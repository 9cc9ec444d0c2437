import type { Logger } from './log.js';

/**
 * Error boundaries: every entry from I/O or a timer into game code goes through `guard`, so an
 * exception ends at most the match or connection it belongs to (the `onError` callback decides
 * which) and never the process. The last resort for what still escapes is `installCrashHandlers`.
 */

/** The reason recorded for a match ended by an exception in our own code. */
export const INTERNAL_ERROR = 'internal error';
/** The reason recorded for a match cut off by a crash (or found running after one). */
export const CRASH = 'crash';
/** The reason recorded for a match still open when the server stopped cleanly. */
export const SERVER_STOPPED = 'server stopped';

/**
 * Wraps `fn` so that an exception it throws (or a promise it returns that rejects) is logged at
 * error level with `what` and the stack, then handed to `onError` (which must not throw; if it
 * does, that is logged too).
 */
export function guard<A extends unknown[]>(
  log: Logger,
  what: string,
  fn: (...args: A) => unknown,
  onError?: (err: unknown) => void,
): (...args: A) => void {
  const fail = (err: unknown): void => {
    log.error({ err, where: what }, `${what}: internal error`);
    if (!onError) return;
    try {
      onError(err);
    } catch (err2) {
      log.error({ err: err2, where: what }, `${what}: failed to recover from an internal error`);
    }
  };
  return (...args: A): void => {
    try {
      const r = fn(...args);
      if (r instanceof Promise) r.catch(fail);
    } catch (err) {
      fail(err);
    }
  };
}

/** `setTimeout` whose callback is guarded. */
export function guardedTimeout(log: Logger, what: string, fn: () => unknown, ms: number, onError?: (err: unknown) => void): NodeJS.Timeout {
  return setTimeout(guard(log, what, fn, onError), ms);
}

/** `setInterval` whose callback is guarded. */
export function guardedInterval(log: Logger, what: string, fn: () => unknown, ms: number, onError?: (err: unknown) => void): NodeJS.Timeout {
  return setInterval(guard(log, what, fn, onError), ms);
}

export interface CrashHandlerOptions {
  log: Logger;
  /** Flushes what can be flushed and marks running matches aborted with reason `crash`. Synchronous. */
  onCrash: (err: unknown) => void;
  /** Default: process.exit. */
  exit?: (code: number) => void;
}

/**
 * The last resort for an exception no boundary caught: log it at fatal, let `onCrash` save what
 * it can, and exit with code 70 (EX_SOFTWARE) so that a supervisor restarts the server. Returns
 * the function that removes the handlers.
 */
export function installCrashHandlers(o: CrashHandlerOptions): () => void {
  let crashed = false;
  const handler = (kind: string) => (err: unknown) => {
    if (crashed) return;
    crashed = true;
    try {
      o.log.fatal({ err, kind }, 'crash: an exception escaped every error boundary');
    } catch {
      process.stderr.write(`spielhalle: crash (${kind}): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    try {
      o.onCrash(err);
    } catch (err2) {
      process.stderr.write(`spielhalle: could not save the record store after a crash: ${String(err2)}\n`);
    }
    (o.exit ?? ((code: number) => process.exit(code)))(70);
  };
  const onException = handler('uncaughtException');
  const onRejection = handler('unhandledRejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
