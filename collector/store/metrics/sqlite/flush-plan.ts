/** A head the plan can seal: its series' flushedSeq moves when it is sealed. */
interface Planned {
  flushedSeq: number;
  head?: { length: number };
}

/**
 * The heads a sliced flush chose, longest first, sealed a slice at a time (flush.ts): chosen
 * once for all the slices, each remembered with its series' flushedSeq when chosen, so that a
 * head sealed meanwhile (its flushedSeq moved) is not sealed twice.
 */
export class FlushPlan<T extends Planned> {
  private heads: T[] = [];
  private seqs: number[] = [];
  private at = 0;

  /** Heads are left to take. */
  get pending(): boolean {
    return this.at < this.heads.length;
  }

  start(heads: T[]): void {
    this.heads = heads;
    this.seqs = heads.map((m) => m.flushedSeq);
    this.at = 0;
  }

  /**
   * Moves the next heads into `take` up to `room` points (at least one when `take` is empty),
   * skipping those sealed since or no longer holding points (`holds` false); returns their points.
   */
  takeInto(take: T[], room: number, holds: (m: T) => boolean): number {
    let points = 0;
    let k = this.at;
    for (; k < this.heads.length; k++) {
      const m = this.heads[k]!;
      if (m.flushedSeq !== this.seqs[k] || !holds(m)) continue;
      const n = m.head!.length;
      if (take.length > 0 && points + n > room) break;
      take.push(m);
      points += n;
    }
    this.at = k;
    // Done: the series are let go.
    if (!this.pending) this.start([]);
    return points;
  }
}
