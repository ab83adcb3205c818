/** A map from byte strings to values, for hot paths that must not make strings (see BytesMap). */

/** Int32s per entry in `fields`: its hash, where its key starts in the arena, its length, and the guess (below) + 1. */
const F = 4;
/** Bytes before each key in the arena: its entry and its length (so a compaction can walk the arena). */
const HEAD = 8;
/** Lookups per entry after which keys may move again (a sender that changed its order is followed). */
const LOOKUPS_PER_EPOCH = 8;

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
 * that one; and the keys are kept in the arena in the order they are looked up in: a key read
 * after another that is not its neighbour in the arena moves to the arena's end (once per
 * epoch, so that a cycle does not move keys round and round), and the next lookups read their
 * keys in sequence. Keys found by a table filled in another order (remote write's cache warmed
 * from the store after a restart, a sender that reshards) cost a cache miss each without it:
 * up to a fifth of a restarted collector's CPU under a backlog (issue 28). A wrong guess costs one
 * comparison, then the table as before.
 */
export class BytesMap<V> {
  /** Entry index + 1 per slot (0: empty); twice as many slots as entries at most. */
  private slots = new Int32Array(1024);
  /** F int32s per entry, side by side: one cache line holds four entries' fields. */
  private fields = new Int32Array(512 * F);
  /** Per entry: the epoch in which its key last moved (or was added). */
  private moved = new Int32Array(512);
  /** The entry of the last lookup that found one, or -1. */
  private last = -1;
  private values: V[] = [];
  /** Each key behind a HEAD (entry, length), 4-byte aligned: see compact(). */
  private arena = new Uint8Array(64 * 1024);
  /** The arena as int32s: the heads, and the keys compared four bytes at a time. */
  private heads = new Int32Array(this.arena.buffer);
  private used = 0;
  /** Bytes of keys that moved on (their old places). */
  private dead = 0;
  private epoch = 1;
  private lookups = 0;
  private spareFields = new Int32Array(0);
  private spareMoved = new Int32Array(0);
  private spareValues: V[] = [];
  private renumbered = new Int32Array(0);
  /** Keys moved to the arena's end so far (for tests and probes). */
  keysMoved = 0;

  constructor(readonly maxEntries = 100_000) {}

  get(buf: Uint8Array, start: number, end: number): V | undefined {
    if (start < 0 || end > buf.length) return undefined;
    const len = end - start;
    const last = this.last;
    const f = this.fields;
    let e = -1;
    if (last >= 0) {
      const g = f[last * F + 3]! - 1;
      if (g >= 0 && g < this.values.length && f[g * F + 2] === len && sameBytes(this.heads, this.arena, f[g * F + 1]!, buf, start, len)) {
        e = this.outOfPlace(last, g) ? this.move(g, buf, start, len) : g;
      }
    }
    if (e < 0) {
      e = this.find(buf, start, len);
      if (e < 0) return undefined;
      if (last >= 0) f[last * F + 3] = e + 1;
    }
    this.last = e;
    const v = this.values[e];
    if (++this.lookups > LOOKUPS_PER_EPOCH * this.values.length) this.nextEpoch();
    return v;
  }

  /**
   * Whether entry g, rightly guessed to come after `last`, is to move to the arena's end: its key
   * does not follow last's there, it has not moved this epoch, and it does not start a run of keys
   * already in order (its own guess's key follows its own). Moved only after a good guess: a
   * sender's request starts wherever its last one ended. And not when it starts a run: a sender's
   * keys read round and round (a shard's series, scrape after scrape) jump back to the first
   * at each round's end, and moving that one would move every key after it, each epoch: all
   * 50,000 of remote write's keys, once a second under a backlog (issue 28).
   */
  private outOfPlace(last: number, g: number): boolean {
    const f = this.fields;
    if (f[g * F + 1] === this.after(last) || this.moved[g] === this.epoch) return false;
    const h = f[g * F + 3]! - 1;
    return h < 0 || h >= this.values.length || f[h * F + 1] !== this.after(g);
  }

  /** Where the key after entry e's starts in the arena, when it follows it. */
  private after(e: number): number {
    return align(this.fields[e * F + 1]! + this.fields[e * F + 2]!) + HEAD;
  }

  /** The entry of a key by the table, or -1. */
  private find(buf: Uint8Array, start: number, len: number): number {
    const h = hashBytes(buf, start, start + len);
    const slots = this.slots;
    const f = this.fields;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = slots[i]! - 1;
      if (e < 0) return -1;
      if (f[e * F] === h && f[e * F + 2] === len && sameBytes(this.heads, this.arena, f[e * F + 1]!, buf, start, len)) return e;
    }
  }

  set(buf: Uint8Array, start: number, end: number, value: V): void {
    if (start < 0 || end > buf.length) throw new RangeError("key out of the buffer's bounds");
    if (this.values.length >= this.maxEntries) this.clear();
    this.makeRoom(end - start, -1);
    const e = this.values.length;
    if ((e + 1) * F > this.fields.length) {
      this.fields = grown(this.fields);
      this.moved = grown(this.moved);
    }
    this.values.push(value);
    this.fields[e * F] = hashBytes(buf, start, end);
    this.fields[e * F + 3] = 0;
    this.append(e, buf, start, end - start);
    // A key added after a lookup that found one is guessed to follow it next time.
    if (this.last >= 0) this.fields[this.last * F + 3] = e + 1;
    this.last = e;
    if (2 * (e + 1) > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(e);
  }

  get size(): number {
    return this.values.length;
  }

  /** Bytes held: the arena, the table, the entries' fields (and their spares). */
  get byteLength(): number {
    return this.arena.byteLength + this.slots.byteLength + this.fields.byteLength + this.moved.byteLength + this.spareFields.byteLength + this.spareMoved.byteLength + this.renumbered.byteLength;
  }

  /** Moves entry e's key (the same bytes, from the request's buffer) to the arena's end; e's number after. */
  private move(e: number, buf: Uint8Array, start: number, len: number): number {
    const moved = this.makeRoom(len, e);
    this.keysMoved++;
    this.dead += HEAD + align(len);
    this.append(moved, buf, start, len);
    return moved;
  }

  /** Writes e's key at the arena's end (room made: see makeRoom). */
  private append(e: number, buf: Uint8Array, start: number, len: number): void {
    const at = this.used;
    this.heads[at >> 2] = e;
    this.heads[(at >> 2) + 1] = len;
    const o = at + HEAD;
    copyBytes(this.arena, o, buf, start, len);
    this.fields[e * F + 1] = o;
    this.fields[e * F + 2] = len;
    this.moved[e] = this.epoch;
    this.used = at + HEAD + align(len);
  }

  /** Keys may move once more; those that moved in the last epoch are compacted and renumbered in their new order. */
  private nextEpoch(): void {
    this.lookups = 0;
    this.epoch++;
    if (this.dead > 0) this.compact(this.arena);
  }

  /**
   * Room for a key of `len` bytes at the arena's end: compacts the arena (when the live keys and
   * this one fill three quarters of it at most) or grows it, either of which numbers the entries
   * anew. Why not grow sooner: the keys a sender's new order moves to the end leave their old
   * places dead until the epoch ends, and growing while a third of the arena was dead doubled
   * remote write's 8 MB of label bytes for 50,000 series to 16 MB (issue 28). Returns entry e's
   * number after (-1 for none).
   */
  private makeRoom(len: number, e: number): number {
    const need = HEAD + align(len);
    if (this.used + need <= this.arena.length) return e;
    const live = this.used - this.dead;
    this.compact(4 * (live + need) <= 3 * this.arena.length ? this.arena : new Uint8Array(Math.max(this.arena.length * 2, live + need)));
    return e >= 0 ? this.renumbered[e]! : e;
  }

  /**
   * Copies the live keys, in their order, into `to` (the same arena or a larger one), and numbers
   * the entries in that order: the lookups that read the keys in sequence then read the entries'
   * fields and values in sequence too.
   */
  private compact(to: Uint8Array<ArrayBuffer>): void {
    const from = this.arena;
    const fromHeads = this.heads;
    const toHeads = to === from ? fromHeads : new Int32Array(to.buffer);
    const f = this.fields;
    const n = this.values.length;
    // The arrays of the last compaction, kept: one a second under a steady backlog, each new
    // one would be fresh pages to fault in.
    if (this.spareFields.length !== f.length) {
      this.spareFields = new Int32Array(f.length);
      this.spareMoved = new Int32Array(this.moved.length);
    }
    if (this.renumbered.length < n) this.renumbered = new Int32Array(f.length / F);
    const renumbered = this.renumbered;
    const fields = this.spareFields;
    const moved = this.spareMoved;
    // Emptied when it was swapped out (below).
    const values = this.spareValues;
    let w = 0;
    let k = 0;
    for (let r = 0; r < this.used; ) {
      const e = fromHeads[r >> 2]!;
      const len = fromHeads[(r >> 2) + 1]!;
      const size = HEAD + align(len);
      if (f[e * F + 1] === r + HEAD) {
        // Ahead of the reads (w <= r): in the same arena a copy never overwrites a key not yet read.
        toHeads[w >> 2] = k;
        toHeads[(w >> 2) + 1] = len;
        copyBytes(to, w + HEAD, from, r + HEAD, len);
        renumbered[e] = k;
        fields[k * F] = f[e * F]!;
        fields[k * F + 1] = w + HEAD;
        fields[k * F + 2] = len;
        fields[k * F + 3] = f[e * F + 3]!;
        moved[k] = this.moved[e]!;
        values.push(this.values[e]!);
        k++;
        w += size;
      }
      r += size;
    }
    for (let i = 0; i < n; i++) {
      const g = fields[i * F + 3]! - 1;
      fields[i * F + 3] = g >= 0 ? renumbered[g]! + 1 : 0;
    }
    if (this.last >= 0) this.last = renumbered[this.last]!;
    this.spareFields = f;
    this.spareMoved = this.moved;
    this.spareValues = this.values;
    this.spareValues.length = 0;
    this.fields = fields;
    this.moved = moved;
    this.values = values;
    this.arena = to;
    this.heads = toHeads;
    this.used = w;
    this.dead = 0;
    this.slots.fill(0);
    for (let e = 0; e < this.values.length; e++) this.place(e);
  }

  private place(e: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = this.fields[e * F]! & mask;
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
    this.dead = 0;
    this.lookups = 0;
  }
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * Copies `len` bytes of `src` from `from` to `dst` at `at` (the same buffer too, `at` <= `from`):
 * a loop for a short key rather than views of it (one object per new key: 50,000 for a remote
 * write's new series); `set` copies an overlapping range of one buffer as if through a copy.
 */
function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, from: number, len: number): void {
  if (len < 256) for (let i = 0; i < len; i++) dst[at + i] = src[from + i]!;
  else dst.set(src.subarray(from, from + len), at);
}

/** The four bytes of `buf` from `i` as a little-endian int32 (as the arena's words read them). */
function int32At(buf: Uint8Array, i: number): number {
  return buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24);
}

/** `n` rounded up to a multiple of 4 (the arena's heads are int32s). */
function align(n: number): number {
  return (n + 3) & ~3;
}

/**
 * Whether the key of `len` bytes at `at` in the arena (`words`, `bytes`: the same memory; `at` a
 * multiple of 4) equals `len` bytes of `buf` from `start`: four of buf's bytes made one int32
 * and compared with one of the arena's, eight bytes a step, then the rest. About 1.7 times as
 * fast as comparing byte by byte (46 against 77 ns for a 95-byte key).
 */
function sameBytes(words: Int32Array, bytes: Uint8Array, at: number, buf: Uint8Array, start: number, len: number): boolean {
  let i = 0;
  let w = at >> 2;
  for (const last = len - 7; i < last; i += 8, w += 2) {
    if (words[w] !== int32At(buf, start + i) || words[w + 1] !== int32At(buf, start + i + 4)) return false;
  }
  for (; i < len; i++) if (bytes[at + i] !== buf[start + i]) return false;
  return true;
}

/** A hash of a byte range (FNV-1a's steps over 4 bytes at a time, then the rest one by one). */
function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 ^ (end - start);
  let i = start;
  for (const last = end - 3; i < last; i += 4) h = Math.imul(h ^ int32At(buf, i), 0x01000193);
  for (; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return (h ^ (h >>> 15)) | 0;
}
