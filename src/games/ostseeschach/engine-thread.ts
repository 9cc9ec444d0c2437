import { ThinkPool } from '../../core/think-pool.js';
import type { Logger } from '../../core/log.js';
import type { Move } from './board.js';
import type { AsyncBot } from './bots/types.js';
import type { EngineRequest } from './engine-worker.js';
import { Rng } from '../../core/rng.js';
import { createStart } from './setup.js';

/**
 * The engine bot of one game seat in its own worker thread (engine-worker.ts), for a client whose
 * thread must keep reading the connection while the engine thinks (`bot ostseeschach`). `close`
 * cuts off a think in flight.
 */
export class EngineThread {
  private readonly pool: ThinkPool<EngineRequest, Move>;
  private n = 0;

  constructor(private readonly seed: string, log?: Logger) {
    this.pool = new ThinkPool({
      moduleUrl: import.meta.url,
      script: 'engine-worker',
      log: log?.child({ game: 'ostseeschach', part: 'engine' }),
      closedMessage: 'the Ostseeschach engine is closed',
    });
  }

  /** The bot: the budget counts from the call, so a worker that is still starting eats into it. */
  readonly bot: AsyncBot = (state, budgetMs) => this.pool.ask({ state, budgetMs, seed: `${this.seed}:${this.n++}` });

  /**
   * Starts the thread and lets the engine think once (a cold engine, no JIT yet, overruns its
   * first budget), while the client connects: the first moveRequest queues behind it.
   */
  warm(thinkMs = 100): Promise<void> {
    return this.pool.ask({ state: createStart(Rng.seeded('warm-up')), budgetMs: thinkMs, seed: 'warm-up' }).then(() => undefined);
  }

  /** Closed: every request fails from now on (a warm-up cut off by the end is no problem). */
  get closed(): boolean {
    return this.pool.isClosed;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
