/**
 * The peer's event delivery. Every entry point (commands, datagrams, timers) runs through `run`:
 * events queue up and are delivered once the outermost entry point is done, so listeners see a
 * consistent state, in order, and a listener that calls a command from inside an event cannot
 * reorder them. A failing listener is reported and skipped.
 */
export class EventQueue<E> {
  private readonly listeners = new Set<(event: E) => void>();
  private readonly queue: E[] = [];
  private depth = 0;
  private flushing = false;

  constructor(private readonly onListenerError: (error: unknown, event: E) => void) {}

  on(listener: (event: E) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: E): void {
    this.queue.push(event);
  }

  run<T>(fn: () => T): T {
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      if (this.depth === 0) this.flush();
    }
  }

  private flush(): void {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (let e = this.queue.shift(); e !== undefined; e = this.queue.shift()) {
        for (const listener of [...this.listeners]) {
          try {
            listener(e);
          } catch (error) {
            this.onListenerError(error, e);
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
