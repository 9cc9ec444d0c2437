/**
 * Pons' transposition table: a prime number of slots (the smallest prime ≥ 2^logSize), the slot is
 * key mod size, and only the low 32 bits of the 49-bit key are stored. Since the size is odd and the
 * key is below 2^32 · size, slot and stored bits together identify the key (Chinese remainder
 * theorem), so a hit is never a false one. Value 0 means empty; a later entry overwrites.
 *
 * The key is `cur + mask`, given as a lo word (columns 0–3, 28 bits) and a hi word (columns 4–6):
 * key = hi · 2^28 + lo, exact as a double. The slot is computed with a float reciprocal and one
 * correction step rather than `%`, which V8 compiles to a slow call for such operands. Key and value
 * share one Int32Array (entry s at 2s and 2s + 1), so a probe touches one cache line, not two.
 */
export class TranspositionTable {
  readonly size: number;
  readonly entries: Int32Array;
  /** 1 / size, for the slot without `%`. */
  readonly inverse: number;

  constructor(logSize = 23) {
    // Below 2^17 slots the 32 stored key bits no longer pin down a 49-bit key.
    if (!Number.isInteger(logSize) || logSize < 17 || logSize > 28) throw new RangeError('logSize must be 17–28');
    let size = 2 ** logSize;
    while (!isPrime(size)) size++;
    this.size = size;
    this.inverse = 1 / size;
    this.entries = new Int32Array(2 * size);
  }

  reset(): void {
    this.entries.fill(0);
  }

  slot(keyLo: number, keyHi: number): number {
    const key = keyHi * 268435456 + keyLo;
    let s = key - Math.floor(key * this.inverse) * this.size;
    if (s < 0) s += this.size;
    else if (s >= this.size) s -= this.size;
    return s;
  }

  get(keyLo: number, keyHi: number): number {
    const i = 2 * this.slot(keyLo, keyHi);
    const entries = this.entries;
    return entries[i] === ((keyLo + (keyHi << 28)) | 0) ? entries[i + 1]! : 0;
  }

  put(keyLo: number, keyHi: number, value: number): void {
    const i = 2 * this.slot(keyLo, keyHi);
    const entries = this.entries;
    entries[i] = keyLo + (keyHi << 28);
    entries[i + 1] = value;
  }
}

function isPrime(n: number): boolean {
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}
