import { WIDTH } from '../bitboard.js';
import type { Book } from './book.js';
import { CELLS, type Position } from './position.js';
import type { Engine, Search } from './search.js';
import { COLUMN_ORDER, TsSearch } from './search-ts.js';
import { WasmSearch, wasmModule, WASM_FILE, type LinesSolved, type ParallelOptions } from './search-wasm.js';

export type { Engine } from './search.js';

export interface SolverOptions {
  /** log2 of the transposition table's slots, 17–28 (Pons: 23; 8 bytes a slot, so 64 MB). */
  tableLog?: number;
  /**
   * WebAssembly only: start the table at 2^growFrom slots (18 or more) and let it grow, 2^2 times
   * at a time, up to 2^tableLog within a solve that runs more than 4 times as many nodes as it has
   * slots (growing moves the entries into their new buckets). Short solves then probe a table that stays in the caches, and a
   * fresh process writes a few pages, not 64 MB of them (each page's first write is a page fault).
   * A growing table has two slots a bucket, the first keeping the entry nearest the root
   * (assembly/connect4/memory.ts tableWays). Default: the whole table from the start, one slot a
   * bucket, which visits exactly Pons' nodes.
   */
  growFrom?: number;
  book?: Book | null;
  /**
   * Where the search runs. Default: the WebAssembly core if the build has made it, else the
   * TypeScript reference (with one note on stderr). 'wasm' without the built core throws.
   */
  engine?: Engine;
  /**
   * Threads for one solve (WebAssembly only): 1 (the default) searches alone; with more, helper
   * threads share the table (smp.ts) once a solve has run `splitAfter` nodes.
   */
  threads?: number;
  /** Negamax calls after which helpers join a solve (default SPLIT_AFTER). */
  splitAfter?: number;
}

/**
 * When helpers join a solve by default: after about 50 ms of searching alone (~20 M nodes/s), so
 * that the short solves, most of a game's, never pay for waking them.
 */
export const SPLIT_AFTER = 1 << 20;

/**
 * Where a growing table starts (SolverOptions.growFrom): 2^18 slots in 2^17 buckets of two, 2 MB,
 * the least that keeps 32 key bits exact. A solve grows it to 2^20 after ~1 M nodes, to 2^22 after
 * ~5 M, to 2^24 after ~22 M (assembly/connect4/index.ts reachCheck).
 */
export const GROW_FROM = 18;

/**
 * How far a growing table grows by default (`solve` without --table-log, the house bots, `play`):
 * 2^19 slots, 4 MB in buckets of two. Issue 35: a table within the caches' and the TLB's reach
 * costs more nodes but far less time a node than a large one, whose probes miss them (a page walk
 * each, dear in a VM). First 12 positions of Begin-Hard, one thread, one table: 2^19 slots 313.9 M
 * nodes in 12.7 s CPU, 2^20 280.1 M in 18.9 s, 2^22 249.8 M in 26.8 s, 2^25 (`solve`'s limit
 * before) 236.3 M in 31.5 s and 200 MB of memory; Begin-Medium's first 200: 14.5 s at 2^19, 19.3 s
 * at 2^20, 29.8 s at 2^25 (2-vCPU AMD EPYC VM, 2026-11-29).
 */
export const GROW_TO = 19;

/** Thrown out of a search when its deadline passes; the table stays valid. */
export class SearchAborted extends Error {
  constructor() {
    super('the search ran out of time');
    this.name = 'SearchAborted';
  }
}

let fallbackNoted = false;

function createSearch(engine: Engine | undefined, tableLog: number, checkpoint: (nodes: number) => void, parallel: ParallelOptions, growFrom: number): Search {
  if (engine === 'ts') return new TsSearch(tableLog, checkpoint);
  const module = wasmModule();
  if (module !== null) return new WasmSearch(module, tableLog, checkpoint, parallel, growFrom);
  if (engine === 'wasm') throw new Error(`the Connect Four solver core ${WASM_FILE} is missing (run \`npm run build\`)`);
  if (!fallbackNoted) {
    fallbackNoted = true;
    process.stderr.write(`spielhalle: ${WASM_FILE} not found (run \`npm run build\`); the Connect Four solver runs in TypeScript, about 2× slower\n`);
  }
  return new TsSearch(tableLog, checkpoint);
}

/**
 * Pons' strong solver (blog parts 1–12): negamax with alpha-beta on bitboards, null-window
 * iterative deepening of the score interval, a transposition table of lower and upper bounds,
 * centre-first move ordering refined by the number of threats a move creates, pruning of moves
 * that lose at once, and optionally an opening book. The search itself runs in WebAssembly
 * (assembly/connect4/, see search-wasm.ts) or in the TypeScript reference (search-ts.ts); both
 * give the same scores with the same node counts.
 */
export class Solver {
  book: Book | null;
  /** Called every CHECK_INTERVAL nodes, e.g. for progress lines on very long solves; may throw. */
  onCheckpoint: ((nodes: number) => void) | null = null;
  private readonly search: Search;
  private until = Infinity;

  constructor(options: SolverOptions = {}) {
    this.book = options.book ?? null;
    const threads = options.threads ?? 1;
    if (!Number.isInteger(threads) || threads < 1 || threads > 16) throw new RangeError('threads must be 1–16');
    const parallel = { threads, splitAfter: options.splitAfter ?? SPLIT_AFTER };
    const tableLog = options.tableLog ?? 23;
    this.search = createSearch(options.engine, tableLog, (nodes) => {
      this.onCheckpoint?.(nodes);
      if (Date.now() > this.until) throw new SearchAborted();
    }, parallel, options.growFrom ?? tableLog);
  }

  /** Threads a solve may use (1 for the TypeScript engine). */
  get threads(): number {
    return this.search instanceof WasmSearch ? this.search.threads : 1;
  }

  /** Negamax calls of helper threads since the solver was made (nodeCount counts the main search only). */
  get helperNodes(): number {
    return this.search instanceof WasmSearch ? this.search.helperNodes : 0;
  }

  /** Solves whose score a helper thread found before the main search did. */
  get helperWins(): number {
    return this.search instanceof WasmSearch ? this.search.helperWins : 0;
  }

  /** Ends helper threads, if any ran (they never hold the process open; this frees them sooner). */
  close(): void {
    if (this.search instanceof WasmSearch) this.search.close();
  }

  /** Which engine runs the search. */
  get engine(): Engine {
    return this.search.engine;
  }

  /**
   * Epoch ms after which a search throws SearchAborted (Infinity: never). Setting it moves the
   * next look at the clock close, so a short budget is honoured promptly.
   */
  get deadline(): number {
    return this.until;
  }

  set deadline(value: number) {
    this.until = value;
    this.search.checkSoon();
  }

  /** The transposition table's slots now (WebAssembly: a growing table's current size), else null. */
  get tableSlots(): number | null {
    return this.search instanceof WasmSearch ? this.search.tableSlots : null;
  }

  /**
   * Grows a growing table (SolverOptions.growFrom) one step now, emptying it — what a solve does
   * once it has outgrown the table; also allowed from onCheckpoint, in the middle of a solve.
   * False when the table is at its largest (or the search is the TypeScript one).
   */
  growTable(): boolean {
    return this.search instanceof WasmSearch ? this.search.grow() : false;
  }

  /** Negamax calls since the last reset, counted as Pons counts them. */
  get nodeCount(): number {
    return this.search.nodeCount;
  }

  set nodeCount(value: number) {
    this.search.nodeCount = value;
  }

  /** Empties the table and the node counter (Pons resets both before each test position). */
  reset(): void {
    this.search.clear();
    this.search.nodeCount = 0;
  }

  /**
   * Solves whole lines of `solve`'s input inside the WebAssembly core, if that is the engine (null
   * with the TypeScript one): see WasmSearch.solveLines. At most `most` lines.
   */
  solveLines(bytes: Uint8Array, weak: boolean, most: number): LinesSolved | null {
    return this.search instanceof WasmSearch ? this.search.solveLines(bytes, weak, this.book, most) : null;
  }

  /**
   * A line of Pons' notation as a position, if it is a plain valid one nobody has won yet,
   * checked by the WebAssembly core (cheap in a fresh process); else null, and solvablePosition
   * (solver/index.ts) tells why — or, with the TypeScript engine, does the whole check.
   */
  parse(notation: string): Position | null {
    return this.search instanceof WasmSearch ? this.search.parse(notation) : null;
  }

  /**
   * The exact score (spec §6.2) of a position in which nobody has won yet. `weak` only tells the
   * sign (−1, 0, 1).
   */
  solve(position: Position, weak = false): number {
    return this.search.solve(position, weak, this.book);
  }

  /**
   * The value of every column (index 0 = column 1) as Pons' analyze gives it: null for a full
   * column, the immediate-win score for a winning move, else −score(after it). `onColumn` is told
   * before each column that needs a search: the 0-based column, how many such columns came before
   * it and how many there are (progress reports).
   */
  analyse(position: Position, weak = false, onColumn?: (column: number, done: number, count: number) => void): (number | null)[] {
    const scores: (number | null)[] = [];
    const symmetric = isSymmetric(position);
    const searched = (col: number) => !(symmetric && col > WIDTH >> 1) && position.canPlay(col) && !position.isWinningMove(col);
    const count = Array.from({ length: WIDTH }, (_, col) => col).filter(searched).length;
    let done = 0;
    for (let col = 0; col < WIDTH; col++) {
      if (symmetric && col > WIDTH >> 1) scores.push(scores[WIDTH - 1 - col] ?? null);
      else if (!position.canPlay(col)) scores.push(null);
      else if (position.isWinningMove(col)) scores.push((CELLS + 1 - position.moves) >> 1);
      else {
        onColumn?.(col, done++, count);
        const child = position.clone();
        child.playCol(col);
        scores.push(0 - this.solve(child, weak));
      }
    }
    return scores;
  }

  /**
   * One best column (0-based) of a position in which nobody has won yet, and its score: the
   * best-move-only search of `solve --best-move` and the perfect bot outside the book. One exact
   * solve of the position (Pons' null-window iterations), then null-window tests of its columns in
   * `order` (default COLUMN_ORDER, the search's own centre-first order, so the first test nearly always
   * succeeds, on bounds the solve left in the table) until the first that reaches the score: no
   * exact value of any column, and no proof about the columns after it (bestMoves tests all).
   * Inside the book: the first column of `order` among the book's best, without a search.
   */
  bestMove(position: Position, order: readonly number[] = COLUMN_ORDER): { score: number; column: number } {
    for (const col of order) if (position.isWinningMove(col)) return { score: (CELLS + 1 - position.moves) >> 1, column: col };
    const known = this.book?.bestColumns(position) ?? null;
    const knownScore = this.book?.get(position) ?? null;
    if (known !== null && knownScore !== null) {
      const column = order.find((col) => known.includes(col));
      if (column !== undefined) return { score: knownScore, column };
    }
    const score = this.solve(position);
    let last = -1;
    for (const col of order) {
      if (!position.canPlay(col)) continue;
      last = col;
      const child = position.clone();
      child.playCol(col);
      if (this.reaches(child, score)) return { score, column: col };
    }
    // Unreachable for a full `order` (some column reaches the score); a partial one gets its last playable column.
    if (last < 0) throw new RangeError('no playable column in the order given');
    return { score, column: last };
  }

  /** Whether the move to `child` reaches `score` (its own score is at most −score): a null-window test unless the book or an immediate win knows it. */
  private reaches(child: Position, score: number): boolean {
    let childScore = this.book?.get(child) ?? null;
    if (childScore === null && child.canWinNext()) childScore = (CELLS + 1 - child.moves) >> 1;
    return childScore !== null ? 0 - childScore === score : this.search.probe(child, 0 - score, 1 - score, this.book) <= 0 - score;
  }

  /**
   * The best score of a position (nobody has won yet) and every 0-based column that reaches it.
   * Cheaper than `analyse`: one exact solve, then one null-window test per other column; nothing
   * at all if the book lists the position's best columns.
   */
  bestMoves(position: Position): { score: number; columns: number[] } {
    const wins: number[] = [];
    for (let col = 0; col < WIDTH; col++) if (position.isWinningMove(col)) wins.push(col);
    if (wins.length > 0) return { score: (CELLS + 1 - position.moves) >> 1, columns: wins };
    const known = this.book?.bestColumns(position) ?? null;
    const knownScore = this.book?.get(position) ?? null;
    if (known !== null && knownScore !== null) return { score: knownScore, columns: known };
    const score = this.solve(position);
    const columns: number[] = [];
    // A symmetric position (the empty board, 4, 44, …: the costliest ones) needs half the tests.
    const symmetric = isSymmetric(position);
    for (let col = 0; col < WIDTH; col++) {
      if (symmetric && col > WIDTH >> 1) {
        if (columns.includes(WIDTH - 1 - col)) columns.push(col);
        continue;
      }
      if (!position.canPlay(col)) continue;
      const child = position.clone();
      child.playCol(col);
      // Every column's value is at most `score`; it is best if the child's score is at most −score.
      if (this.reaches(child, score)) columns.push(col);
    }
    return { score, columns };
  }
}

/** Whether a position is its own mirror image. */
function isSymmetric(position: Position): boolean {
  const m = position.mirrored();
  return m.curLo === position.curLo && m.curHi === position.curHi && m.maskLo === position.maskLo && m.maskHi === position.maskHi;
}
