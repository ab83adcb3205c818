/**
 * The first log batch of every head that holds points, counted by batch: the least one a head
 * still needs is where the ingest log may be cut. Heads start filling in log order, so a count
 * is nearly always added at the end; flushes take counts away anywhere. Why: the flush found
 * that batch by walking every dirty head, at every slice (50,000 heads under remote write,
 * dozens of slices in a backlog: a third of the restarted collector's CPU, issue 28).
 */
export class FirstSeqs {
  private seqs: number[] = [];
  private counts: number[] = [];
  /** Entries before `start` are empty. */
  private start = 0;
  /** Entries from `start` with a count above zero. */
  private live = 0;

  /** A head that starts filling at batch `seq`. */
  add(seq: number): void {
    const n = this.seqs.length;
    if (n > this.start && this.seqs[n - 1] === seq) {
      this.counts[n - 1]!++;
      return;
    }
    if (n === this.start || this.seqs[n - 1]! < seq) {
      this.seqs.push(seq);
      this.counts.push(1);
      this.live++;
      return;
    }
    // Out of order (not seen in the store's own use): kept in place all the same.
    const i = this.find(seq);
    if (i < n && this.seqs[i] === seq) {
      if (this.counts[i]!++ === 0) this.live++;
    } else {
      this.seqs.splice(i, 0, seq);
      this.counts.splice(i, 0, 1);
      this.live++;
    }
  }

  /** A head that started at batch `seq` is empty now (sealed, or its series deleted). */
  remove(seq: number): void {
    const i = this.find(seq);
    if (i >= this.seqs.length || this.seqs[i] !== seq || this.counts[i] === 0) return;
    if (--this.counts[i]! === 0) this.live--;
    while (this.start < this.seqs.length && this.counts[this.start] === 0) this.start++;
    // Emptied entries between live ones are dropped once they are most of the list.
    if (this.seqs.length - this.start > 2 * this.live + 1024) this.compact();
  }

  /**
   * The least batch a head starts at, not counting the heads of `except` (first batch → heads,
   * those about to be sealed); undefined when there is none.
   */
  least(except?: Map<number, number>): number | undefined {
    for (let i = this.start; i < this.seqs.length; i++) {
      if (this.counts[i]! > (except?.get(this.seqs[i]!) ?? 0)) return this.seqs[i];
    }
    return undefined;
  }

  /** Entries held (empty ones included): what compaction bounds. */
  get entries(): number {
    return this.seqs.length - this.start;
  }

  /** First index from `start` whose batch is `seq` or later. */
  private find(seq: number): number {
    let lo = this.start;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqs[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private compact(): void {
    const seqs: number[] = [];
    const counts: number[] = [];
    for (let i = this.start; i < this.seqs.length; i++) {
      if (this.counts[i]! === 0) continue;
      seqs.push(this.seqs[i]!);
      counts.push(this.counts[i]!);
    }
    this.seqs = seqs;
    this.counts = counts;
    this.start = 0;
  }
}
