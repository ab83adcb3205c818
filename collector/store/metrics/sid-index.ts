/**
 * Series by sid, in an array indexed by sid. Why not a Map: sids are given in sequence (the
 * store's nextSid), so the array is dense, and it costs 8 bytes a series where a Map cost about
 * 66 (its hash table, and as much again as garbage each time it grew): 3 MB of the heap at
 * 50,000 remote-write series (issue 28, docs/storage.md "Fewer bytes a series").
 */
export class SidIndex<T extends { sid: number }> {
  private readonly slots: (T | undefined)[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(sid: number): T | undefined {
    return this.slots[sid];
  }

  has(sid: number): boolean {
    return this.slots[sid] !== undefined;
  }

  set(item: T): void {
    const sid = item.sid;
    if (!Number.isSafeInteger(sid) || sid < 0) throw new RangeError(`sid ${sid} is not an index`);
    // Grown one slot at a time from its end (holes left as undefined): the array stays dense.
    while (this.slots.length < sid) this.slots.push(undefined);
    if (this.slots[sid] === undefined) this.count++;
    this.slots[sid] = item;
  }

  delete(sid: number): void {
    if (this.slots[sid] === undefined) return;
    this.slots[sid] = undefined;
    this.count--;
  }

  *values(): IterableIterator<T> {
    for (const m of this.slots) if (m !== undefined) yield m;
  }
}
