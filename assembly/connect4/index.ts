// The Connect Four solver's search in WebAssembly: Pons' final solver (negamax with alpha-beta,
// transposition table, move sorter, pruning of losing moves, null-window iteration), the same
// algorithm, in the same order, as the TypeScript reference (src/games/connect4/solver/
// search-ts.ts), so both visit exactly the same nodes. The JavaScript side (search-wasm.ts) owns
// the clock: every CHECK_INTERVAL nodes the search calls the imported `checkpoint`, which throws
// (through the wasm frames) when the deadline has passed; the table stays valid, since an entry is
// written only once its node is complete.

import { BOARD, BOTTOM, CELLS, columnMask, join, mirrorKey, WIDTH, winning } from './bitboard';
import {
  adopt,
  attachThread as attachScratch,
  bookDepth,
  bookGet,
  C_CUR,
  C_DONE,
  C_HELPER_NODES,
  C_MASK,
  C_MOVES,
  C_BATCH,
  C_PARSED,
  C_RESULT,
  C_ROTATE,
  C_SHARE,
  C_STOP,
  C_TEXT,
  C_WEAK,
  bucketShift,
  canGrow,
  CLAIM_LOG,
  CLAIMS,
  CONTROL,
  followLayout,
  generation,
  growTable,
  NO_SCORE,
  PAYLOAD_BITS,
  place,
  STONES_SHIFT,
  scratchBase,
  tableBase,
  tableSize,
  tableSlotCount,
  tableWays,
  thread,
} from './memory';

export { bookAdd, bookLoad, bookReset, bookStage, clearClaims, clearTable, initTable, lineArea } from './memory';

@external('env', 'checkpoint')
declare function checkpoint(nodes: f64): void;

/** Pons' bounds on a score when nobody can win on the next move. */
const MIN_SCORE: i32 = -(CELLS >> 1) + 3;
const MAX_SCORE: i32 = ((CELLS + 1) >> 1) - 3;
/** Stored values (Pons part 12): upper bounds in 1…37, lower bounds in 38…74; 0 = empty. */
const UPPER_OFFSET: i32 = 1 - MIN_SCORE;
const LOWER_OFFSET: i32 = MAX_SCORE - 2 * MIN_SCORE + 2;
const LOWER_THRESHOLD: u32 = <u32>(MAX_SCORE - MIN_SCORE + 1);
/** The bits a hit must match: the key's and the generation's (memory.ts tableBase: key bits, value, stones, generation). */
const TAG_BITS: u64 = ~PAYLOAD_BITS;

const CHECK_INTERVAL: u64 = 1 << 16;

/** Negamax calls since the last setNodes (Pons' count) and the count at the next checkpoint. */
let nodes: u64 = 0;
let nextCheck: u64 = CHECK_INTERVAL;

/**
 * Move lists of this instance's thread (memory.ts), one row of 8 per ply: the sort keys (score ·
 * 8 + priority, i32), and per priority the move's cell and its threat cells (u64).
 */
let KEYS: usize = 0;
let MOVES: usize = 0;
let WINS: usize = 0;

function placeScratch(): void {
  KEYS = scratchBase;
  MOVES = scratchBase + (CELLS + 1) * 8 * 4;
  WINS = MOVES + (CELLS + 1) * 8 * 8;
}
placeScratch();

/**
 * How a helper thread varies its order (lazy SMP): at the root (`variedAt` stones) helper t tries
 * the moves in Pons' order rotated by t, so that it starts on another subtree than the main search
 * and leaves that subtree's bounds in the shared table; below the root it keeps Pons' order, the
 * cheapest one; below it the threads share the work through their claims (negamax, shareBelow).
 * (Measured on Middle-Medium with 2 threads, one table for the set: with the rotation alone the
 * main search visited 0.83 of its lone nodes; with the claims as well 0.61–0.67, the two together
 * ~1.2.) −1 in the main search: exactly Pons' order, his node counts.
 */
let variedAt: i32 = -1;
let rotation: i32 = 0;

/**
 * Nodes with fewer stones than this share their moves with the other threads (negamax); 0 while
 * a search runs alone, so that it visits exactly Pons' nodes.
 */
let shareBelow: i32 = 0;

/** Sets shareBelow for this instance (the main search: when helpers join it and when they leave). */
export function setShare(below: i32, rotate: i32): void {
  shareBelow = below;
  store<i32>(CONTROL + C_SHARE, below);
  store<i32>(CONTROL + C_ROTATE, rotate);
}

export function getNodes(): f64 {
  return <f64>nodes;
}

export function setNodes(count: f64): void {
  nodes = <u64>count;
  nextCheck = nodes + mainInterval;
  // A count set back (Solver.reset) must not hold off the table's growth (reachCheck).
  if (grownAt > nodes) grownAt = nodes;
  if (solveStart > nodes) solveStart = nodes;
}

/** Brings the next checkpoint close (a deadline was set). */
export function checkSoon(): void {
  if (nextCheck > nodes + 1024) nextCheck = nodes + 1024;
}

/**
 * Helpers look at the stop flag this often (every node would cost a shared load): within ~50 µs,
 * since the main search waits for its helpers to let go of a job before it returns.
 */
const HELPER_CHECK: u64 = 256;
/** Helper nodes between two additions to C_HELPER_NODES. */
const HELPER_REPORT: u64 = 1 << 16;

/**
 * The node count passed the next check: a helper looks whether it should stop, the main search
 * whether a helper has finished its job (the JavaScript side also starts helpers from here, and
 * throws when a deadline passed). Leaving is a trap: the JavaScript side catches it, the table
 * stays valid (an entry is written only once its node is complete).
 */
// @ts-ignore: decorator
@inline function reachCheck(count: u64): void {
  if (thread != 0) {
    nextCheck = count + HELPER_CHECK;
    // The node count goes into the control block, which the main search reads, now and then.
    const stop = atomic.load<i32>(CONTROL + C_STOP) != 0;
    if (stop || count - reported >= HELPER_REPORT) {
      atomic.add<u64>(CONTROL + C_HELPER_NODES, count - reported);
      reported = count;
    }
    if (stop) unreachable();
    // If the main search grew the table: probe and store with its new size from now on.
    followLayout();
    return;
  }
  nextCheck = count + mainInterval;
  // This solve has run GROW_AFTER times more nodes than the table has slots (since it began or
  // the table last grew): it needs a larger table. Not counted across solves: a set of short
  // solves keeps its small table, whose probes stay in the caches.
  const since = grownAt > solveStart ? grownAt : solveStart;
  if (count > since && count - since > tableSlotCount() * GROW_AFTER) growNow();
  if (atomic.load<i32>(CONTROL + C_DONE) != 0) unreachable();
  checkpoint(<f64>count);
}

/** Nodes between two checks of the main search: CHECK_INTERVAL, less while helpers work with it. */
let mainInterval: u64 = CHECK_INTERVAL;
/** The main search's node count when the table last grew, and when the current solve began. */
let grownAt: u64 = 0;
let solveStart: u64 = 0;
/** How many times its slots a solve's nodes may be before the table grows (memory.ts growTable). */
const GROW_AFTER: u64 = 4;
/** A helper's node count when it last added to C_HELPER_NODES. */
let reported: u64 = 0;

/** Sets the main search's check interval and brings its next check within it. */
export function setCheckInterval(interval: f64): void {
  mainInterval = <u64>interval;
  const at = nodes + mainInterval;
  if (nextCheck > at) nextCheck = at;
}

/** The table's slots now (it may grow, memory.ts growTable). */
export function tableSlots(): f64 {
  return <f64>tableSlotCount();
}

/** Grows the table now, as a solve that outgrows it does (reachCheck); false at its largest size. */
export function growNow(): bool {
  if (!canGrow()) return false;
  growTable();
  grownAt = nodes;
  return true;
}

/** Where the control block is (memory.ts), for the JavaScript side. */
export function controlBlock(): f64 {
  return <f64>CONTROL;
}

/**
 * Candidate `col` of the sorter, at priority `prio` (6 for the centre column down to 0 for the
 * outer ones): its key goes into the sorted keys by insertion, exactly as Pons' MoveSorter::add
 * places a score (higher priority is added later, so it goes after equal scores and is tried
 * first). Returns the new size.
 */
// @ts-ignore: decorator
@inline function add(possible: u64, cur: u64, mask: u64, col: i32, prio: i32, row: usize, size: i32): i32 {
  const move = possible & columnMask(col);
  if (move == 0) return size;
  const win = winning(cur | move, mask);
  const key = (<i32>popcnt<u64>(win) << 3) | prio;
  store<u64>(MOVES + ((row + <usize>prio) << 3), move);
  store<u64>(WINS + ((row + <usize>prio) << 3), win);
  let at = KEYS + ((row + <usize>size) << 2);
  const first = KEYS + (row << 2);
  while (at > first) {
    const before = load<i32>(at - 4);
    if (before <= key) break;
    store<i32>(at, before);
    at -= 4;
  }
  store<i32>(at, key);
  return size + 1;
}

/**
 * Assumes nobody has won and the side to move cannot win at once. Returns the exact score if it
 * lies in [alpha, beta], else a bound on the far side of the window. `opp` holds the empty cells
 * where the opponent would make a four (Pons' opponent_winning_position), computed by the parent
 * when it scored this move.
 */
function negamax(cur: u64, mask: u64, n: i32, alpha: i32, beta: i32, opp: u64): i32 {
  const count = nodes + 1;
  nodes = count;
  if (count >= nextCheck) reachCheck(count);

  // Start the table probe first: its cache miss overlaps with the bit work below.
  const key = cur + mask;
  const slot = tableBase + (<usize>(key % tableSize) << bucketShift());
  let entry = load<u64>(slot);

  // Possible non-losing moves.
  let possible = (mask + BOTTOM) & BOARD;
  const forced = possible & opp;
  if (forced != 0) {
    // Two opponent wins at once cannot both be stopped.
    if ((forced & (forced - 1)) != 0) return -((CELLS - n) >> 1);
    possible = forced;
  }
  possible &= ~(opp >> 1);
  if (possible == 0) return -((CELLS - n) >> 1);

  if (n >= CELLS - 2) return 0;

  let min = -((CELLS - 2 - n) >> 1);
  if (alpha < min) {
    alpha = min;
    if (alpha >= beta) return alpha;
  }
  let max = (CELLS - 1 - n) >> 1;
  if (beta > max) {
    beta = max;
    if (alpha >= beta) return beta;
  }

  // A hit: the same low 32 key bits, written in this generation (then the value is never 0).
  const tag = <u64>(<u32>key) | generation;
  if ((entry & TAG_BITS) != tag && tableWays == 2) entry = load<u64>(slot + 8);
  if ((entry & TAG_BITS) == tag) {
    const stored = <u32>(entry >> 32) & 0xff;
    if (stored > LOWER_THRESHOLD) {
      min = <i32>stored - LOWER_OFFSET;
      if (alpha < min) {
        alpha = min;
        if (alpha >= beta) return alpha;
      }
    } else {
      max = <i32>stored - UPPER_OFFSET;
      if (beta > max) {
        beta = max;
        if (alpha >= beta) return beta;
      }
    }
  }

  if (n <= bookDepth) {
    const mirror = mirrorKey(key);
    const score = bookGet(key < mirror ? key : mirror);
    if (score != NO_SCORE) return score;
  }

  // Pons adds the columns in the reverse of his order 3, 2, 4, 1, 5, 0, 6.
  const row = <usize>n << 3;
  let size = 0;
  size = add(possible, cur, mask, 6, 0, row, size);
  size = add(possible, cur, mask, 0, 1, row, size);
  size = add(possible, cur, mask, 5, 2, row, size);
  size = add(possible, cur, mask, 1, 3, row, size);
  size = add(possible, cur, mask, 4, 4, row, size);
  size = add(possible, cur, mask, 2, 5, row, size);
  size = add(possible, cur, mask, 3, 6, row, size);

  const next = cur ^ mask;
  if (n >= shareBelow) {
    // Alone (or near the end): Pons' loop.
    const turn = n == variedAt && size > 1 ? rotation % size : 0;
    for (let i = size - 1; i >= 0; i--) {
      let k = i - turn;
      if (k < 0) k += size;
      const prio = <usize>(load<i32>(KEYS + ((row + <usize>k) << 2)) & 7);
      const childMask = mask | load<u64>(MOVES + ((row + prio) << 3));
      // The child's mask now covers the move's cell, so it leaves the threat cells.
      const threats = load<u64>(WINS + ((row + prio) << 3)) & ~childMask;
      const score = -negamax(next, childMask, n + 1, -beta, -alpha, threats);
      if (score >= beta) {
        place(slot, tag | (<u64>(score + LOWER_OFFSET) << 32) | (<u64>n << STONES_SHIFT), n);
        return score;
      }
      if (score > alpha) alpha = score;
    }
    place(slot, tag | (<u64>(alpha + UPPER_OFFSET) << 32) | (<u64>n << STONES_SHIFT), n);
    return alpha;
  }

  // Sharing the work with other threads (simplified ABDADA): after its first move, a node skips
  // the moves another thread is searching right now and comes back to them at the end, when their
  // bounds are likely in the table; the moves it searches itself it claims meanwhile.
  const turn = n == variedAt && size > 1 ? rotation % size : 0;
  let deferred = 0;
  let pass = 0;
  for (;;) {
    for (let i = size - 1; i >= 0; i--) {
      if (pass != 0 && (deferred & (1 << i)) == 0) continue;
      let k = i - turn;
      if (k < 0) k += size;
      const prio = <usize>(load<i32>(KEYS + ((row + <usize>k) << 2)) & 7);
      const childMask = mask | load<u64>(MOVES + ((row + prio) << 3));
      let claim: usize = 0;
      const childKey = next + childMask;
      if (pass == 0 && i != size - 1) {
        claim = CLAIMS + <usize>(((childKey * 0x9e3779b97f4a7c15) >> (64 - CLAIM_LOG)) << 3);
        if (load<u64>(claim) == childKey) {
          deferred |= 1 << i;
          continue;
        }
        store<u64>(claim, childKey);
      }
      const threats = load<u64>(WINS + ((row + prio) << 3)) & ~childMask;
      const score = -negamax(next, childMask, n + 1, -beta, -alpha, threats);
      if (claim != 0 && load<u64>(claim) == childKey) store<u64>(claim, 0);
      if (score >= beta) {
        place(slot, tag | (<u64>(score + LOWER_OFFSET) << 32) | (<u64>n << STONES_SHIFT), n);
        return score;
      }
      if (score > alpha) alpha = score;
    }
    if (pass != 0 || deferred == 0) break;
    pass = 1;
  }

  place(slot, tag | (<u64>(alpha + UPPER_OFFSET) << 32) | (<u64>n << STONES_SHIFT), n);
  return alpha;
}

// @ts-ignore: decorator
@inline function canWinNext(cur: u64, mask: u64): bool {
  return (winning(cur, mask) & (mask + BOTTOM) & BOARD) != 0;
}

/** One negamax call on a position (as the TypeScript words) whose side to move cannot win at once. */
export function probe(curLo: i32, curHi: i32, maskLo: i32, maskHi: i32, n: i32, alpha: i32, beta: i32): i32 {
  const cur = join(curLo, curHi);
  const mask = join(maskLo, maskHi);
  return negamax(cur, mask, n, alpha, beta, winning(cur ^ mask, mask));
}

/** Whether the stones `pos` hold a four (Pons' alignment). */
// @ts-ignore: decorator
@inline function hasFour(pos: u64): bool {
  let m = pos & (pos >> 7);
  if ((m & (m >> 14)) != 0) return true;
  m = pos & (pos >> 6);
  if ((m & (m >> 12)) != 0) return true;
  m = pos & (pos >> 8);
  if ((m & (m >> 16)) != 0) return true;
  m = pos & (pos >> 1);
  return (m & (m >> 2)) != 0;
}

/** The position the last successful `parsed` made. */
let parsedCur: u64 = 0;
let parsedMask: u64 = 0;

/**
 * Reads `length` bytes of Pons' notation at `at`: true, with the position in parsedCur and
 * parsedMask, if every one is a column 1–7 with room and neither side has a four at the end (then
 * no move followed one either); else false (the JavaScript side then words what is wrong).
 */
function parsed(at: usize, length: i32): bool {
  let cur: u64 = 0;
  let mask: u64 = 0;
  for (let i = 0; i < length; i++) {
    const col = <i32>load<u8>(at + <usize>i) - 0x31;
    if (col < 0 || col >= WIDTH) return false;
    const bottom = <u64>1 << (<u64>(col * 7));
    if ((mask & (bottom << 5)) != 0) return false;
    cur ^= mask;
    mask |= mask + bottom;
  }
  if (hasFour(cur) || hasFour(cur ^ mask)) return false;
  parsedCur = cur;
  parsedMask = mask;
  return true;
}

/**
 * `parsed` on the `length` bytes at C_TEXT, leaving the position at C_PARSED (as the TypeScript
 * words cur lo, cur hi, mask lo, mask hi): 1 if it is a plain valid unfinished one, else 0. The
 * common case of `solve`'s input lines, without running cold JavaScript over every move.
 */
export function parseMoves(length: i32): i32 {
  if (!parsed(CONTROL + C_TEXT, length)) return 0;
  store<i32>(CONTROL + C_PARSED, <i32>(parsedCur & 0xfffffff));
  store<i32>(CONTROL + C_PARSED + 4, <i32>(parsedCur >> 28));
  store<i32>(CONTROL + C_PARSED + 8, <i32>(parsedMask & 0xfffffff));
  store<i32>(CONTROL + C_PARSED + 12, <i32>(parsedMask >> 28));
  return 1;
}

// @ts-ignore: decorator
@inline function isBlank(c: u32): bool {
  return c == 32 || (c >= 9 && c <= 13);
}

/**
 * `solve`'s input lines, solved in here: no JavaScript runs per line (in a fresh process that
 * JavaScript runs cold, slower than the searches of a set of easy positions). Reads the `length`
 * bytes at `input` — whole lines, each ended by \n, \r\n or \r — and writes `<moves> <score>\n`
 * for each to `output`, skipping blank lines; after each line the control block holds the input
 * consumed, the lines consumed and the output written (C_BATCH). Returns 0 when the input is done,
 * 2 after `most` lines, and 1 at a line the JavaScript side must take: one that is not plain
 * ASCII `<moves>` or `<moves> <score>` with valid moves of an unfinished game (it words the
 * error). A solve that reaches its first checkpoint is left the same way by the JavaScript side
 * (its checkpoint throws, search-wasm.ts): a long solve gets the progress, the helpers and the
 * flush of the results before it there; what the search stored meanwhile stays in the table.
 */
export function solveLines(input: usize, length: i32, output: usize, most: i32, weak: bool): i32 {
  let at: usize = input;
  const end = input + <usize>length;
  let out = output;
  let lines = 0;
  store<i32>(CONTROL + C_BATCH, 0);
  store<i32>(CONTROL + C_BATCH + 4, 0);
  store<i32>(CONTROL + C_BATCH + 8, 0);
  while (at < end) {
    if (lines == most) return 2;
    // The line: [at, stop); the next one starts after its \n, \r or \r\n.
    let stop = at;
    while (stop < end && load<u8>(stop) != 10 && load<u8>(stop) != 13) stop++;
    let next = stop + 1;
    if (stop + 1 < end && load<u8>(stop) == 13 && load<u8>(stop + 1) == 10) next++;
    let from = at;
    let to = stop;
    while (from < to && isBlank(load<u8>(from))) from++;
    while (to > from && isBlank(load<u8>(to - 1))) to--;
    if (from < to) {
      // <moves>, then optionally blanks and a whole number; nothing else, nothing beyond ASCII.
      let movesEnd = from;
      while (movesEnd < to && !isBlank(load<u8>(movesEnd))) movesEnd++;
      if (movesEnd < to) {
        let i = movesEnd;
        while (isBlank(load<u8>(i))) i++;
        if (load<u8>(i) == 45) i++;
        const digits = i;
        while (i < to && load<u8>(i) >= 48 && load<u8>(i) <= 57) i++;
        if (i != to || i == digits) return 1;
      }
      const n = <i32>(movesEnd - from);
      if (n > CELLS || !parsed(from, n)) return 1;
      // The checkpoint that sends a long solve back counts from this solve's start.
      nextCheck = nodes + mainInterval;
      const score = solvePosition(parsedCur, parsedMask, n, weak);
      memory.copy(out, from, <usize>n);
      out += <usize>n;
      store<u8>(out++, 32);
      let value = score;
      if (value < 0) {
        store<u8>(out++, 45);
        value = -value;
      }
      if (value >= 10) store<u8>(out++, <u8>(48 + value / 10));
      store<u8>(out++, <u8>(48 + value % 10));
      store<u8>(out++, 10);
    }
    at = next < end ? next : end;
    lines++;
    store<i32>(CONTROL + C_BATCH, <i32>(at - input));
    store<i32>(CONTROL + C_BATCH + 4, lines);
    store<i32>(CONTROL + C_BATCH + 8, <i32>(out - output));
  }
  return 0;
}

/** C++ integer division by 2 (towards zero). */
// @ts-ignore: decorator
@inline function half(x: i32): i32 {
  return x / 2;
}

/**
 * The exact score of a position in which nobody has won yet (Pons' solve): probe the middle of
 * [min, max] with a null window, biased towards 0, until min = max. `weak` only tells the sign.
 */
export function solve(curLo: i32, curHi: i32, maskLo: i32, maskHi: i32, n: i32, weak: bool): i32 {
  return solvePosition(join(curLo, curHi), join(maskLo, maskHi), n, weak);
}

function solvePosition(cur: u64, mask: u64, n: i32, weak: bool): i32 {
  solveStart = nodes;
  if (canWinNext(cur, mask)) return (CELLS + 1 - n) >> 1;
  let min = -((CELLS - n) >> 1);
  let max = (CELLS + 1 - n) >> 1;
  if (weak) {
    min = -1;
    max = 1;
  }
  return narrow(cur, mask, n, weak, min, max);
}

/** Pons' loop of null-window probes that narrows [min, max] to the score. */
function narrow(cur: u64, mask: u64, n: i32, weak: bool, min: i32, max: i32): i32 {
  const opp = winning(cur ^ mask, mask);
  while (min < max) {
    let med = min + half(max - min);
    if (med <= 0 && half(min) < med) med = half(min);
    else if (med >= 0 && half(max) > med) med = half(max);
    const r = negamax(cur, mask, n, med, med + 1, opp);
    if (r <= med) max = r;
    else min = r;
  }
  // A weak search may end on a bound beyond ±1; only its sign is meant.
  if (weak) return min > 0 ? 1 : min < 0 ? -1 : 0;
  return min;
}

/**
 * A helper thread's job (lazy SMP): the position the main search is solving (control block),
 * solved the same way with the shared table but in a varied order. If it finishes first, it
 * stores the score and raises C_DONE, which stops the main search at its next check (the
 * JavaScript side then takes this score). Traps when told to stop; the caller counts C_BUSY.
 */
export function helperSolve(): void {
  adopt();
  placeScratch();
  reported = nodes;
  nextCheck = nodes + HELPER_CHECK;
  const cur = load<u64>(CONTROL + C_CUR);
  const mask = load<u64>(CONTROL + C_MASK);
  const n = load<i32>(CONTROL + C_MOVES);
  const weak = load<i32>(CONTROL + C_WEAK) != 0;
  shareBelow = load<i32>(CONTROL + C_SHARE);
  variedAt = load<i32>(CONTROL + C_ROTATE) != 0 ? n : -1;
  let min = weak ? -1 : -((CELLS - n) >> 1);
  let max = weak ? 1 : (CELLS + 1 - n) >> 1;
  const score = narrow(cur, mask, n, weak, min, max);
  atomic.add<u64>(CONTROL + C_HELPER_NODES, nodes - reported);
  reported = nodes;
  if (atomic.cmpxchg<i32>(CONTROL + C_DONE, 0, 1) == 0) {
    store<i32>(CONTROL + C_RESULT, score);
    atomic.store<i32>(CONTROL + C_DONE, 2);
  }
}

/** Makes this instance helper `index` (1…MAX_THREADS − 1): its own move lists and rotation. */
export function attachThread(index: i32): void {
  attachScratch(index);
  rotation = index;
}

/** The helpers' node count so far (their finished and stopped jobs). */
export function helperNodes(): f64 {
  return <f64>atomic.load<u64>(CONTROL + C_HELPER_NODES);
}
