// Linear memory, shared by the instances of one Solver (the main search and its helper threads,
// search-wasm.ts): the control block (the layout values below, for the helpers, and the job the
// helpers work on), the move lists of each thread, the transposition table (from initTable), then
// the opening book's hash table (from bookReset). Nothing is ever freed. Everything lives above
// __heap_base, so that no data segment of a helper's instantiation writes over it.

/**
 * Table buckets: the smallest prime ≥ 2^tableLog / tableWays (Pons: one slot a bucket). A key's
 * bucket is key % tableSize, so the low 32 key bits a slot keeps tell the key exactly (the
 * Chinese remainder theorem: the key has 49 bits, and the prime is above 2^17).
 */
export let tableSize: u64 = 0;
/**
 * Slots a bucket: 1 for a fixed table (Pons' table, his node counts), 2 for a growing one. A
 * bucket of two is 16 bytes of one cache line, so it costs one miss like a slot: the first slot
 * keeps the entry nearest the root (fewest stones), the second the newest other one. Pons' table
 * keeps only the newest entry, so once a long solve has filled it, the deep positions of every
 * subtree throw out the few near the root that saved the most work (measured on positions of 6–7
 * stones with 2^20 slots: 1.6–3.7× fewer nodes with two slots a bucket in the same memory).
 */
export let tableWays: i32 = 1;
/** The table's size now (log2 of its slots, rounded up to the prime) and the most it may grow to (growTable). */
export let tableLog: i32 = 0;
let tableMaxLog: i32 = 0;
/**
 * Byte address of bucket 0 (64-byte aligned); a slot is 8 bytes: the low 32 key bits, the value
 * (bits 32–39), the position's stones (40–45), the generation (46–63).
 */
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
 * u64: the table's generation (bits 46–63) with its slots a bucket (bits 8–15) and its size's log2
 * (bits 0–7), in one word so that a helper reads them at once (growTable changes the generation
 * and the size while helpers may be searching).
 */
const C_LAYOUT: usize = 72;
/** u64: negamax calls of the helpers (added at the end of each of their jobs). */
export const C_HELPER_NODES: usize = 80;
/** i32: the job's shareBelow (index.ts); i32: nonzero if helpers also rotate their root moves. */
export const C_SHARE: usize = 88;
export const C_ROTATE: usize = 92;
/** Up to 64 bytes: a position's notation for parseMoves (main instance only, index.ts). */
export const C_TEXT: usize = 128;
/** i32 × 4: the position parseMoves made, as the TypeScript words cur lo, cur hi, mask lo, mask hi. */
export const C_PARSED: usize = 192;
/** i32 × 3: solveLines' progress: input bytes consumed, lines consumed, output bytes written. */
export const C_BATCH: usize = 208;
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
function primeFrom(log: i32): u64 {
  let size: u64 = <u64>1 << (<u64>log);
  while (!isPrime(size)) size++;
  return size;
}

/** Buckets of a table of 2^log slots with `ways` slots a bucket. */
function bucketsFor(log: i32, ways: i32): u64 {
  return primeFrom(ways == 2 ? log - 1 : log);
}

/** The table's slots now. */
// @ts-ignore: decorator
@inline export function tableSlotCount(): u64 {
  return tableSize * <u64>tableWays;
}

/** log2 of a bucket's bytes: 8 bytes a slot, tableWays slots. */
// @ts-ignore: decorator
@inline export function bucketShift(): usize {
  return tableWays == 2 ? 4 : 3;
}

/** Bytes the table takes now. */
export function tableBytes(): usize {
  return <usize>tableSlotCount() << 3;
}

/**
 * Sets the table up (once per instance): 2^startLog slots (rounded up to a prime) now, growing
 * toward 2^logSize as the search fills it (growTable), two slots a bucket (startLog ≥ 18); startLog
 * ≥ logSize gives the fixed table of 2^logSize slots, one a bucket (Pons' table). The memory for
 * the largest size is reserved at once, but only the table's size now is written (prefault), so a
 * small table makes a fresh process's short solves cheap. Returns the largest slot
 * count, or 0 if memory ran out.
 */
export function initTable(logSize: i32, startLog: i32): f64 {
  tableWays = startLog < logSize ? 2 : 1;
  const most = bucketsFor(logSize, tableWays) * <u64>tableWays;
  const base = CLAIMS + CLAIM_BYTES;
  if (!reserve(base + <usize>(most << 3))) return 0;
  tableMaxLog = logSize;
  tableLog = startLog < logSize ? startLog : logSize;
  tableSize = bucketsFor(tableLog, tableWays);
  tableBase = base;
  bookBase = base + <usize>(most << 3);
  prefault(tableBase, tableBase + tableBytes());
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
 * Makes the table 2^GROW_STEP times larger (at most its largest size) and moves its entries into
 * their new buckets (rehash), so that a long solve keeps what it has found. Main instance only.
 */
export function growTable(): void {
  const oldSize = tableSize;
  const oldGeneration = generation;
  const oldEnd = tableBase + tableBytes();
  tableLog = tableLog + GROW_STEP < tableMaxLog ? tableLog + GROW_STEP : tableMaxLog;
  tableSize = bucketsFor(tableLog, tableWays);
  prefault(oldEnd, tableBase + tableBytes());
  nextGeneration();
  if (oldGeneration < generation) rehash(oldSize, oldGeneration);
  publish();
}

/** Where an entry keeps its stones (see tableBase), and the bits that are not its tag. */
export const STONES_SHIFT: u64 = 40;
export const PAYLOAD_BITS: u64 = <u64>0x3fff << 32;

/** −p^−1 mod 2^32 for an odd p (Newton's iteration), for the Montgomery reduction of rehash. */
function negInverse32(p: u64): u64 {
  let inv: u64 = p;
  for (let i = 0; i < 5; i++) inv = (inv * (2 - p * inv)) & 0xffffffff;
  return (<u64>0x100000000 - inv) & 0xffffffff;
}

/**
 * Moves the entries of generation `from` out of the buckets of a table of `oldSize` buckets into
 * those of the table now, in place, as entries of the generation now. An entry keeps only the low
 * 32 bits of its key, but its old bucket is key % oldSize, and the two give the whole key back
 * (Chinese remainder theorem: the key is tag + 2^32 · j with j = (bucket − tag) · 2^−32 mod
 * oldSize, and j < 2^17 for a 49-bit key; a larger j marks an entry torn by a racing write, and it
 * is dropped). The old buckets are read in order; an entry is lifted out before it is moved, and
 * if its new bucket holds an old entry not read yet, that one is lifted out in turn and moved next
 * (a chain), so nothing is lost but what two new entries of a full bucket push out. Helpers may
 * store meanwhile: whatever they store in the old layout is of the old generation and moved (or
 * stale), in the new layout of the new one; at worst a racing write loses an entry.
 */
function rehash(oldSize: u64, from: u64): void {
  const waysLog = bucketShift();
  const oldEnd = tableBase + (<usize>oldSize << waysLog);
  const negInverse = negInverse32(oldSize);
  const wrap = oldSize << 32;
  for (let at = tableBase; at < oldEnd; at += 8) {
    let entry = load<u64>(at);
    if ((entry & GENERATION_BITS) != from) continue;
    store<u64>(at, 0);
    let bucket = <u64>((at - tableBase) >> waysLog);
    for (;;) {
      const tag = entry & 0xffffffff;
      // (bucket − tag) · 2^−32 mod oldSize, by Montgomery's reduction (no division): x ≡ bucket −
      // tag, below 2 · oldSize · 2^32; x + m · oldSize is a multiple of 2^32; the quotient is below 3 · oldSize.
      const x = bucket + wrap - tag;
      const m = ((x & 0xffffffff) * negInverse) & 0xffffffff;
      let high = (x + m * oldSize) >> 32;
      while (high >= oldSize) high -= oldSize;
      if (high >= <u64>1 << 17) break;
      const key = tag | (high << 32);
      const moved = (entry & PAYLOAD_BITS) | tag | generation;
      const into = tableBase + (<usize>(key % tableSize) << waysLog);
      // An old entry not read yet in the way: lift it out and move it next.
      let lifted: usize = 0;
      for (let other = into; other < into + (<usize>1 << waysLog); other += 8) {
        if (other > at && other < oldEnd && (load<u64>(other) & GENERATION_BITS) == from) {
          lifted = other;
          break;
        }
      }
      if (lifted != 0) {
        const next = load<u64>(lifted);
        store<u64>(lifted, moved);
        entry = next;
        bucket = <u64>((lifted - tableBase) >> waysLog);
        continue;
      }
      place(into, moved, <i32>((moved >> STONES_SHIFT) & 0x3f));
      break;
    }
  }
}

/**
 * Puts an entry into the bucket at `at`, for the search (index.ts negamax) and the rehash: one
 * slot a bucket, or two with the one of fewest stones first and the newest other one second.
 */
// @ts-ignore: decorator
@inline export function place(at: usize, entry: u64, n: i32): void {
  if (tableWays == 1) {
    store<u64>(at, entry);
    return;
  }
  const first = load<u64>(at);
  if ((first & ~PAYLOAD_BITS) == (entry & ~PAYLOAD_BITS)) {
    store<u64>(at, entry);
    return;
  }
  const current = (first & GENERATION_BITS) == generation;
  if (current && <i32>((first >> STONES_SHIFT) & 0x3f) < n) {
    store<u64>(at + 8, entry);
    return;
  }
  if (current) store<u64>(at + 8, first);
  store<u64>(at, entry);
}

/**
 * Writes the first word of every page in [from, to) (an atomic add of 0, so that a helper's
 * store meanwhile is never undone). A page of the table that the search first reads is mapped to
 * the kernel's shared zero page, and its first store then faults again and must flush that
 * mapping from every core's TLB (an inter-processor interrupt, dear in a VM): measured on End-Easy
 * in a fresh process (2026-11-26, 2-vCPU VM, perf), those flushes were a quarter of the solves'
 * time, ~12 ms. A page written first costs one plain fault: a growing table's 2 MB start (512
 * pages) is written when it is made, well under a millisecond, and each growth's new pages before
 * its rehash reads them; a fixed table (`--table-log`, up to 128 MB) all at once, as Pons' solver
 * clears his (~50 ms for 2^24 slots; End-Easy with it took 124 ms of CPU before, 104 after).
 */
function prefault(from: usize, to: usize): void {
  for (let at = (from + 4095) & ~(<usize>4095); at < to; at += 4096) atomic.add<u32>(at, 0);
}

/** Writes the layout values into the control block (main instance, after each change). */
function publish(): void {
  store<u32>(CONTROL + C_TABLE_BASE, <u32>tableBase);
  store<u32>(CONTROL + C_BOOK_BASE, <u32>bookBase);
  store<u32>(CONTROL + C_BOOK_SLOTS, bookSlots);
  store<i32>(CONTROL + C_BOOK_DEPTH, bookDepth);
  atomic.store<u64>(CONTROL + C_LAYOUT, generation | (<u64>tableWays << 8) | <u64>tableLog);
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
  generation = word & GENERATION_BITS;
  // (A new helper's tableSize is 0, so its first job computes it even for a fixed table.)
  if (log != tableLog || tableSize == 0) {
    tableLog = log;
    tableWays = <i32>(word >> 8) & 0xff;
    tableSize = bucketsFor(log, tableWays);
  }
}

/**
 * The table's generation, kept in bits 46–63 of every entry (bits 32–39 hold the value, 40–45 the
 * stones): an entry of an older generation counts as empty. So a clear costs nothing, instead of
 * writing 64 MB and evicting every cache line the next search needs; the memory is wiped only when
 * the 18 bits wrap.
 */
export const GENERATION_SHIFT: u64 = 46;
export const GENERATION_BITS: u64 = ~((<u64>1 << GENERATION_SHIFT) - 1);
export let generation: u64 = <u64>1 << GENERATION_SHIFT;

export function clearTable(): void {
  nextGeneration();
  publish();
}

function nextGeneration(): void {
  generation += <u64>1 << GENERATION_SHIFT;
  if (generation == 0) {
    // The table only grows, so nothing was ever written beyond its size now.
    memory.fill(tableBase, 0, tableBytes());
    generation = <u64>1 << GENERATION_SHIFT;
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

/** `bytes` of room after the book's hash table, for what passes through: its address, or 0 if memory ran out. */
function afterBook(bytes: usize): f64 {
  const at = bookBase + (<usize>bookSlots << 4);
  return reserve(at + bytes) ? <f64>at : 0;
}

/** Where bookLoad reads entries (afterBook); 0 if memory ran out. */
export function bookStage(entries: i32): f64 {
  return afterBook(<usize>entries << 3);
}

/** Room for solveLines' input and output (afterBook; the book is loaded by then); 0 if memory ran out. */
export function lineArea(bytes: i32): f64 {
  return afterBook(<usize>bytes);
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
