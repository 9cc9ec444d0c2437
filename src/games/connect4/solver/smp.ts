import type { Worker } from 'node:worker_threads';

/**
 * Helper threads for one WebAssembly search (lazy SMP): each runs its own instance of the core on
 * the search's shared memory, so all of them read and fill one transposition table. A helper
 * solves the same position as the main search (assembly/connect4/index.ts helperSolve), its
 * root's moves rotated, and below the root every thread skips for now the moves another one is
 * searching (simplified ABDADA: a small table of claimed child positions), so that the threads
 * work on different subtrees and the bounds each stores cut the others short. Whoever finishes
 * first has the exact score (every stored bound is exact for its position, whichever thread
 * stored it; the order of the moves never changes a score); the others stop at their next check.
 *
 * The threads talk only through the control block in the shared memory (memory.ts), never by
 * messages: the main thread is inside a synchronous wasm call while a job runs.
 */

/** Int32 indexes into the control block (byte offsets of memory.ts / 4). */
export const SEQ = 0;
export const STOP = 1;
export const BUSY = 2;
export const DONE = 3;
export const RESULT = 4;
export const MOVES = 5;
export const WEAK = 6;
/** How long an idle helper keeps looking for a new job before it sleeps. */
const SPIN_MS = 0.2;
/** u64 indexes (byte offset / 8) of the job's position words. */
export const CUR64 = 4;
export const MASK64 = 5;

/**
 * The helper's whole program: evaluated as a worker script (no file to find, from the sources or
 * the build alike). It waits for a new job number, works on it unless told to stop, and counts
 * itself in BUSY while it does, so that the main thread knows when every helper has let go.
 */
const HELPER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { module, memory, thread, control } = workerData;
const core = new WebAssembly.Instance(module, { env: { memory, checkpoint() {} } }).exports;
core.attachThread(thread);
const ctl = new Int32Array(memory.buffer, control, 64);
let seen = 0;
for (;;) {
  // In a batch the next job tends to follow within a fraction of a millisecond: look for it for
  // ${SPIN_MS} ms before sleeping, so that a start rarely has to wake this thread (tens of µs to
  // ms on a busy VM).
  const until = performance.now() + ${SPIN_MS};
  while (Atomics.load(ctl, ${SEQ}) === seen && performance.now() < until);
  Atomics.wait(ctl, ${SEQ}, seen);
  const seq = Atomics.load(ctl, ${SEQ});
  if (seq < 0) break;
  if (seq === seen) continue;
  seen = seq;
  Atomics.add(ctl, ${BUSY}, 1);
  try {
    if (Atomics.load(ctl, ${STOP}) === 0) core.helperSolve();
  } catch {
    // Told to stop: the core traps out of its search.
  }
  Atomics.sub(ctl, ${BUSY}, 1);
  Atomics.notify(ctl, ${BUSY});
}
`;

export class Helpers {
  private readonly workers: Worker[] = [];
  private readonly ctl: Int32Array;
  private readonly words: BigUint64Array;

  constructor(
    module: object,
    memory: { buffer: ArrayBufferLike },
    control: number,
    count: number,
  ) {
    this.ctl = new Int32Array(memory.buffer, control, 64);
    this.words = new BigUint64Array(memory.buffer, control, 32);
    // Loaded only here: a process whose solves never get helpers (one short position) skips it.
    const { Worker: WorkerThread } = process.getBuiltinModule('node:worker_threads');
    for (let thread = 1; thread <= count; thread++) {
      const worker = new WorkerThread(HELPER_SOURCE, { eval: true, workerData: { module, memory, thread, control } });
      // Waiting helpers must not keep the process alive.
      worker.unref();
      this.workers.push(worker);
    }
  }

  get count(): number {
    return this.workers.length;
  }

  /** Gives the helpers a position to solve; they are idle (see finish). */
  start(cur: bigint, mask: bigint, moves: number, weak: boolean): void {
    const ctl = this.ctl;
    this.words[CUR64] = cur;
    this.words[MASK64] = mask;
    ctl[MOVES] = moves;
    ctl[WEAK] = weak ? 1 : 0;
    Atomics.store(ctl, DONE, 0);
    Atomics.store(ctl, STOP, 0);
    Atomics.add(ctl, SEQ, 1);
    Atomics.notify(ctl, SEQ);
  }

  /** The score a helper found, if one finished the job first (it stopped the main search). */
  result(): number | null {
    const ctl = this.ctl;
    if (Atomics.load(ctl, DONE) === 0) return null;
    // A helper won the race to finish; its score follows at once.
    while (Atomics.load(ctl, DONE) !== 2) Atomics.wait(ctl, DONE, 1, 1);
    return ctl[RESULT]!;
  }

  /** Stops the job and waits until every helper has let go of it (a few thousand nodes). */
  finish(): void {
    const ctl = this.ctl;
    Atomics.store(ctl, STOP, 1);
    // They let go within ~256 of their nodes: spinning beats a sleep and a wake-up on this scale.
    const until = performance.now() + 2;
    while (Atomics.load(ctl, BUSY) !== 0 && performance.now() < until);
    for (let busy = Atomics.load(ctl, BUSY); busy !== 0; busy = Atomics.load(ctl, BUSY)) Atomics.wait(ctl, BUSY, busy, 5);
    Atomics.store(ctl, DONE, 0);
  }

  /** Ends the helper threads. */
  close(): void {
    Atomics.store(this.ctl, STOP, 1);
    Atomics.store(this.ctl, SEQ, -1);
    Atomics.notify(this.ctl, SEQ);
    for (const w of this.workers) void w.terminate();
    this.workers.length = 0;
  }
}
