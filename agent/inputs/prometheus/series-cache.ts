/**
 * A scrape loop's series cache: each series text seen on a target (name and labels exactly as
 * written), with the id it maps to and what the loop tracks about it, so a known series costs a
 * lookup per scrape, not a label parse (Prometheus keeps the same cache).
 *
 * Kept out of JavaScript objects: a Map of 10,000 string keys and entry objects cost about 7 MB
 * of resident memory (the keys, the entries and the map's table, spread among a scrape's
 * garbage, pin allocator pages). Here the texts are bytes in one buffer (or runs of their ids,
 * below), found through an open-addressing table of entry numbers, and the per-series fields are
 * typed arrays. The ids are one string, each a slice of it: a scrape writes each id as a view
 * of that string (no copy), where 10,000 strings of their own held about 1.8 MB in small blocks
 * (docs/inputs.md, "Memory").
 * Lookups read the text straight from the scraped body, so a known series costs no string
 * either. Texts and ids with a character above U+00FF (rare: label values in other scripts)
 * are kept in small Maps instead (one of them would make the whole string two bytes a character).
 *
 * Most texts are not kept at all: a series' id is its text's name and labels, sorted, with the
 * target's labels among them, so a text is a few runs of its id's characters (id-pieces.ts).
 * Such an entry keeps where they are in its id (3 bytes a run: 4 to 19 bytes instead of a text
 * of 60 to 100) and a lookup compares the scraped text with those runs. The runs are kept only
 * when they read back as the text, so a lookup answers exactly as one against the text; texts
 * that are not their id's labels (spaces, escapes written another way, relabelling that renamed
 * labels, a label kept as `exported_*`, a dropped series) keep their bytes. A lookup through
 * runs costs about 20 ns more than one through bytes (docs/inputs.md, "Memory").
 */
import { fnv1a } from "../../../src/codec/fnv.ts";
import { idPieces, matchesPieces, piecesSize, storedSize, writePieces } from "./id-pieces.ts";

/** True when s[start, end) has no character above U+00FF (its text fits one byte a character). */
function isLatin1(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (s.charCodeAt(i) > 0xff) return false;
  return true;
}

const NONE = -1;
/** idLen of an entry without an id (dropped), and of one whose id is in `freshIds` or `wideIds`. */
const NO_ID = -1;
const ID_APART = -2;

export class SeriesCache {
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
  /** Texts kept as runs of their ids (id-pieces.ts): entry e's at -textAt[e] - 1. */
  private pieces = new Uint8Array(4096);
  private piecesUsed = 0;
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

  get size(): number {
    return this.count - this.removed;
  }

  /** Bytes of the texts kept, as bytes and as runs of their ids. */
  get textBytes(): { text: number; pieces: number } {
    return { text: this.textUsed, pieces: this.piecesUsed };
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
    if (this.pieces.length > spare(this.piecesUsed) + 4096) this.pieces = this.pieces.slice(0, spare(this.piecesUsed));
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
  }

  /** The entry of s[start, end), or -1. */
  find(s: string, start: number, end: number): number {
    const len = end - start;
    const h = fnv1a(s, start, end);
    const mask = this.slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = this.slots[slot]! - 1;
      if (e < 0) break;
      if (this.hashes[e] !== h || this.textLen[e] !== len) continue;
      const at = this.textAt[e]!;
      if (at < 0) {
        if (this.matchesId(e, s, start, end)) return e;
        continue;
      }
      let i = 0;
      while (i < len && this.text[at + i] === s.charCodeAt(start + i)) i++;
      if (i === len) return e;
    }
    return this.wide.size > 0 ? (this.wide.get(s.slice(start, end)) ?? NONE) : NONE;
  }

  /** True when s[start, end) reads as entry e's runs of its id. */
  private matchesId(e: number, s: string, start: number, end: number): boolean {
    const at = -this.textAt[e]! - 1;
    const n = this.idLen[e]!;
    if (n >= 0) return matchesPieces(s, start, end, this.idText, this.idAt[e]!, this.pieces, at);
    return matchesPieces(s, start, end, this.freshIds.get(e) ?? this.wideIds.get(e)!, 0, this.pieces, at);
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
    const runs = id === undefined ? undefined : idPieces(s, start, end, id);
    if (runs) {
      const size = piecesSize(runs);
      if (this.piecesUsed + size > this.pieces.length) this.pieces = grown(this.pieces, this.piecesUsed + size);
      writePieces(this.pieces, this.piecesUsed, runs);
      this.textAt[e] = -this.piecesUsed - 1;
      this.piecesUsed += size;
    } else {
      if (this.textUsed + len > this.text.length) this.text = grown(this.text, this.textUsed + len);
      for (let i = 0; i < len; i++) this.text[this.textUsed + i] = s.charCodeAt(start + i);
      this.textAt[e] = this.textUsed;
      this.textUsed += len;
    }
    this.textLen[e] = len;
    this.hashes[e] = fnv1a(s, start, end);
    if (2 * (this.count - this.removed) > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(e);
    return e;
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
  }

  /** Renumbers the live entries from 0, their texts packed in a buffer of their own, their ids in a string. */
  private pack(): void {
    const text = new Uint8Array(Math.max(4096, this.textUsed));
    const pieces = new Uint8Array(Math.max(4096, this.piecesUsed));
    let used = 0;
    let piecesUsed = 0;
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
      const at = this.textAt[e]!;
      if (len < 0) this.wide.set(wideText.get(e)!, k);
      else if (at < 0) {
        const from = -at - 1;
        const size = storedSize(this.pieces, from);
        pieces.set(this.pieces.subarray(from, from + size), piecesUsed);
        this.textAt[k] = -piecesUsed - 1;
        piecesUsed += size;
      } else {
        text.set(this.text.subarray(at, at + len), used);
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
    this.pieces = pieces;
    this.piecesUsed = piecesUsed;
    this.count = k;
    this.removed = 0;
    this.rehash(Math.max(128, this.slots.length));
  }
}

/** A copy of `a` with room for at least `n` elements (twice its length at least). */
function grown<T extends Uint8Array | Int32Array | Uint32Array>(a: T, n: number): T {
  const out = new (a.constructor as new (n: number) => T)(Math.max(n, a.length * 2));
  out.set(a);
  return out;
}
