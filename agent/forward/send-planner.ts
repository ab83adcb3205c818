import type { ChunkSpan } from "../buffer/point-buffer.ts";

/** What the planner needs from the buffer. */
export interface ChunkSource {
  read(afterId: number, toId: number, maxPoints: number): ChunkSpan | undefined;
  firstAfter(id: number): { id: number; enq: number } | undefined;
  lastBufferedBefore(afterId: number, time: number): number | undefined;
}

export interface PlannerOptions {
  batchPoints: number;
  /** Backlog points per second; 0 means unlimited. */
  replayRate: number;
  /** Chunks buffered longer ago than this are backlog. */
  freshAgeMs: number;
}

export interface Plan {
  span?: ChunkSpan;
  replay?: boolean;
  /** Set when backlog is waiting for the rate limit: try again in this many ms. */
  waitMs?: number;
}

/**
 * Chooses the next chunks to send. Fresh chunks (buffered within freshAgeMs) go first and
 * unthrottled, newest arrivals in order; older chunks become backlog, replayed oldest first
 * through a token bucket, so an outage's backlog neither starves current data nor floods
 * the collector when a fleet reconnects. Every buffered chunk is handed out once per run;
 * resending unacknowledged ones is the in-flight tracker's job.
 */
export class SendPlanner {
  /** Every chunk id ≤ freshAfter has been handed out or moved to the backlog. */
  private freshAfter = 0;
  /** Id ranges still to replay, oldest first; `lo` advances as chunks are handed out. */
  private readonly backlog: { lo: number; hi: number }[] = [];
  private tokens: number;
  private refilledAt: number;
  private readonly burst: number;

  constructor(
    private readonly source: ChunkSource,
    private readonly opts: PlannerOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.burst = Math.max(opts.batchPoints, opts.replayRate);
    this.tokens = this.burst;
    this.refilledAt = now();
  }

  next(): Plan {
    this.moveStaleToBacklog();
    const fresh = this.source.read(this.freshAfter, Number.MAX_SAFE_INTEGER, this.opts.batchPoints);
    if (fresh) {
      this.freshAfter = fresh.hi;
      return { span: fresh, replay: false };
    }
    while (this.backlog.length > 0) {
      const r = this.backlog[0]!;
      if (this.opts.replayRate > 0) {
        this.refill();
        if (this.tokens <= 0) return { waitMs: Math.ceil(((1 - this.tokens) / this.opts.replayRate) * 1000) };
      }
      const span = this.source.read(r.lo - 1, r.hi, this.opts.batchPoints);
      if (!span) {
        this.backlog.shift();
        continue;
      }
      r.lo = span.hi + 1;
      if (r.lo > r.hi) this.backlog.shift();
      if (this.opts.replayRate > 0) this.tokens -= span.points;
      return { span, replay: true };
    }
    return {};
  }

  /** True while backlog remains to be handed out. */
  get replaying(): boolean {
    return this.backlog.length > 0;
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.refilledAt) / 1000) * this.opts.replayRate);
    this.refilledAt = t;
  }

  /** Unsent chunks that waited longer than freshAgeMs (an outage, or a start with a full buffer) become backlog. */
  private moveStaleToBacklog(): void {
    const first = this.source.firstAfter(this.freshAfter);
    const cutoff = this.now() - this.opts.freshAgeMs;
    if (!first || first.enq >= cutoff) return;
    const last = this.source.lastBufferedBefore(this.freshAfter, cutoff) ?? first.id;
    this.backlog.push({ lo: first.id, hi: last });
    this.freshAfter = last;
  }
}
