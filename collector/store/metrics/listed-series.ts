/**
 * A tenant's series in the order they were registered, each keeping its own position in the
 * list (`listedAt`, -1 when out): 8 bytes a series where the Set it replaces cost about 50, and
 * no table regrown as series come (issue 28, docs/storage.md "Fewer bytes a series"). A removal
 * leaves a hole, skipped by iteration; the holes are closed once they are half the list.
 * Not to be changed while iterated.
 */
export interface Listed {
  listedAt: number;
}

/** Lists shorter than this keep their holes (closing them would cost more than it saves). */
const COMPACT_FROM = 64;

export class ListedSeries<T extends Listed> {
  private readonly items: (T | undefined)[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(item: T): void {
    if (item.listedAt >= 0) return;
    item.listedAt = this.items.length;
    this.items.push(item);
    this.count++;
  }

  delete(item: T): void {
    const at = item.listedAt;
    if (at < 0 || this.items[at] !== item) return;
    this.items[at] = undefined;
    item.listedAt = -1;
    this.count--;
    if (this.items.length >= COMPACT_FROM && this.count < this.items.length / 2) this.compact();
  }

  private compact(): void {
    let k = 0;
    for (const m of this.items) {
      if (m === undefined) continue;
      m.listedAt = k;
      this.items[k++] = m;
    }
    this.items.length = k;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const m of this.items) if (m !== undefined) yield m;
  }
}
