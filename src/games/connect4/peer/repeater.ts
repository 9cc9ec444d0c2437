import type { Clock, Timer } from '../../../core/clock.js';

/**
 * "At once, then every 2 s" (specs §3.2), optionally at most `limit` times in all. Every repeated
 * message of the protocol is one of these, so stopping a message is stopping its repeater.
 */
export class Repeater {
  private count = 0;
  private timer: Timer | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly everyMs: number,
    private readonly fire: () => void,
    private limit = Number.POSITIVE_INFINITY,
  ) {}

  /** Sends the first copy now and schedules the rest. */
  start(): this {
    this.tick();
    if (this.count < this.limit) this.timer = this.clock.setInterval(() => this.tick(), this.everyMs);
    return this;
  }

  /** How many copies went out. */
  get sent(): number {
    return this.count;
  }

  get running(): boolean {
    return this.timer !== null;
  }

  /** Caps the total number of copies (the ones already sent included). */
  setLimit(total: number): void {
    this.limit = total;
    if (this.count >= total) this.stop();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private tick(): void {
    if (this.count >= this.limit) {
      this.stop();
      return;
    }
    this.count++;
    this.fire();
    if (this.count >= this.limit) this.stop();
  }
}
