// Linear memory, shared by the instances of one Solver (the main search and its helper threads,
// search-wasm.ts): the control block (the layout values below, for the helpers, and the job the
// helpers work on), the move lists of each thread, the transposition table (from initTable), then
// the opening book's hash table (from bookReset). Nothing is ever freed. Everything lives above
// __heap_base, so that no data segment of a helper's instantiation writes over it.

/** Table slots: the smallest prime ≥ 2^tableLog (Pons). */
export let tableSize: u64 = 0;
/** The table's size now (log2, rounded up to the prime) and the most it may grow to (growTable). */
export let tableLog: i32 = 0;
let tableMaxLog: i32 = 0;
/** Byte address of slot 0; a slot is 8 bytes: the low 32 key bits, the value, the generation. */
export let tableBase: usize = 0;

export let bookBase: usize = 0;
/** Slots of the book's hash table (a power of two); 0 = no book. */
export let bookSlots: u32 = 0;
/** The book's depth (most stones of an entry); −1 = no book, so no node looks it up. */
export let bookDepth: i32 = -1;

/** Threads one memory can serve (each has its own move lists). */
export const MAX_THREADS: i32 = 16;
/** Bytes of one thread's move lists: keys (i32), moves and threat cells (u64), 8 a ply. */
const SCRATCH_BYTES: usize = 8192;

/** The control block (64-byte aligned, 256 bytes); offsets below. */
export const CONTROL: usize = (__heap_base + 63) & ~(<usize>63);
/** i32: incremented for every new job of the helpers. */
export const C_SEQ: usize = 0;
/** i32: nonzero tells every thread to leave the current job (see index.ts stopRequested). */
export const C_STOP: usize = 4;
/** i32: helpers inside a job. */
export const C_BUSY: usize = 8;
/** i32: 0, or 1 once some thread found the job's score (stored at C_RESULT). */
export const C_DONE: usize = 12;
export const C_RESULT: usize = 16;
/** i32 stones, i32 weak flag, u64 cur and mask: the job's position. */
export const C_MOVES: usize = 20;
export const C_WEAK: usize = 24;
export const C_CUR: usize = 32;
export const C_MASK: usize = 40;
/** The layout values of this file, copied into a helper's globals at the start of a job. */
// (48: unused since the table's size went into C_LAYOUT.)
const C_TABLE_BASE: usize = 56;
const C_BOOK_BASE: usize = 60;
const C_BOOK_SLOTS: usize = 64;
const C_BOOK_DEPTH: usize = 68;
/**
 * u64: the table's generation (bits 40–63) with its size's log2 (bits 0–7), in one word so that a
 * helper reads both at once (growTable changes both while helpers may be searching).
 */
const C_LAYOUT: usize = 72;
/** u64: negamax calls of the helpers (added at the end of each of their jobs). */
export const C_HELPER_NODES: usize = 80;
/** i32: the job's shareBelow (index.ts); i32: nonzero if helpers also rotate their root moves. */
export const C_SHARE: usize = 88;
export const C_ROTATE: usize = 92;
const SCRATCH: usize = CONTROL + 256;

/**
 * The moves being searched right now by some thread (simplified ABDADA, index.ts): 2^CLAIM_LOG u64
 * child keys, hashed; a hint only (a lost or stale claim changes an order, never a score).
 */
export const CLAIM_LOG: u64 = 15;
export const CLAIMS: usize = SCRATCH + <usize>MAX_THREADS * SCRATCH_BYTES;
const CLAIM_BYTES: usize = <usize>8 << <usize>CLAIM_LOG;

/** Forgets every claim (the main instance, while no helper works). */
export function clearClaims(): void {
  memory.fill(CLAIMS, 0, CLAIM_BYTES);
}

/** This instance's thread (0: the main search) and its move lists. */
export let thread: i32 = 0;
export let scratchBase: usize = SCRATCH;

/** Grows the memory to cover `end` bytes; false if the engine refuses. */
export function reserve(end: usize): bool {
  const have = <usize>memory.size() << 16;
  if (end <= have) return true;
  const pages = <i32>((end - have + 0xffff) >> 16);
  return memory.grow(pages) >= 0;
}

function isPrime(n: u64): bool {
  for (let d: u64 = 2; d * d <= n; d++) if (n % d == 0) return false;
  return true;
}

/** The smallest prime ≥ 2^log. */
function slotsFor(log: i32): u64 {
  let size: u64 = <u64>1 << (<u64>log);
  while (!isPrime(size)) size++;
  return size;
}

/**
 * Sets the table up (once per instance): 2^startLog slots (rounded up to a prime) now, growing
 * toward 2^logSize as the search fills it (growTable); startLog ≥ logSize gives the fixed table of
 * 2^logSize slots. The memory for the largest size is reserved at once, but a page of it costs a
 * page fault only when first written, so a small table makes a fresh process's short solves cheap.
 * Returns the largest slot count, or 0 if memory ran out.
 */
export function initTable(logSize: i32, startLog: i32): f64 {
  const most = slotsFor(logSize);
  const base = CLAIMS + CLAIM_BYTES;
  if (!reserve(base + <usize>(most << 3))) return 0;
  tableMaxLog = logSize;
  tableLog = startLog < logSize ? startLog : logSize;
  tableSize = tableLog == logSize ? most : slotsFor(tableLog);
  tableBase = base;
  bookBase = base + <usize>(most << 3);
  publish();
  return <f64>most;
}

/** Steps of growTable: 2^2 times the slots each time. */
const GROW_STEP: i32 = 2;

/** Whether growTable would make the table larger. */
export function canGrow(): bool {
  return tableLog < tableMaxLog;
}

/**
 * Makes the table 2^GROW_STEP times larger (at most its largest size), emptied: an entry's slot
 * depends on the size and keeps only 32 key bits, so no entry can move; the new generation makes
 * every old one count as empty (a thread still on the old layout stores entries nobody on the new
 * one can take for its own). Main instance only.
 */
export function growTable(): void {
  tableLog = tableLog + GROW_STEP < tableMaxLog ? tableLog + GROW_STEP : tableMaxLog;
  tableSize = slotsFor(tableLog);
  nextGeneration();
  publish();
}

/**
 * Writes every page of the table once (an atomic add of 0: never changes an entry another thread
 * stores meanwhile), so that its page faults are taken here, by a helper thread that has nothing
 * else to do yet, and not one at a time inside the searches.
 */
export function touchTable(): void {
  adopt();
  const end = tableBase + <usize>(tableSize << 3);
  for (let at = tableBase & ~(<usize>4095); at < end; at += 4096) {
    if (at >= tableBase) atomic.add<u32>(at, 0);
  }
}

/** Writes the layout values into the control block (main instance, after each change). */
function publish(): void {
  store<u32>(CONTROL + C_TABLE_BASE, <u32>tableBase);
  store<u32>(CONTROL + C_BOOK_BASE, <u32>bookBase);
  store<u32>(CONTROL + C_BOOK_SLOTS, bookSlots);
  store<i32>(CONTROL + C_BOOK_DEPTH, bookDepth);
  atomic.store<u64>(CONTROL + C_LAYOUT, generation | <u64>tableLog);
}

/** A helper instance: its thread number (1…MAX_THREADS − 1) picks its own move lists. */
export function attachThread(index: i32): void {
  thread = index;
  scratchBase = SCRATCH + <usize>index * SCRATCH_BYTES;
}

/** A helper takes the main instance's layout values (at the start of every job). */
export function adopt(): void {
  tableBase = <usize>load<u32>(CONTROL + C_TABLE_BASE);
  bookBase = <usize>load<u32>(CONTROL + C_BOOK_BASE);
  bookSlots = load<u32>(CONTROL + C_BOOK_SLOTS);
  bookDepth = load<i32>(CONTROL + C_BOOK_DEPTH);
  followLayout();
}

/**
 * A helper takes the table's generation and size if the main instance changed them (its job
 * start, and its checks during a job): both from one atomic word, so that it never probes with
 * one layout's size and another's generation — which could take another position's entry for its
 * own. Only the size's log2 is in the word; the prime is computed here when it changes.
 */
export function followLayout(): void {
  const word = atomic.load<u64>(CONTROL + C_LAYOUT);
  const log = <i32>(word & 0xff);
  generation = word & ~(<u64>0xff);
  // (A new helper's tableSize is 0, so its first job computes it even for a fixed table.)
  if (log != tableLog || tableSize == 0) {
    tableLog = log;
    tableSize = slotsFor(log);
  }
}

/**
 * The table's generation, kept in bits 40–63 of every entry (bits 32–39 hold the value): an entry
 * of an older generation counts as empty. So a clear costs nothing, instead of writing 64 MB and
 * evicting every cache line the next search needs; the memory is wiped only when the 24 bits wrap.
 */
export let generation: u64 = <u64>1 << 40;

export function clearTable(): void {
  nextGeneration();
  publish();
}

function nextGeneration(): void {
  generation += <u64>1 << 40;
  if (generation == 0) {
    // The table only grows, so nothing was ever written beyond its size now.
    memory.fill(tableBase, 0, <usize>(tableSize << 3));
    generation = <u64>1 << 40;
  }
}

/**
 * Empties the book and sizes its hash table for `entries` entries (16 bytes a slot: key + 1, so
 * that 0 marks an empty slot even for the empty board's key 0, then the score).
 */
export function bookReset(depth: i32, entries: i32): bool {
  bookDepth = -1;
  bookSlots = 0;
  publish();
  if (depth < 0) return true;
  let slots: u32 = 16;
  while (slots < <u32>entries * 2) slots <<= 1;
  if (!reserve(bookBase + (<usize>slots << 4))) return false;
  memory.fill(bookBase, 0, <usize>slots << 4);
  bookSlots = slots;
  bookDepth = depth;
  publish();
  return true;
}

// @ts-ignore: decorator
@inline function bookHash(key: u64): u32 {
  return <u32>((key * 0x9e3779b97f4a7c15) >> 32) & (bookSlots - 1);
}

/** Adds a canonical key (an exact integer below 2^49, passed as a double) with its score. */
export function bookAdd(key: f64, score: i32): void {
  const k = <u64>key + 1;
  let i = bookHash(k);
  for (;;) {
    const at = bookBase + (<usize>i << 4);
    const stored = load<u64>(at);
    if (stored == 0 || stored == k) {
      store<u64>(at, k);
      store<i32>(at, score, 8);
      return;
    }
    i = (i + 1) & (bookSlots - 1);
  }
}

/** Where bookLoad reads entries: after the book's hash table; 0 if memory ran out. */
export function bookStage(entries: i32): f64 {
  const at = bookBase + (<usize>bookSlots << 4);
  return reserve(at + (<usize>entries << 3)) ? <f64>at : 0;
}

/**
 * Adds `entries` entries in Book.encode's layout (8 bytes: key in bits 0–48, best columns in
 * 49–55, score + 64 in 56–63) from bookStage's address.
 */
export function bookLoad(entries: i32): void {
  const from = bookBase + (<usize>bookSlots << 4);
  for (let i = 0; i < entries; i++) {
    const word = load<u64>(from + (<usize>i << 3));
    bookAdd(<f64>(word & 0x1ffffffffffff), <i32>(word >> 56) - 64);
  }
}

/** The score stored for a canonical key, or NO_SCORE. */
export const NO_SCORE: i32 = 0x7fffffff;

export function bookGet(key: u64): i32 {
  const k = key + 1;
  let i = bookHash(k);
  for (;;) {
    const at = bookBase + (<usize>i << 4);
    const stored = load<u64>(at);
    if (stored == k) return load<i32>(at, 8);
    if (stored == 0) return NO_SCORE;
    i = (i + 1) & (bookSlots - 1);
  }
  return NO_SCORE;
}
