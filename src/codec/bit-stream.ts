const NO_WORDS = new Uint32Array(0);

/** Bits written LSB-first into 32-bit words (little-endian bytes on output). */
export class BitWriter {
  words: Uint32Array;
  /** Bits written: the word the next write goes into is bits >>> 5, at bit bits & 31 (one field for both: a series' head is one of these, issue 28). */
  private bits = 0;

  /** 0: no words until the first write (grow() then makes them; one shared empty array meanwhile). */
  constructor(capacityWords = 256) {
    this.words = capacityWords === 0 ? NO_WORDS : new Uint32Array(capacityWords);
  }

  /** Empties the writer for reuse, with room for at least `capacityWords` words. */
  reset(capacityWords: number): void {
    if (this.words.length < capacityWords) this.words = new Uint32Array(capacityWords);
    else this.words.fill(0, 0, Math.min(this.words.length, (this.bits >>> 5) + 2));
    this.bits = 0;
  }

  /** The word the next write goes into (for a caller that reads it ahead of the writes, to have it in the cache). */
  next(): number {
    return this.words[this.bits >>> 5] ?? 0;
  }

  /** Writes the low `n` bits of `v`, 1 <= n <= 32. */
  write(v: number, n: number): void {
    const b = this.bits;
    const k = b >>> 5;
    const s = b & 31;
    let w = this.words;
    if (k + 2 > w.length) w = this.grow();
    const masked = n === 32 ? v : v & ((1 << n) - 1);
    w[k]! |= masked << s;
    // The bits past this word go into the next, which is still zero.
    if (s + n > 32) w[k + 1] = masked >>> (32 - s);
    this.bits = b + n;
  }

  /** Room for more words: twice as many. */
  protected grow(): Uint32Array {
    const g = new Uint32Array(Math.max(8, this.words.length * 2));
    g.set(this.words);
    this.words = g;
    return g;
  }

  get bitLength(): number {
    return this.bits;
  }

  bytes(): Uint8Array {
    return new Uint8Array(this.words.buffer, 0, (this.bitLength + 7) >>> 3);
  }
}
