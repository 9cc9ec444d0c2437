// Linear memory: static data (the move lists), then the transposition table (from init), then the
// opening book's hash table (from bookReset). Nothing is ever freed; an instance belongs to one
// Solver.

/** Table slots: the smallest prime ≥ 2^logSize (Pons). */
export let tableSize: u64 = 0;
/** Byte address of slot 0; a slot is 8 bytes: the low 32 key bits, the value, the generation. */
export let tableBase: usize = 0;

export let bookBase: usize = 0;
/** Slots of the book's hash table (a power of two); 0 = no book. */
export let bookSlots: u32 = 0;
/** The book's depth (most stones of an entry); −1 = no book, so no node looks it up. */
export let bookDepth: i32 = -1;

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

/** Sets the table up (once per instance); returns its slot count, or 0 if memory ran out. */
export function initTable(logSize: i32): f64 {
  let size: u64 = <u64>1 << (<u64>logSize);
  while (!isPrime(size)) size++;
  const base = (__heap_base + 63) & ~(<usize>63);
  if (!reserve(base + <usize>(size << 3))) return 0;
  tableSize = size;
  tableBase = base;
  bookBase = base + <usize>(size << 3);
  return <f64>size;
}

/**
 * The table's generation, kept in bits 40–63 of every entry (bits 32–39 hold the value): an entry
 * of an older generation counts as empty. So a clear costs nothing, instead of writing 64 MB and
 * evicting every cache line the next search needs; the memory is wiped only when the 24 bits wrap.
 */
export let generation: u64 = <u64>1 << 40;

export function clearTable(): void {
  generation += <u64>1 << 40;
  if (generation == 0) {
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
  if (depth < 0) return true;
  let slots: u32 = 16;
  while (slots < <u32>entries * 2) slots <<= 1;
  if (!reserve(bookBase + (<usize>slots << 4))) return false;
  memory.fill(bookBase, 0, <usize>slots << 4);
  bookSlots = slots;
  bookDepth = depth;
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
