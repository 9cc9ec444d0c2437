import { fstatSync, readSync, statSync, writeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { ok } from '../../core/result.js';
import { availableParallelism, loadavg } from 'node:os';
import { GROW_FROM, GROW_TO, openingBook, solvablePosition, Solver, SPLIT_AFTER } from './solver/index.js';

/**
 * `spielhalle solve`: Pons' test-set format on stdin and stdout.
 *
 *   spielhalle solve < Test_L3_R1          one `<moves> <score>` line per input line
 *   spielhalle solve 4455 434343           the positions given as arguments
 *   spielhalle solve --best 44             every column's score, then the best column(s)
 *   spielhalle solve --best-move 44        the position's score and one best column (null windows)
 *   spielhalle solve --no-book --threads 1 --reset-each --stats < Test_L1_R1
 *                                          as Pons' own test driver measures (see SolveOptions)
 *
 * An input line is `<moves>` or `<moves> <expected score>` (the expected score is ignored; the
 * output line carries the solver's score). Blank lines are skipped (the empty board is
 * `spielhalle solve --best ""`). An invalid line gives one error line on stderr and the run goes
 * on; the exit code is 1 if any line was invalid. On a terminal, stderr shows a progress line
 * while a solve runs (SolveProgress); stdout is the same either way.
 */

export interface LineResult {
  /** The output line (without newline), or null for a skipped or invalid line. */
  out: string | null;
  /** The stderr line (without newline) for an invalid line. */
  error: string | null;
}

/**
 * Handles one input line; pure apart from the solver's table. `lineNumber` is 1-based. A blank
 * line is skipped unless `blankIsEmptyBoard` (used for command-line arguments, where `""` is the
 * empty board).
 */
export function solveLine(
  line: string,
  lineNumber: number,
  solver: Solver,
  weak = false,
  blankIsEmptyBoard = false,
  progress: SolveProgress | null = null,
  measure: Measure | null = null,
): LineResult {
  const text = line.trim();
  if (text === '' && !blankIsEmptyBoard) return { out: null, error: null };
  const moves = movesOf(text);
  if (moves === null) return { out: null, error: `spielhalle: line ${lineNumber}: ${JSON.stringify(text)}: expected "<moves>" or "<moves> <score>"` };
  const parsed = solver.parse(moves);
  const position = parsed !== null ? ok(parsed) : solvablePosition(moves);
  if (!position.ok) {
    return { out: null, error: `spielhalle: line ${lineNumber}: ${JSON.stringify(moves)}: ${position.error.message}` };
  }
  progress?.start(`line ${lineNumber}: ${moves || '(empty board)'}`);
  try {
    measure?.before();
    const score = solver.solve(position.value, weak);
    measure?.after(moves);
    return { out: `${moves} ${score}`, error: null };
  } finally {
    progress?.stop();
  }
}

/** A space, tab or other whitespace of a line (what \s matches in the ASCII range). */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0xfeff || (c >= 0x2000 && c <= 0x200a) || c === 0x1680 || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/**
 * The moves of a trimmed line `<moves>` or `<moves> <score>` (/^(\S*)(?:\s+(-?\d+))?$/, by hand:
 * a regular expression runs interpreted for its first hundreds of lines in a fresh process), or
 * null if the line is neither.
 */
export function movesOf(text: string): string | null {
  let end = 0;
  while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
  if (end === text.length) return text;
  let i = end;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) === 45) i++;
  const digits = i;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  return i === text.length && i > digits ? text.slice(0, end) : null;
}

/**
 * What `--reset-each` and `--stats` add around each solve: an empty table before it (Pons' test
 * driver), and one stderr line after it: `stats: <moves> <nodes> <helper nodes> <µs wall> <µs
 * CPU>` (CPU of the whole process, helper threads included), then a total line at the end.
 */
export class Measure {
  private wall = 0;
  private cpu = 0;
  private nodes = 0;
  private helper = 0;
  private count = 0;
  private sums = { nodes: 0, helper: 0, wall: 0, cpu: 0 };

  constructor(
    private readonly solver: Solver,
    private readonly out: Sink | null,
    private readonly resetEach: boolean,
  ) {}

  before(): void {
    if (this.resetEach) this.solver.reset();
    this.nodes = this.solver.nodeCount;
    this.helper = this.solver.helperNodes;
    if (this.out === null) return;
    const c = process.cpuUsage();
    this.cpu = c.user + c.system;
    this.wall = performance.now();
  }

  after(moves: string): void {
    if (this.out === null) return;
    const wall = (performance.now() - this.wall) * 1000;
    const c = process.cpuUsage();
    const cpu = c.user + c.system - this.cpu;
    const nodes = this.solver.nodeCount - this.nodes;
    const helper = this.solver.helperNodes - this.helper;
    this.count++;
    this.sums.nodes += nodes;
    this.sums.helper += helper;
    this.sums.wall += wall;
    this.sums.cpu += cpu;
    this.out.write(`stats: ${moves || '-'} ${nodes} ${helper} ${wall.toFixed(1)} ${cpu.toFixed(0)}\n`);
  }

  /** The total line: positions, nodes, helper nodes, wall and CPU µs of the solves alone. */
  total(): void {
    if (this.out === null) return;
    const { nodes, helper, wall, cpu } = this.sums;
    this.out.write(`stats: total ${this.count} positions, ${nodes} nodes, ${helper} helper nodes, ${(wall / 1000).toFixed(1)} ms wall, ${(cpu / 1000).toFixed(1)} ms CPU\n`);
  }
}

/** Where text goes: a stream, or a Gathered in front of one. */
export interface Sink {
  write(text: string): unknown;
}

/**
 * Text for a stream, held until flush() and written in one piece: a test set's 1000 short
 * positions then cost a few writes, not 1000 (each a system call, ~12 ms of a fresh process's
 * ~100 ms on End-Easy).
 */
export class Gathered implements Sink {
  private text = '';

  constructor(readonly target: Sink) {}

  write(text: string): void {
    this.text += text;
  }

  flush(): void {
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    this.target.write(text);
  }
}

/**
 * Standard output or error written with writeSync: no stream to set up (process.stdout alone costs
 * 2–7 ms in a fresh process). A descriptor in non-blocking mode (EAGAIN) gets the rest through
 * the stream; EPIPE (the reader has gone: `solve < set | head`) ends the process quietly, as other
 * filters do.
 */
export class FdSink implements Sink {
  private stream: Sink | null = null;
  private terminal: boolean | null = null;

  constructor(private readonly fd: 1 | 2) {}

  /** Whether the descriptor is a terminal (asked once, when first wanted). */
  get isTTY(): boolean {
    return (this.terminal ??= isTerminal(this.fd));
  }

  write(text: string): void {
    if (this.stream !== null) {
      this.stream.write(text);
      return;
    }
    let data = Buffer.from(text);
    while (data.length > 0) {
      try {
        data = data.subarray(writeSync(this.fd, data));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') readerGone();
        if (code !== 'EAGAIN') throw e;
        const stream = this.fd === 1 ? process.stdout : process.stderr;
        stream.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EPIPE') throw error;
          readerGone();
        });
        this.stream = stream;
        stream.write(data);
        return;
      }
    }
  }
}

/**
 * Whether descriptor `fd` is a terminal. A file, a pipe or /dev/null — what scripts and benchmarks
 * give — is told by fstat alone, without node:tty, whose loading (net, the streams) is ~1.4 ms of
 * a fresh process; only another character device asks tty.isatty.
 */
export function isTerminal(fd: number): boolean {
  let device: number;
  try {
    const stat = fstatSync(fd);
    if (!stat.isCharacterDevice()) return false;
    device = stat.rdev;
  } catch {
    return false;
  }
  if (device === statSync('/dev/null', { throwIfNoEntry: false })?.rdev) return false;
  return process.getBuiltinModule('node:tty').isatty(fd);
}

/** The reader of our output has gone (EPIPE): stop quietly, with the exit code so far. */
function readerGone(): never {
  process.exit(process.exitCode ?? 0);
}

/** How long a result may wait in a Gathered before it is written (solveStream). */
const FLUSH_MS = 50;
/** Lines the core solves in one call before solveStream looks at the clock. */
const CORE_LINES = 256;

/**
 * Reads lines from `input` until it ends (ended by \n, \r\n or \r, as readline reads them),
 * writing the results of each chunk of input together, at the latest FLUSH_MS after the first of
 * them or as soon as a solve runs past its first checkpoint (a few ms), so that a long solve never
 * holds back the results before it.
 */
export async function solveStream(input: Readable | 'stdin', out: Sink, errOut: Sink, solver: Solver, weak = false, measure: Measure | null = null): Promise<number> {
  let invalid = 0;
  let n = 0;
  // (Progress goes to the terminal at once, past the gathered lines.)
  const progress = SolveProgress.onTerminal(errOut instanceof Gathered ? errOut.target : errOut, solver);
  const results = out instanceof Gathered ? out : new Gathered(out);
  const errors = errOut instanceof Gathered ? errOut : new Gathered(errOut);
  let since = -1;
  const flush = (): void => {
    results.flush();
    errors.flush();
    since = -1;
  };
  const flushOnCheck = (): void => {
    if (since >= 0) flush();
  };
  const previous = solver.onCheckpoint;
  solver.onCheckpoint = flushOnCheck;
  // Results are waiting: written at the latest FLUSH_MS after the first of them.
  const waiting = (): void => {
    // (Date.now: the first use of performance loads node:perf_hooks, ~3 ms.)
    const now = Date.now();
    if (since < 0) since = now;
    else if (now - since >= FLUSH_MS) flush();
  };
  const handle = (line: string): void => {
    const r = solveLine(line, ++n, solver, weak, false, progress, measure);
    if (r.out !== null) results.write(`${r.out}\n`);
    if (r.error !== null) {
      errors.write(`${r.error}\n`);
      invalid++;
    }
    waiting();
  };
  const chunks = input === 'stdin' ? stdinChunks() : (input as AsyncIterable<Buffer | string>);
  // Without --stats, --reset-each or progress, the core takes the lines itself where it can
  // (solveLines; never with the TypeScript engine); every other line is this side's.
  const inCore = measure === null && progress === null;
  let rest = Buffer.alloc(0);
  let skipLineFeed = false;
  try {
    for await (const chunk of chunks) {
      let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (skipLineFeed && bytes[0] === 10) bytes = bytes.subarray(1);
      if (rest.length > 0) bytes = Buffer.concat([rest, bytes]);
      // Whole lines now (so never half a UTF-8 character); the rest waits for the next chunk.
      let end = bytes.length;
      while (end > 0 && bytes[end - 1] !== 10 && bytes[end - 1] !== 13) end--;
      rest = Buffer.from(bytes.subarray(end));
      // (An empty chunk keeps waiting for the \n of a \r\n.)
      skipLineFeed = end > 0 ? bytes[end - 1] === 13 : skipLineFeed && bytes.length === 0;
      let done = 0;
      while (done < end) {
        const r = inCore ? solver.solveLines(bytes.subarray(done, end), weak, CORE_LINES) : null;
        if (r !== null) {
          done += r.consumed;
          n += r.lines;
          if (r.text !== '') {
            results.write(r.text);
            waiting();
          }
          if (!r.leftOver || done >= end) continue;
          // A line the core leaves: an error to word, or a long solve (whose progress, helpers and
          // the results before it are this side's).
          flush();
        }
        let stop = done;
        while (stop < end && bytes[stop] !== 10 && bytes[stop] !== 13) stop++;
        handle(bytes.toString('utf8', done, stop));
        done = stop + (bytes[stop] === 13 && stop + 1 < end && bytes[stop + 1] === 10 ? 2 : 1);
      }
      flush();
    }
    if (rest.length > 0) handle(rest.toString('utf8'));
  } finally {
    flush();
    solver.onCheckpoint = previous;
  }
  return invalid > 0 ? 1 : 0;
}

/**
 * Standard input in chunks, read from file descriptor 0 directly while that works: a fresh
 * process then starts on its first line without setting up process.stdin (~5 ms). A solve blocks
 * the thread anyway; a descriptor in non-blocking mode (EAGAIN) goes on through process.stdin.
 */
async function* stdinChunks(): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
        for await (const chunk of process.stdin) yield chunk as Buffer;
        return;
      }
      // A closed or unreadable descriptor: no more input, as the stream would end.
      if ((e as NodeJS.ErrnoException).code === 'EOF' || (e as NodeJS.ErrnoException).code === 'EBADF') return;
      throw e;
    }
    if (n === 0) return;
    yield Buffer.from(buffer.subarray(0, n));
  }
}

/**
 * The `--best` report: line 1 the value of each column 1–7 (`-` for a full column), line 2 the best
 * column(s). The value of a column is the score the side to move gets by playing it (spec §6.2).
 */
export function bestReport(moves: string, solver: Solver, weak = false, progress: SolveProgress | null = null): BestReport {
  const position = solvablePosition(moves);
  if (!position.ok) return { lines: null, error: `spielhalle: ${JSON.stringify(moves)}: ${position.error.message}` };
  if (position.value.moves === 42) return { lines: null, error: `spielhalle: ${JSON.stringify(moves)}: the board is full` };
  progress?.start(moves || '(empty board)');
  let scores: (number | null)[];
  try {
    scores = solver.analyse(position.value, weak, (column, done, count) => progress?.note(`column ${column + 1} (${done + 1} of ${count})`));
  } finally {
    progress?.stop();
  }
  const values = scores.filter((s): s is number => s !== null);
  const best = Math.max(...values);
  const columns = scores.flatMap((s, i) => (s === best ? [i + 1] : []));
  return {
    lines: [scores.map((s) => (s === null ? '-' : String(s))).join(' '), `best: ${columns.join(' ')}`],
    error: null,
  };
}

/**
 * The `--best-move` report: line 1 `score: <score of the position>`, line 2 `best: <one best
 * column>` — Solver.bestMove, the best-move-only search: one exact solve, then null-window tests
 * in the centre-first order up to the first column that reaches the score (--best solves every
 * column exactly, ~3× the work on Begin-Medium). Always the exact score (no --weak).
 */
export function bestMoveReport(moves: string, solver: Solver, progress: SolveProgress | null = null): BestReport {
  const position = solvablePosition(moves);
  if (!position.ok) return { lines: null, error: `spielhalle: ${JSON.stringify(moves)}: ${position.error.message}` };
  if (position.value.moves === 42) return { lines: null, error: `spielhalle: ${JSON.stringify(moves)}: the board is full` };
  progress?.start(moves || '(empty board)');
  try {
    const { score, column } = solver.bestMove(position.value);
    return { lines: [`score: ${score}`, `best: ${column + 1}`], error: null };
  } finally {
    progress?.stop();
  }
}

export interface BestReport {
  lines: string[] | null;
  error: string | null;
}

/**
 * One progress line on a terminal's stderr while a long solve runs (`solving 4453: column 4 (2 of
 * 7), 12.3 M nodes, 4.2 s`), rewritten in place at most every `intervalMs` from the solver's
 * checkpoints and erased when the solve ends, so the results on stdout and any error lines read
 * as without it. Only for a terminal: `onTerminal` gives null for a pipe or a file.
 */
export class SolveProgress {
  private label = '';
  private detail = '';
  private startedAt = 0;
  private startNodes = 0;
  private shownAt = -Infinity;
  private shown = false;
  private before: ((nodes: number) => void) | null = null;

  constructor(
    private readonly out: Sink,
    private readonly solver: Solver,
    private readonly intervalMs = 250,
    private readonly now: () => number = Date.now,
  ) {}

  /** A progress line on `stream` if it is a terminal (isTTY), else null. */
  static onTerminal(stream: Sink, solver: Solver): SolveProgress | null {
    return (stream as Sink & { isTTY?: boolean }).isTTY === true ? new SolveProgress(stream, solver) : null;
  }

  /** A new solve begins: what it is, and from now on its nodes and time count. */
  start(label: string): void {
    this.label = label;
    this.detail = '';
    this.startedAt = this.now();
    this.startNodes = this.solver.nodeCount;
    this.shownAt = this.startedAt;
    // Whoever listened before (solveStream's flush) still hears every checkpoint.
    const before = this.solver.onCheckpoint;
    this.before = before;
    this.solver.onCheckpoint = before === null ? (nodes) => this.tick(nodes) : (nodes) => {
      before(nodes);
      this.tick(nodes);
    };
  }

  /** Where within the solve it is (e.g. the column being searched). */
  note(detail: string): void {
    this.detail = detail;
  }

  /** The solve ended (or failed): erase the line and stop listening. */
  stop(): void {
    this.solver.onCheckpoint = this.before;
    this.before = null;
    if (this.shown) this.out.write('\r\x1b[K');
    this.shown = false;
  }

  private tick(nodes: number): void {
    const now = this.now();
    if (now - this.shownAt < this.intervalMs) return;
    this.shownAt = now;
    const searched = nodes - this.startNodes;
    const count = searched >= 1e6 ? `${(searched / 1e6).toFixed(1)} M` : `${Math.round(searched / 1e3)} k`;
    const seconds = ((now - this.startedAt) / 1000).toFixed(1);
    this.out.write(`\r\x1b[Ksolving ${this.label}${this.detail ? `: ${this.detail}` : ''}, ${count} nodes, ${seconds} s`);
    this.shown = true;
  }
}

/** The options of `spielhalle solve` (commander's names; the fast entry solve-main.ts gives the same). */
export interface SolveOptions {
  best?: string;
  bestMove?: string;
  weak?: boolean;
  /** false for --no-book. */
  book?: boolean;
  tableLog?: string;
  threads?: string;
  resetEach?: boolean;
  stats?: boolean;
}

/**
 * `--threads` when not given: both cores of a two-core machine (helpers join only long solves),
 * unless the machine's 1-minute load average leaves no core idle for the helper. Issue 35: on this
 * 2-vCPU VM at load 3–5 (other jobs), the helper took its time slices from the main search and
 * spun while it waited: Begin-Hard's first 30 positions took 0.91× Pons' CPU with it and 0.40×
 * with one thread (wall 0.51× against 0.40×).
 */
export function defaultThreads(cores = availableParallelism(), load = loadavg()[0] ?? 0): number {
  const threads = Math.min(2, cores);
  return threads > 1 && load > cores - 1 ? 1 : threads;
}

function integerOption(value: string | undefined, flag: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

/**
 * How far `solve`'s table may grow without --table-log: GROW_TO, 2^19 slots (4 MB), reached after
 * ~1 M nodes of one solve (it was 2^25, 256 MB: slower on this machine, see GROW_TO). The empty
 * board without the book then ran 3.96 billion nodes in 251 s of CPU, one thread (docs/connect4.md).
 */
export const SOLVE_GROW_TO = GROW_TO;

/**
 * The solver `solve` uses: the opening book unless --no-book; a table of 2^18 slots growing to
 * 2^SOLVE_GROW_TO (4 MB) within a solve that outgrows it, or a fixed one of 2^N slots with --table-log N
 * (Pons' node counts); and --threads (default defaultThreads()). Without --threads, helpers join a solve
 * after SPLIT_AFTER nodes (~50 ms), so short solves never wake them; with an explicit --threads
 * they join after 4096 nodes (a fraction of a millisecond), which also speeds up mid-sized ones.
 */
export function solverFor(opts: SolveOptions): Solver {
  const tableLog = integerOption(opts.tableLog, '--table-log', 17, 28, SOLVE_GROW_TO);
  const threads = integerOption(opts.threads, '--threads', 1, 16, defaultThreads());
  const splitAfter = opts.threads === undefined ? SPLIT_AFTER : 4096;
  // Without --table-log the table starts small and grows as the positions need it (GROW_FROM).
  const growFrom = opts.tableLog === undefined ? GROW_FROM : tableLog;
  return new Solver({ tableLog, growFrom, threads, splitAfter, book: opts.book === false ? null : openingBook() });
}

/** `spielhalle solve` itself; returns the exit code (usage errors throw UsageError). */
export async function runSolve(positions: string[], opts: SolveOptions): Promise<number> {
  if (opts.best !== undefined && positions.length > 0) throw new UsageError('--best takes one position; give no other positions');
  if (opts.bestMove !== undefined && (positions.length > 0 || opts.best !== undefined)) throw new UsageError('--best-move takes one position; give no other positions and no --best');
  const solver = solverFor(opts);
  const stdout = new FdSink(1);
  const stderr = new FdSink(2);
  try {
    const weak = opts.weak === true;
    if (opts.best !== undefined) {
      const r = bestReport(opts.best, solver, weak, SolveProgress.onTerminal(stderr, solver));
      if (r.lines) stdout.write(r.lines.join('\n') + '\n');
      // The one position of --best is an option's value: a bad one is a usage error (exit 2).
      if (r.error !== null) throw new UsageError(r.error.replace(/^spielhalle: /, '--best '));
      return 0;
    }
    if (opts.bestMove !== undefined) {
      const r = bestMoveReport(opts.bestMove, solver, SolveProgress.onTerminal(stderr, solver));
      if (r.lines) stdout.write(r.lines.join('\n') + '\n');
      if (r.error !== null) throw new UsageError(r.error.replace(/^spielhalle: /, '--best-move '));
      return 0;
    }
    // --stats lines and error lines share stderr, gathered in order (solveStream writes them).
    const errors = new Gathered(stderr);
    const measure = opts.resetEach === true || opts.stats === true ? new Measure(solver, opts.stats === true ? errors : null, opts.resetEach === true) : null;
    let code = 0;
    if (positions.length > 0) {
      const progress = SolveProgress.onTerminal(stderr, solver);
      positions.forEach((p, i) => {
        const r = solveLine(p, i + 1, solver, weak, true, progress, measure);
        if (r.out !== null) stdout.write(`${r.out}\n`);
        if (r.error !== null) {
          errors.write(`${r.error.replace(/^spielhalle: line \d+/, `spielhalle: argument ${i + 1}`)}\n`);
          code = 1;
        }
        errors.flush();
      });
    } else {
      code = await solveStream('stdin', stdout, errors, solver, weak, measure);
    }
    measure?.total();
    errors.flush();
    return code;
  } finally {
    solver.close();
  }
}

export function registerSolveCommand(program: Command): void {
  program
    .command('solve')
    .description('solve Connect Four positions (Pons notation, e.g. 4455): reads lines from stdin, prints "<moves> <score>"')
    .argument('[moves...]', 'positions to solve instead of reading stdin')
    .option('--best <moves>', 'print the score of every column of one position and the best column(s)')
    .option('--best-move <moves>', 'print the exact score of one position and one best column (a best-move-only search: cheaper than --best)')
    .option('--weak', 'only win/draw/loss: scores 1, 0, -1 (faster)')
    .option('--no-book', 'search without the opening book')
    .option('--table-log <n>', 'a fixed transposition table of 2^n slots, 17–28, 8 bytes each (default: 2^18 slots in buckets of two, growing to 2^19 within a solve that needs more)')
    .option('--threads <n>', 'threads per solve, 1–16 (default: 2 on two or more cores unless the load average leaves none idle; helpers join solves that run longer than ~50 ms)')
    .option('--reset-each', 'empty the table before each position (as Pons\' test driver)')
    .option('--stats', 'print "stats: <moves> <nodes> <helper nodes> <µs wall> <µs CPU>" per position and a total line on stderr')
    .action(async (positions: string[], opts: SolveOptions) => {
      const code = await runSolve(positions, opts);
      if (code !== 0) process.exitCode = code;
    });
}
