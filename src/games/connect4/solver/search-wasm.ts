import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Book } from './book.js';
import { CELLS, Position } from './position.js';
import type { Checkpoint, Engine, Search } from './search.js';
import { Helpers } from './smp.js';

/** Where scripts/build.mjs puts the compiled core (assembly/connect4/), relative to the package root. */
export const WASM_FILE = join('dist', 'wasm', 'connect4-solver.wasm');
/** An environment variable that names the compiled core's file, looked at first. */
export const WASM_PATH_ENV = 'SPIELHALLE_C4_WASM';

/** The functions assembly/connect4/index.ts exports (wasm i32/f64 arrive as numbers). */
interface CoreExports {
  initTable(logSize: number, startLog: number): number;
  tableSlots(): number;
  growNow(): number;
  clearTable(): void;
  getNodes(): number;
  setNodes(count: number): void;
  checkSoon(): void;
  solve(curLo: number, curHi: number, maskLo: number, maskHi: number, moves: number, weak: number): number;
  probe(curLo: number, curHi: number, maskLo: number, maskHi: number, moves: number, alpha: number, beta: number): number;
  bookReset(depth: number, entries: number): number;
  bookAdd(key: number, score: number): void;
  bookStage(entries: number): number;
  bookLoad(entries: number): void;
  setCheckInterval(interval: number): void;
  controlBlock(): number;
  helperNodes(): number;
  clearClaims(): void;
  setShare(below: number, rotate: number): void;
  parseMoves(length: number): number;
  lineArea(bytes: number): number;
  solveLines(input: number, length: number, output: number, most: number, weak: number): number;
}

/**
 * The little of the WebAssembly JS API used here. @types/node does not declare the global (it
 * lives in the DOM lib), and declaring it globally would clash with the dashboard's DOM types.
 */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: unknown };
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => { buffer: ArrayBufferLike };
  RuntimeError: new () => Error;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * The compiled core: the file SPIELHALLE_C4_WASM names (the engine sets it for its worker), else searched upwards from this file (src/games/connect4/solver/ when running from
 * the sources, dist/games/connect4/solver/ when built, so both reach <root>/dist/wasm/), then
 * upwards from the working directory (a bundle of the engine worker runs from a temporary folder).
 */
export function wasmPath(): string | null {
  const given = process.env[WASM_PATH_ENV];
  if (given !== undefined && given !== '' && existsSync(given)) return given;
  for (const start of [dirname(fileURLToPath(import.meta.url)), process.cwd()]) {
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, WASM_FILE);
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}

let compiled: object | null | undefined;

/**
 * The compiled module, once per process; null if the build has not made it. V8's defaults: each
 * function gets baseline code (Liftoff) on its first call, and one that runs hot (negamax within
 * its first milliseconds) optimized code (TurboFan) on a background thread; every instance of the
 * process, the helper threads' too, shares that code. Measured (2026-11-26, 2-vCPU VM, 20
 * alternating fresh runs of End-Easy and Middle-Easy): 3 ms less wall and CPU than compiling every
 * function at once (`--no-wasm-lazy-compilation`, set through node:v8, whose loading alone — heap
 * utilities, streams — is ~1.5 ms); earlier, `--no-wasm-dynamic-tiering` (all optimized up front)
 * made a one-position solve 8–15 ms slower.
 */
export function wasmModule(): object | null {
  if (compiled !== undefined) return compiled;
  const path = wasmPath();
  if (path === null) return (compiled = null);
  compiled = new wasm.Module(readFileSync(path));
  warnIfStale(path);
  return compiled;
}

/** In a source checkout, says so when the core's sources changed after the last build. */
function warnIfStale(path: string): void {
  const sources = join(dirname(dirname(dirname(path))), 'assembly', 'connect4');
  if (!existsSync(sources)) return;
  const built = statSync(path).mtimeMs;
  if (readdirSync(sources).some((f) => statSync(join(sources, f)).mtimeMs > built)) {
    process.stderr.write(`spielhalle: ${path} is older than assembly/connect4/ (run \`npm run build\`)\n`);
  }
}

/**
 * The search in WebAssembly (assembly/connect4/): the same algorithm and node counts as the
 * TypeScript reference on native 64-bit bitboards, with the table (8 bytes a slot) and a copy of
 * the opening book's scores in the instance's linear memory. One instance per Solver.
 */
export interface ParallelOptions {
  /** Threads for one search, the main one included (1: no helpers). */
  threads: number;
  /** Negamax calls of a solve after which its helpers join it (a cheap solve stays on one thread). */
  splitAfter: number;
}

/** Where the control block holds parseMoves' notation and position, and solveLines' progress (assembly/connect4/memory.ts C_TEXT, C_PARSED, C_BATCH). */
const TEXT_AT = 128;
const PARSED_AT = 192;
const BATCH_AT = 208;
/** Thrown from a checkpoint inside solveLines (never seen outside this file). */
const LONG_LINE = new Error('a line of solveLines ran past its first checkpoint');

/** What solveLines did. */
export interface LinesSolved {
  consumed: number;
  lines: number;
  text: string;
  /** The line at `consumed` is the caller's: not plain, or a long solve. */
  leftOver: boolean;
}
const encoder = new TextEncoder();

/** Nodes between the main search's checks while helpers work with it (a helper's finish is seen within them). */
const JOINED_INTERVAL = 4096;
/**
 * Nodes between the main search's checks otherwise (the clock, progress, cancelling): fewer than
 * the TypeScript search's CHECK_INTERVAL, because a wasm node can cost far more than its average
 * while the table's pages are first touched (a page fault each, several µs on a loaded VM), and a
 * deadline or a cancelled analysis should still be honoured within milliseconds. A call into
 * JavaScript per 8192 nodes costs nothing measurable.
 */
const MAIN_INTERVAL = 8192;

/**
 * While helpers work with it, nodes with fewer stones than this share their moves among the threads
 * (assembly/connect4/index.ts, simplified ABDADA): nearly all of them, since the node counts barely
 * differed between 22 and 42, and the positions near the end are cheap anyway.
 */
const SHARE_BELOW = 36;

export class WasmSearch implements Search {
  readonly engine: Engine = 'wasm';
  private readonly core: CoreExports;
  private readonly module: object;
  private readonly memory: { buffer: ArrayBufferLike };
  private syncedBook: Book | null = null;
  private syncedRevision = 0;
  private readonly parallel: ParallelOptions;
  private helpers: Helpers | null = null;
  /** Views of the control block for parse. */
  private text: Uint8Array | null = null;
  private parsed: Int32Array | null = null;
  /** Inside solveLines: a checkpoint leaves the core. */
  private batching = false;
  private batchView: Int32Array | null = null;
  /** Solves whose score a helper found first. */
  helperWins = 0;
  /** The solve under way while helpers may join: its position and first node. */
  private job: { position: Position; weak: boolean; from: number; joined: boolean } | null = null;

  /** `growFrom` < `tableLog`: the table starts at 2^growFrom slots and grows (memory.ts growTable). */
  constructor(module: object, tableLog: number, checkpoint: Checkpoint, parallel: ParallelOptions = { threads: 1, splitAfter: Infinity }, growFrom = tableLog) {
    // Below 2^17 slots the 32 stored key bits no longer pin down a 49-bit key.
    if (!Number.isInteger(tableLog) || tableLog < 17 || tableLog > 28) throw new RangeError('logSize must be 17–28');
    // A growing table has two slots a bucket (memory.ts tableWays): 2^17 buckets or more.
    if (!Number.isInteger(growFrom) || growFrom < (growFrom < tableLog ? 18 : 17)) throw new RangeError('growFrom must be a whole number of 18 or more');
    this.module = module;
    this.parallel = parallel;
    this.memory = new wasm.Memory({ initial: 2, maximum: 65536, shared: true });
    const onCheck = (nodes: number): void => {
      // A solve of solveLines that runs this long goes back to the JavaScript side (solveLines).
      if (this.batching) throw LONG_LINE;
      const job = this.job;
      if (job !== null && !job.joined && nodes - job.from >= this.parallel.splitAfter) this.join(job);
      checkpoint(nodes);
    };
    const instance = new wasm.Instance(module, { env: { checkpoint: onCheck, memory: this.memory } });
    this.core = instance.exports as CoreExports;
    if (this.core.initTable(tableLog, growFrom) === 0) throw new RangeError(`no memory for a table of 2^${tableLog} slots`);
    this.core.setCheckInterval(MAIN_INTERVAL);
  }

  /** Threads a solve may use. */
  get threads(): number {
    return this.parallel.threads;
  }

  /** Negamax calls of the helper threads so far (not part of nodeCount, which is Pons' count of the main search). */
  get helperNodes(): number {
    return this.core.helperNodes();
  }

  /** Ends the helper threads (a Solver that is dropped can keep them; they do not hold the process). */
  close(): void {
    this.helpers?.close();
    this.helpers = null;
  }

  private join(job: { position: Position; weak: boolean; joined: boolean }): void {
    job.joined = true;
    this.helpers ??= new Helpers(this.module, this.memory, this.core.controlBlock(), this.parallel.threads - 1);
    this.core.clearClaims();
    this.core.setShare(SHARE_BELOW, 1);
    const p = job.position;
    const word = (lo: number, hi: number) => (BigInt(hi >>> 0) << 28n) | BigInt(lo >>> 0);
    this.helpers.start(word(p.curLo, p.curHi), word(p.maskLo, p.maskHi), p.moves, job.weak);
    this.core.setCheckInterval(JOINED_INTERVAL);
  }

  get nodeCount(): number {
    return this.core.getNodes();
  }

  set nodeCount(value: number) {
    this.core.setNodes(value);
  }

  /** The table's slots now (a growing table's current size). */
  get tableSlots(): number {
    return this.core.tableSlots();
  }

  checkSoon(): void {
    this.core.checkSoon();
  }

  clear(): void {
    this.core.clearTable();
  }

  /** Grows a growing table now (emptying it), as a solve that outgrows it does; false at its largest. */
  grow(): boolean {
    return this.core.growNow() !== 0;
  }

  solve(position: Position, weak: boolean, book: Book | null): number {
    this.useBook(book);
    const core = this.core;
    if (this.parallel.threads <= 1) return core.solve(position.curLo, position.curHi, position.maskLo, position.maskHi, position.moves, weak ? 1 : 0);
    const job = { position, weak, from: this.nodeCount, joined: false };
    this.job = job;
    // (Only when it changes: a fresh process's thousand short solves pay for every call into the core.)
    const interval = Math.min(MAIN_INTERVAL, Math.max(1, this.parallel.splitAfter));
    if (interval !== MAIN_INTERVAL) core.setCheckInterval(interval);
    try {
      return core.solve(position.curLo, position.curHi, position.maskLo, position.maskHi, position.moves, weak ? 1 : 0);
    } catch (e) {
      // The core traps out of the main search when a helper has finished first.
      const found = e instanceof wasm.RuntimeError && job.joined ? this.helpers!.result() : null;
      if (found === null) throw e;
      this.helperWins++;
      return found;
    } finally {
      this.job = null;
      if (job.joined) {
        this.helpers!.finish();
        core.setShare(0, 0);
      }
      if (job.joined || interval !== MAIN_INTERVAL) core.setCheckInterval(MAIN_INTERVAL);
    }
  }

  /**
   * The position of a line of Pons' notation, checked in the core (parseMoves) — or null when it
   * is not a plain valid unfinished position, or too long: then solvablePosition says why.
   */
  parse(notation: string): Position | null {
    if (notation.length > CELLS) return null;
    const control = this.core.controlBlock();
    const text = (this.text ??= new Uint8Array(this.memory.buffer, control + TEXT_AT, 64));
    // Native: no cold JavaScript loop over the characters. A non-ASCII character writes bytes ≥ 0x80, which the core refuses.
    const { read, written } = encoder.encodeInto(notation, text);
    if (read !== notation.length || this.core.parseMoves(written) === 0) return null;
    const words = (this.parsed ??= new Int32Array(this.memory.buffer, control + PARSED_AT, 4));
    const p = new Position();
    p.curLo = words[0]!;
    p.curHi = words[1]!;
    p.maskLo = words[2]!;
    p.maskHi = words[3]!;
    p.moves = notation.length;
    return p;
  }

  /**
   * Solves the lines of `bytes` (whole lines, each ended by \n, \r\n or \r) in the core, at most
   * `most` of them, as long as each is a plain valid line and its solve ends before its first
   * checkpoint (assembly/connect4/index.ts solveLines): the bytes consumed, the lines consumed
   * (blank ones too), the results' text, and whether the line at `consumed` is left to the caller.
   */
  solveLines(bytes: Uint8Array, weak: boolean, book: Book | null, most: number): LinesSolved {
    this.useBook(book);
    const core = this.core;
    // The longest result, 42 moves, a blank, a sign, two digits and \n, is 47 bytes.
    const at = core.lineArea(bytes.length + most * 48);
    if (at === 0) throw new RangeError('no memory for the input lines');
    new Uint8Array(this.memory.buffer, at, bytes.length).set(bytes);
    let status: number;
    this.batching = true;
    try {
      status = core.solveLines(at, bytes.length, at + bytes.length, most, weak ? 1 : 0);
    } catch (e) {
      if (e !== LONG_LINE) throw e;
      status = 1;
    } finally {
      this.batching = false;
    }
    const progress = (this.batchView ??= new Int32Array(this.memory.buffer, core.controlBlock() + BATCH_AT, 3));
    const text = Buffer.from(this.memory.buffer, at + bytes.length, progress[2]).toString('latin1');
    return { consumed: progress[0]!, lines: progress[1]!, text, leftOver: status === 1 };
  }

  probe(position: Position, alpha: number, beta: number, book: Book | null): number {
    this.useBook(book);
    return this.core.probe(position.curLo, position.curHi, position.maskLo, position.maskHi, position.moves, alpha, beta);
  }

  /** Copies the book's scores into the instance when the book or its contents changed. */
  private useBook(book: Book | null): void {
    if (book === this.syncedBook && (book === null || book.revision === this.syncedRevision)) return;
    this.syncedBook = null;
    if (this.core.bookReset(book?.depth ?? -1, book?.size ?? 0) === 0) throw new RangeError('no memory for the opening book');
    const packed = book?.packedEntries() ?? null;
    if (packed !== null) {
      // The shipped book as decoded: its bytes go into the memory at once, the core reads them.
      const at = this.core.bookStage(packed.length / 8);
      if (at === 0) throw new RangeError('no memory for the opening book');
      new Uint8Array(this.memory.buffer, at, packed.length).set(packed);
      this.core.bookLoad(packed.length / 8);
    } else if (book !== null) for (const [key, score] of book.scoreEntries()) this.core.bookAdd(key, score);
    this.syncedBook = book;
    this.syncedRevision = book?.revision ?? 0;
  }
}
