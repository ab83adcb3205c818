/**
 * Full garbage collections paced by the work done, for a long-running process whose input
 * leaves garbage behind in bursts (a scrape of 10,000 series, an OTLP request). JavaScriptCore
 * collects young objects often but lets old ones pile up until the heap has grown by tens of
 * megabytes (it sizes its heap by the machine's RAM); what a burst leaves while still in use is
 * old by the time it is dropped. A scraping agent's resident size so grew by 2–3 MB a scrape
 * until the engine's own full collection, a minute or more later (docs/inputs.md, "Memory").
 *
 * Each unit of work spends from a budget; once it is spent, one full collection runs, after
 * the work in progress, and at most once per `minIntervalMs`. By default the engine's own
 * (`fullGC`), which leaves the allocator's free pages to its purge delay; `release` also hands
 * them back to the system at once (`Bun.gc(true)`). The collector under ingest needs them back a
 * moment later, a fault per page (src/http/memory-governor.ts); the agent collects at most
 * every few seconds, and a scraping agent held 0.7–1.2 MB less for it, for about 0.8 CPU-s per
 * million samples more (the next scrape faults the pages in again; docs/inputs.md, "Memory").
 * A collection of the agent's heap (about 10 MB live) costs 15–20 ms of CPU.
 */
import { fullGC } from "bun:jsc";

export interface GarbageBudgetOptions {
  /** Units of work (e.g. points) between two collections. */
  budget: number;
  /** Milliseconds between two collections at least. */
  minIntervalMs: number;
  /** Also hand the allocator's free pages back to the system (see above). */
  release?: boolean;
  collect?: () => void;
  now?: () => number;
}

export class GarbageBudget {
  private spent = 0;
  private last = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly collect: () => void;
  private readonly now: () => number;
  /** Collections run since the start. */
  collections = 0;

  constructor(private readonly o: GarbageBudgetOptions) {
    this.collect = o.collect ?? (o.release ? () => Bun.gc(true) : () => fullGC());
    this.now = o.now ?? Date.now;
  }

  /** Counts `units` of work; schedules a collection once the budget is spent. */
  spend(units: number): void {
    this.spent += units;
    if (this.spent < this.o.budget || this.timer || this.stopped) return;
    // After what is running now (the rest of a scrape's writes), not in the middle of it.
    const wait = Math.max(0, this.last + this.o.minIntervalMs - this.now());
    this.timer = setTimeout(() => this.run(), wait);
    this.timer.unref?.();
  }

  private run(): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.collect();
    this.collections++;
    this.spent = 0;
    this.last = this.now();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
