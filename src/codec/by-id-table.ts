import { fnv1a } from "./fnv.ts";

/**
 * Objects by their own `id` string, for tens of thousands of long-lived entries: an
 * open-addressing table of entry numbers in an Int32Array beside an array of the objects and one
 * of their hashes, 20–30 bytes an entry where a Map<string, V> took about 68 (remote write's
 * series of one id: 3.4 MB of the collector's live heap for 50,000 series, issue 28). The hash is
 * computed over the string on each lookup, so it suits lookups that are rare beside the entries'
 * lifetime (a cache miss, a restart's warm-up), not a hot path.
 */
export class ByIdTable<V extends { readonly id: string }> {
  /** Entry number + 1 per slot (0: empty); at least twice as many slots as entries. */
  private slots = new Int32Array(1024);
  private hashes = new Int32Array(512);
  private values: V[] = [];

  get size(): number {
    return this.values.length;
  }

  /** Bytes the table holds beside the objects: its slots, hashes and the array of the objects' references. */
  get byteLength(): number {
    return this.slots.byteLength + this.hashes.byteLength + 8 * this.values.length;
  }

  get(id: string): V | undefined {
    const h = hashString(id);
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = slots[i]! - 1;
      if (e < 0) return undefined;
      if (this.hashes[e] === h && this.values[e]!.id === id) return this.values[e];
    }
  }

  /** Adds `value` under its id, which the table does not hold yet (get() first). */
  add(value: V): void {
    const e = this.values.length;
    if (e === this.hashes.length) {
      const grown = new Int32Array(2 * e);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.values.push(value);
    this.hashes[e] = hashString(value.id);
    if (2 * (e + 1) > this.slots.length) {
      this.slots = new Int32Array(2 * this.slots.length);
      for (let k = 0; k <= e; k++) this.place(k);
    } else this.place(e);
  }

  /** Removes the object of `id`; false when the table holds none. */
  delete(id: string): boolean {
    const h = hashString(id);
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = h & mask;
    let e: number;
    for (; ; i = (i + 1) & mask) {
      e = slots[i]! - 1;
      if (e < 0) return false;
      if (this.hashes[e] === h && this.values[e]!.id === id) break;
    }
    // Backward-shift deletion: each later entry of the run moves into the hole when its own
    // slot does not lie between the hole and where it is (linear probing finds it there then).
    slots[i] = 0;
    for (let j = (i + 1) & mask; slots[j] !== 0; j = (j + 1) & mask) {
      const k = this.hashes[slots[j]! - 1]! & mask;
      if (i <= j ? k <= i || k > j : k <= i && k > j) {
        slots[i] = slots[j]!;
        slots[j] = 0;
        i = j;
      }
    }
    // The last entry takes the removed one's number, so the entries stay dense.
    const last = this.values.length - 1;
    if (e !== last) {
      const moved = this.values[last]!;
      this.values[e] = moved;
      this.hashes[e] = this.hashes[last]!;
      let j = this.hashes[e]! & mask;
      while (slots[j] !== last + 1) j = (j + 1) & mask;
      slots[j] = e + 1;
    }
    this.values.pop();
    return true;
  }

  clear(): void {
    this.slots = new Int32Array(1024);
    this.hashes = new Int32Array(512);
    this.values = [];
  }

  private place(e: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = this.hashes[e]! & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = e + 1;
  }
}

/** FNV-1a over the string, its high bits folded in (the table masks the low ones). */
function hashString(s: string): number {
  const h = fnv1a(s, 0, s.length);
  return (h ^ (h >>> 15)) | 0;
}
