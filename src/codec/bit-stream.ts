const NO_WORDS = new Uint32Array(0);

/** Bits written LSB-first into 32-bit words (little-endian bytes on output). */
export class BitWriter {
  words: Uint32Array;
  private k = 0;
  private s = 0;

  /** 0: no words until the first write (grow() then makes them; one shared empty array meanwhile). */
  constructor(capacityWords = 256) {
    this.words = capacityWords === 0 ? NO_WORDS : new Uint32Array(capacityWords);
  }

  /** Empties the writer for reuse, with room for at least `capacityWords` words. */
  reset(capacityWords: number): void {
    if (this.words.length < capacityWords) this.words = new Uint32Array(capacityWords);
    else this.words.fill(0, 0, Math.min(this.words.length, this.k + 2));
    this.k = 0;
    this.s = 0;
  }

  /** The word the next write goes into (for a caller that reads it ahead of the writes, to have it in the cache). */
  next(): number {
    return this.words[this.k] ?? 0;
  }

  /** Writes the low `n` bits of `v`, 1 <= n <= 32. */
  write(v: number, n: number): void {
    let w = this.words;
    if (this.k + 2 > w.length) w = this.grow();
    const s = this.s;
    const masked = n === 32 ? v : v & ((1 << n) - 1);
    w[this.k]! |= masked << s;
    if (s + n >= 32) {
      this.k++;
      this.s = s + n - 32;
      if (this.s > 0) w[this.k] = masked >>> (32 - s);
    } else this.s = s + n;
  }

  /** Room for more words: twice as many. */
  protected grow(): Uint32Array {
    const g = new Uint32Array(Math.max(8, this.words.length * 2));
    g.set(this.words);
    this.words = g;
    return g;
  }

  get bitLength(): number {
    return this.k * 32 + this.s;
  }

  bytes(): Uint8Array {
    return new Uint8Array(this.words.buffer, 0, (this.bitLength + 7) >>> 3);
  }
}
