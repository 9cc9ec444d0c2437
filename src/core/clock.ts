/** A cancellable timer handle. */
export interface Timer {
  cancel(): void;
}

/**
 * Time as the servers see it. Production uses the system clock; tests use VirtualClock and
 * drive turn timeouts without waiting.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): Timer;
  setInterval(fn: () => void, ms: number): Timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(handle) };
  },
  setInterval(fn, ms) {
    const handle = setInterval(fn, ms);
    return { cancel: () => clearInterval(handle) };
  },
};

interface Scheduled {
  id: number;
  at: number;
  fn: () => void;
  every: number | null;
}

/** A clock that only moves when told to. Timers fire in time order, ties in creation order. */
export class VirtualClock implements Clock {
  private current: number;
  private nextId = 1;
  private queue: Scheduled[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.schedule(fn, ms, null);
  }

  setInterval(fn: () => void, ms: number): Timer {
    return this.schedule(fn, ms, Math.max(1, ms));
  }

  /** Number of timers still waiting. */
  pending(): number {
    return this.queue.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.at > target) break;
      this.current = Math.max(this.current, next.at);
      this.queue = this.queue.filter((t) => t !== next);
      if (next.every !== null) this.queue.push({ ...next, at: next.at + next.every });
      next.fn();
    }
    this.current = target;
  }

  private earliest(): Scheduled | undefined {
    let best: Scheduled | undefined;
    for (const t of this.queue) if (best === undefined || t.at < best.at || (t.at === best.at && t.id < best.id)) best = t;
    return best;
  }

  private schedule(fn: () => void, ms: number, every: number | null): Timer {
    const entry: Scheduled = { id: this.nextId++, at: this.current + Math.max(0, ms), fn, every };
    this.queue.push(entry);
    return {
      cancel: () => {
        this.queue = this.queue.filter((t) => t.id !== entry.id);
      },
    };
  }
}
