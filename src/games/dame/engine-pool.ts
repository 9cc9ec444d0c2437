import { ThinkPool } from '../../core/think-pool.js';
import { type Logger } from '../../core/log.js';
import type { EngineRequest, EngineResponse } from './engine-worker.js';
import { initialState, type DameState, type SingleMove } from './rules.js';

/**
 * The engine seats' think(): worker threads running engine-worker.ts (core/think-pool.ts), so a
 * server never blocks for a move, and a client reads GAMEOVER while its engine is still thinking.
 */

/** What an engine seat (or a client) needs to get one single move. */
export interface DameMoveSource {
  /** `marginMs`: kept back from `timeMs` (default the engine's own, min(400, timeMs / 5)). */
  choose(state: DameState, timeMs: number, seed: string, marginMs?: number): Promise<SingleMove>;
  close(): Promise<void>;
}

export class DameEnginePool implements DameMoveSource {
  private readonly pool: ThinkPool<EngineRequest, EngineResponse>;

  constructor(options: { threads?: number; log?: Logger } = {}) {
    this.pool = new ThinkPool({
      moduleUrl: import.meta.url,
      script: 'engine-worker',
      threads: options.threads,
      log: options.log?.child({ game: 'dame', part: 'engine' }),
      closedMessage: 'the Dame engine is closed',
    });
  }

  async choose(state: DameState, timeMs: number, seed: string, marginMs?: number): Promise<SingleMove> {
    const reply = await this.pool.ask({ state, timeMs, seed, ...(marginMs === undefined ? {} : { marginMs }) });
    return reply.move;
  }

  /**
   * Starts every worker and lets it think once: a cold engine (no JIT yet) overruns its first
   * budget by far, which a client with a deadline must not pay for.
   */
  async warm(thinkMs = 150): Promise<void> {
    await Promise.all(Array.from({ length: this.pool.threads }, () => this.choose(initialState(), thinkMs, 'warm-up', 0)));
  }

  /** Requests waiting for a free worker. */
  get queued(): number {
    return this.pool.queued;
  }

  /** Closed: every request fails from now on (a warm-up cut off by the end is no problem). */
  get closed(): boolean {
    return this.pool.isClosed;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
