import type { Logger } from './log.js';

/**
 * Starts and stops the long-running parts (game servers, dashboard, bots) in order, and on
 * SIGINT/SIGTERM stops them in reverse order so the record store is flushed last.
 */
export interface Stoppable {
  name: string;
  stop(): Promise<void> | void;
}

export class Lifecycle {
  private readonly parts: Stoppable[] = [];
  private stopping: Promise<void> | null = null;
  private readonly handlers: [NodeJS.Signals, () => void][] = [];

  constructor(private readonly log: Logger) {}

  add(part: Stoppable): void {
    this.parts.push(part);
  }

  /** Stops every part, last added first; a part that fails to stop is logged and skipped. */
  stop(timeoutMs = 5000): Promise<void> {
    this.stopping ??= (async () => {
      for (const part of [...this.parts].reverse()) {
        try {
          await Promise.race([
            Promise.resolve(part.stop()),
            new Promise((_, reject) =>
              setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs).unref(),
            ),
          ]);
          this.log.debug({ part: part.name }, 'stopped');
        } catch (err) {
          this.log.error({ part: part.name, err }, 'failed to stop cleanly');
        }
      }
      for (const [signal, handler] of this.handlers) process.off(signal, handler);
    })();
    return this.stopping;
  }

  /** Installs SIGINT/SIGTERM handlers that stop everything and then exit. */
  handleSignals(onDone: (code: number) => void = (code) => process.exit(code)): void {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const handler = () => {
        this.log.info({ signal }, 'shutting down');
        void this.stop().then(() => onDone(0));
      };
      this.handlers.push([signal, handler]);
      process.once(signal, handler);
    }
  }
}

