/** A map from byte strings to values, for hot paths that must not make strings (see BytesMap). */

/**
 * Values by a byte string found in a buffer (a remote-write series' label fields, a JSON body's
 * metric id), looked up without making a string or a copy: an open-addressing table of typed
 * arrays over one arena of key bytes (a Map of arrays of keys cost about 350 ns a lookup, its
 * objects scattered in memory; this about a third of that). Bounded: past `maxEntries` it
 * starts again empty.
 *
 * Senders repeat their keys in the same order (Prometheus' series in scrape order, a JSON
 * client's ids), and with tens of thousands of entries a lookup's table slot, entry fields and
 * key bytes are each a cache miss once the request path has run in between. So each entry
 * remembers the entry looked up after it last time, and a lookup first compares the key with
 * that one: the entries were added in that order too, so their fields and bytes are read in
 * sequence. A wrong guess costs one comparison, then the table as before.
 */
export class BytesMap<V> {
  /** Entry index + 1 per slot (0: empty); twice as many slots as entries at most. */
  private slots = new Int32Array(1024);
  private hashes = new Int32Array(512);
  private starts = new Int32Array(512);
  private lengths = new Int32Array(512);
  /** Per entry: the entry looked up after it last time, + 1 (0: none yet). */
  private next = new Int32Array(512);
  /** The entry of the last lookup that found one, or -1. */
  private last = -1;
  private values: V[] = [];
  private arena = new Uint8Array(64 * 1024);
  private used = 0;

  constructor(readonly maxEntries = 100_000) {}

  get(buf: Uint8Array, start: number, end: number): V | undefined {
    const len = end - start;
    const last = this.last;
    if (last >= 0) {
      const g = this.next[last]! - 1;
      if (g >= 0 && g < this.values.length && this.lengths[g] === len && sameBytes(this.arena, this.starts[g]!, buf, start, len)) {
        this.last = g;
        return this.values[g];
      }
    }
    const e = this.find(buf, start, len);
    if (e < 0) return undefined;
    if (last >= 0) this.next[last] = e + 1;
    this.last = e;
    return this.values[e];
  }

  /** The entry of a key by the table, or -1. */
  private find(buf: Uint8Array, start: number, len: number): number {
    const h = hashBytes(buf, start, start + len);
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = slots[i]! - 1;
      if (e < 0) return -1;
      if (this.hashes[e] === h && this.lengths[e] === len && sameBytes(this.arena, this.starts[e]!, buf, start, len)) return e;
    }
  }

  set(buf: Uint8Array, start: number, end: number, value: V): void {
    if (this.values.length >= this.maxEntries) this.clear();
    const e = this.values.length;
    const len = end - start;
    if (e === this.hashes.length) {
      this.hashes = grown(this.hashes);
      this.starts = grown(this.starts);
      this.lengths = grown(this.lengths);
      this.next = grown(this.next);
    }
    if (this.used + len > this.arena.length) {
      const a = new Uint8Array(Math.max(this.arena.length * 2, this.used + len));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
    }
    // A copy of the bytes: the request's buffer is let go after it. A loop for a short key rather
    // than a view of it (one object per new key: 50,000 for a remote write's new series).
    if (len < 256) {
      const a = this.arena;
      for (let i = 0, o = this.used; i < len; i++) a[o + i] = buf[start + i]!;
    } else this.arena.set(buf.subarray(start, end), this.used);
    this.hashes[e] = hashBytes(buf, start, end);
    this.starts[e] = this.used;
    this.lengths[e] = len;
    this.next[e] = 0;
    // A key added after a lookup that found one is guessed to follow it next time.
    if (this.last >= 0) this.next[this.last] = e + 1;
    this.last = e;
    this.used += len;
    this.values.push(value);
    if (2 * (e + 1) > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(e);
  }

  get size(): number {
    return this.values.length;
  }

  private place(e: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = this.hashes[e]! & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = e + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let e = 0; e < this.values.length; e++) this.place(e);
  }

  private clear(): void {
    this.slots = new Int32Array(1024);
    this.last = -1;
    this.values = [];
    this.used = 0;
  }
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Whether `len` bytes of `a` from `at` equal those of `buf` from `start` (four at a time, then the rest). */
function sameBytes(a: Uint8Array, at: number, buf: Uint8Array, start: number, len: number): boolean {
  let i = 0;
  for (const last = len - 3; i < last; i += 4) {
    const k = at + i;
    const j = start + i;
    if (a[k] !== buf[j] || a[k + 1] !== buf[j + 1] || a[k + 2] !== buf[j + 2] || a[k + 3] !== buf[j + 3]) return false;
  }
  for (; i < len; i++) if (a[at + i] !== buf[start + i]) return false;
  return true;
}

/** A hash of a byte range (FNV-1a's steps over 4 bytes at a time, then the rest one by one). */
function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 ^ (end - start);
  let i = start;
  for (const last = end - 3; i < last; i += 4) h = Math.imul(h ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)), 0x01000193);
  for (; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return (h ^ (h >>> 15)) | 0;
}
