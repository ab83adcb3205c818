/**
 * A scrape loop's series cache: each series text seen on a target (name and labels exactly as
 * written), with the id it maps to and what the loop tracks about it, so a known series costs a
 * lookup per scrape, not a label parse (Prometheus keeps the same cache).
 *
 * Kept out of JavaScript objects: a Map of 10,000 string keys and entry objects cost about 7 MB
 * of resident memory (the keys, the entries and the map's table, spread among a scrape's
 * garbage, pin allocator pages). Here the texts are bytes in one buffer, found through an
 * open-addressing table of entry numbers, and the per-series fields are typed arrays. The ids
 * are one string, each a slice of it: a scrape writes each id as a view of that string (no copy),
 * where 10,000 strings of their own held about 1.8 MB in small blocks (docs/inputs.md, "Memory").
 * Lookups read the text straight from the scraped body, so a known series costs no string
 * either. Texts and ids with a character above U+00FF (rare: label values in other scripts)
 * are kept in small Maps instead (one of them would make the whole string two bytes a character).
 *
 * Most texts are not kept at all: a series' id is its text with the target's labels (`feed`,
 * `instance`, `job`, ...) put in among its own, and an exporter that writes its labels sorted
 * (every one built on the Prometheus client libraries) writes exactly the id without them. Such
 * an entry keeps, instead of its text (about 100 bytes), where those labels sit in its id (up to
 * four ranges, 3 bytes each), and a lookup compares the scraped text with the id, stepping over
 * them. Whether an entry is kept so is decided when it is added, by that same comparison against
 * its own text, so a lookup answers exactly as if the text were kept; any other text (labels
 * unsorted, spaces, escapes written another way, relabelling that changed labels, honor_labels
 * keeping a clashing label, a dropped series) keeps its bytes.
 */

/** FNV-1a over the UTF-16 code units of s[start, end). */
function hashRange(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** True when s[start, end) has no character above U+00FF (its text fits one byte a character). */
function isLatin1(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (s.charCodeAt(i) > 0xff) return false;
  return true;
}

/** True when s[start, end) has the characters of `id` with the `w` ranges of entry e's skips (at, len per range, len 0 past the last) stepped over. */
function matchesStripped(s: string, start: number, end: number, id: string, idStart: number, idEnd: number, skipAt: Uint16Array, skipLen: Uint8Array, base: number, w: number): boolean {
  let i = start;
  let j = idStart;
  for (let r = 0; ; r++) {
    const skip = r < w ? skipLen[base + r]! : 0;
    const stop = skip > 0 ? idStart + skipAt[base + r]! : idEnd;
    const n = stop - j;
    if (n > end - i) return false;
    for (let k = 0; k < n; k++) if (id.charCodeAt(j + k) !== s.charCodeAt(i + k)) return false;
    i += n;
    if (skip === 0) return i === end;
    j = stop + skip;
  }
}

const NONE = -1;
/** textAt of an entry whose text is not kept: it is its id with its skips stepped over. */
const STRIPPED = -1;
/** Most ranges an id may skip to be kept without its text. */
const MAX_SKIPS = 4;
/** idLen of an entry without an id (dropped), and of one whose id is in `freshIds` or `wideIds`. */
const NO_ID = -1;
const ID_APART = -2;

export class SeriesCache {
  /** Ranges per entry of its id that its text has not (target labels, with a comma or the braces), `w` of them. */
  private readonly w: number;
  private skipAt: Uint16Array;
  private skipLen: Uint8Array;
  /** Entries in use are 0 .. count-1; `live` says which of them were not removed. */
  private count = 0;
  private live = new Uint8Array(64);
  private textAt = new Int32Array(64);
  private textLen = new Int32Array(64);
  private hashes = new Uint32Array(64);
  /** Entry number + 1 per slot; 0 is empty. Size a power of two, at most half full. */
  private slots = new Int32Array(128);
  private text = new Uint8Array(4096);
  private textUsed = 0;
  /** Texts that do not fit one byte a character, by text. */
  private readonly wide = new Map<string, number>();
  private removed = 0;

  /** All ids of entries added before the last seal(), each at idAt[e], idLen[e] long. */
  private idText = "";
  private idAt = new Int32Array(64);
  private idLen = new Int32Array(64);
  /** Ids added since the last seal(), and ids not in Latin-1, by entry. */
  private readonly freshIds = new Map<number, string>();
  private readonly wideIds = new Map<number, string>();
  /** Ledger generation whose buffer holds the series' definition. */
  defGen = new Int32Array(64);
  /** Last scrape (generation) that had the series. */
  seen = new Int32Array(64);
  /** 1 when the series' last sample carried its own timestamp (no staleness marker when it vanishes). */
  explicit = new Uint8Array(64);

  /**
   * `targetLabels`: the labels the loop puts in every series' id beside the series' own, each as
   * the id writes it (`job="node"`), in the id's order; only used to keep fewer texts.
   */
  constructor(private readonly targetLabels: readonly string[] = []) {
    this.w = Math.min(targetLabels.length, MAX_SKIPS);
    this.skipAt = new Uint16Array(64 * this.w);
    this.skipLen = new Uint8Array(64 * this.w);
  }

  get size(): number {
    return this.count - this.removed;
  }

  /** Bytes of the texts kept (those that do not read as their ids). */
  get textBytes(): number {
    return this.textUsed;
  }

  /** The series' id; undefined when the series is dropped (relabelling, a label beyond the limits). */
  id(e: number): string | undefined {
    const n = this.idLen[e]!;
    if (n === NO_ID) return undefined;
    if (n === ID_APART) return this.freshIds.get(e) ?? this.wideIds.get(e);
    const at = this.idAt[e]!;
    return this.idText.slice(at, at + n);
  }

  /**
   * Moves the ids added since the last call into the one string (a copy of it all, so once per
   * scrape that brought new series, not once per series).
   */
  seal(): void {
    if (this.freshIds.size === 0) return;
    const parts = [this.idText];
    let at = this.idText.length;
    for (const [e, id] of this.freshIds) {
      if (!this.live[e]) continue;
      parts.push(id);
      this.idAt[e] = at;
      this.idLen[e] = id.length;
      at += id.length;
    }
    this.freshIds.clear();
    this.idText = parts.join("");
    this.fit();
  }

  /**
   * After a scrape that added series: the texts and per-entry arrays, grown by doubling, keep an
   * eighth to spare instead of up to as much again as they hold (a target's series are added in
   * its first scrape, and rarely after).
   */
  private fit(): void {
    const spare = (n: number) => n + (n >> 3) + 64;
    if (this.text.length > spare(this.textUsed) + 4096) this.text = this.text.slice(0, spare(this.textUsed));
    const n = spare(this.count);
    if (this.live.length <= n + 64) return;
    this.live = this.live.slice(0, n);
    this.textAt = this.textAt.slice(0, n);
    this.textLen = this.textLen.slice(0, n);
    this.hashes = this.hashes.slice(0, n);
    this.idAt = this.idAt.slice(0, n);
    this.idLen = this.idLen.slice(0, n);
    this.defGen = this.defGen.slice(0, n);
    this.seen = this.seen.slice(0, n);
    this.explicit = this.explicit.slice(0, n);
    this.skipAt = this.skipAt.slice(0, n * this.w);
    this.skipLen = this.skipLen.slice(0, n * this.w);
  }

  /** The entry of s[start, end), or -1. */
  find(s: string, start: number, end: number): number {
    const len = end - start;
    const h = hashRange(s, start, end);
    const mask = this.slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = this.slots[slot]! - 1;
      if (e < 0) break;
      if (this.hashes[e] !== h || this.textLen[e] !== len) continue;
      const at = this.textAt[e]!;
      if (at === STRIPPED) {
        if (this.matchesId(e, s, start, end)) return e;
        continue;
      }
      let i = 0;
      while (i < len && this.text[at + i] === s.charCodeAt(start + i)) i++;
      if (i === len) return e;
    }
    return this.wide.size > 0 ? (this.wide.get(s.slice(start, end)) ?? NONE) : NONE;
  }

  /** True when s[start, end) is entry e's id with its skips stepped over. */
  private matchesId(e: number, s: string, start: number, end: number): boolean {
    const n = this.idLen[e]!;
    if (n >= 0) {
      const at = this.idAt[e]!;
      return matchesStripped(s, start, end, this.idText, at, at + n, this.skipAt, this.skipLen, e * this.w, this.w);
    }
    const id = this.freshIds.get(e) ?? this.wideIds.get(e)!;
    return matchesStripped(s, start, end, id, 0, id.length, this.skipAt, this.skipLen, e * this.w, this.w);
  }

  /**
   * Where the target's labels sit in `id` (each with the comma that joins it, or the braces when
   * they are all the labels), as entry e's skips; false when they do not fit the arrays.
   */
  private placeSkips(e: number, id: string): boolean {
    const base = e * this.w;
    this.skipLen.fill(0, base, base + this.w);
    let r = 0;
    let from = 0;
    let runAt = -1;
    let runEnd = -1;
    const close = (): boolean => {
      if (runAt < 0) return true;
      let a = runAt;
      let b = runEnd;
      if (id[a - 1] === "{" && id[b] === "}") {
        a--;
        b++;
      } else if (id[b] === ",") b++;
      else a--;
      if (r === this.w || a > 0xffff || b - a > 0xff) return false;
      this.skipAt[base + r] = a;
      this.skipLen[base + r] = b - a;
      r++;
      return true;
    };
    for (const label of this.targetLabels) {
      let at = id.indexOf(label, from);
      // A label of its own, not the tail of a longer name or of a value.
      while (at > 0 && !((id[at - 1] === "{" || id[at - 1] === ",") && (id[at + label.length] === "," || id[at + label.length] === "}"))) at = id.indexOf(label, at + 1);
      if (at <= 0) continue;
      from = at + label.length;
      if (runAt >= 0 && at === runEnd + 1) runEnd = from;
      else {
        if (!close()) return false;
        runAt = at;
        runEnd = from;
      }
    }
    return close();
  }

  /** Adds s[start, end) (not in the cache) with its id; returns its entry. */
  add(s: string, start: number, end: number, id: string | undefined): number {
    const e = this.count++;
    if (e === this.live.length) this.grow();
    this.live[e] = 1;
    this.setId(e, id);
    this.defGen[e] = 0;
    this.seen[e] = -1;
    this.explicit[e] = 0;
    if (!isLatin1(s, start, end)) {
      this.textLen[e] = -1;
      // A copy: a slice of a long string shares (and keeps) the whole string's buffer.
      this.wide.set(` ${s.slice(start, end)}`.slice(1), e);
      return e;
    }
    const len = end - start;
    this.textLen[e] = len;
    this.hashes[e] = hashRange(s, start, end);
    // Kept without its text when its id, stepped over the target's labels, reads as the text.
    if (this.w > 0 && id !== undefined && this.placeSkips(e, id) && matchesStripped(s, start, end, id, 0, id.length, this.skipAt, this.skipLen, e * this.w, this.w)) this.textAt[e] = STRIPPED;
    else this.keepText(e, s, start, end);
    if (2 * (this.count - this.removed) > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(e);
    return e;
  }

  private keepText(e: number, s: string, start: number, end: number): void {
    const len = end - start;
    if (this.textUsed + len > this.text.length) this.text = grown(this.text, this.textUsed + len);
    for (let i = 0; i < len; i++) this.text[this.textUsed + i] = s.charCodeAt(start + i);
    this.textAt[e] = this.textUsed;
    this.textUsed += len;
  }

  private setId(e: number, id: string | undefined): void {
    if (id === undefined) this.idLen[e] = NO_ID;
    else {
      this.idLen[e] = ID_APART;
      (isLatin1(id, 0, id.length) ? this.freshIds : this.wideIds).set(e, id);
    }
  }

  /** Entry numbers in use (live), in the order they were added. */
  *entries(): Generator<number> {
    for (let e = 0; e < this.count; e++) if (this.live[e]) yield e;
  }

  /**
   * Removes the entries `drop` says to; entries keep their numbers until the cache is packed,
   * which happens here once a quarter of them are removed (numbers change then: callers hold none).
   */
  remove(drop: (e: number) => boolean): void {
    let any = false;
    for (let e = 0; e < this.count; e++) {
      if (!this.live[e] || !drop(e)) continue;
      this.live[e] = 0;
      this.freshIds.delete(e);
      this.wideIds.delete(e);
      this.removed++;
      any = true;
    }
    if (!any) return;
    if (this.removed * 4 >= this.count) this.pack();
    else this.rehash(this.slots.length);
  }

  private place(e: number): void {
    if (this.textLen[e]! < 0) return;
    const mask = this.slots.length - 1;
    let slot = this.hashes[e]! & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = e + 1;
  }

  private rehash(size: number): void {
    let n = size;
    while (2 * (this.count - this.removed) > n) n *= 2;
    this.slots = new Int32Array(n);
    for (let e = 0; e < this.count; e++) if (this.live[e]) this.place(e);
  }

  private grow(): void {
    const n = this.live.length * 2;
    this.live = grown(this.live, n);
    this.textAt = grown(this.textAt, n);
    this.textLen = grown(this.textLen, n);
    this.hashes = grown(this.hashes, n);
    this.idAt = grown(this.idAt, n);
    this.idLen = grown(this.idLen, n);
    this.defGen = grown(this.defGen, n);
    this.seen = grown(this.seen, n);
    this.explicit = grown(this.explicit, n);
    this.skipAt = grown(this.skipAt, n * this.w);
    this.skipLen = grown(this.skipLen, n * this.w);
  }

  /** Renumbers the live entries from 0, their texts packed in a buffer of their own, their ids in a string. */
  private pack(): void {
    const text = new Uint8Array(Math.max(256, this.textUsed));
    let used = 0;
    let k = 0;
    const wideText = new Map<number, string>();
    for (const [t, e] of this.wide) wideText.set(e, t);
    this.wide.clear();
    const ids: (string | undefined)[] = [];
    for (let e = 0; e < this.count; e++) if (this.live[e]) ids.push(this.id(e));
    this.freshIds.clear();
    this.wideIds.clear();
    for (let e = 0; e < this.count; e++) {
      if (!this.live[e]) continue;
      const len = this.textLen[e]!;
      if (len < 0) this.wide.set(wideText.get(e)!, k);
      else if (this.textAt[e] === STRIPPED) {
        this.textAt[k] = STRIPPED;
        this.skipAt.copyWithin(k * this.w, e * this.w, (e + 1) * this.w);
        this.skipLen.copyWithin(k * this.w, e * this.w, (e + 1) * this.w);
      } else {
        text.set(this.text.subarray(this.textAt[e]!, this.textAt[e]! + len), used);
        this.textAt[k] = used;
        used += len;
      }
      this.textLen[k] = len;
      this.hashes[k] = this.hashes[e]!;
      this.defGen[k] = this.defGen[e]!;
      this.seen[k] = this.seen[e]!;
      this.explicit[k] = this.explicit[e]!;
      this.live[k] = 1;
      k++;
    }
    this.live.fill(0, k, this.count);
    this.idText = "";
    for (const [i, id] of ids.entries()) this.setId(i, id);
    this.seal();
    this.text = text;
    this.textUsed = used;
    this.count = k;
    this.removed = 0;
    this.rehash(Math.max(128, this.slots.length));
  }
}

/** A copy of `a` with room for at least `n` elements (twice its length at least). */
function grown<T extends Uint8Array | Uint16Array | Int32Array | Uint32Array>(a: T, n: number): T {
  const out = new (a.constructor as new (n: number) => T)(Math.max(n, a.length * 2));
  out.set(a);
  return out;
}
