/**
 * PromQL range functions over long windows answered from the rollup tiers
 * (src/promql/tier-windows.ts): a selector's series are read in batches through the tiers,
 * each window composed from stored rows (and the raw samples at its edges) where that gives the
 * raw samples' answer, and left to the raw samples otherwise.
 */
import type { MetricType } from "../metrics/model.ts";
import { QuantileSketch } from "../metrics/quantile-sketch.ts";
import { composeNumeric } from "../metrics/rollup/compose.ts";
import type { Cover } from "../metrics/rollup/cover.ts";
import { NumSeg } from "../metrics/rollup/segment.ts";
import { type TierSteps, type WindowHint, windowValue } from "../promql/tier-windows.ts";
import type { MetricsReader } from "../metrics/reader.ts";
import { readThroughTiers } from "../metrics/rollup/read-through.ts";
import type { Resolutions } from "../metrics/rollup/tier-stats.ts";

/** Series read through the tiers at once. */
const BATCH = 32;

/** A window is left to raw samples when they answer most of it anyway. */
const mostlyRaw = (c: Cover, lo: number, hi: number) => c.rawComplete && (c.tiers.size === 0 || c.rawSpan * 2 >= hi - lo);

export interface WindowRead {
  ts: Float64Array;
  vals: Float64Array;
  steps: TierSteps;
}

/**
 * Finest-tier steps a window must span for the tiers to be read. A window of two or three
 * (`max_over_time(x[10m])` over 5-minute rows) holds at most a row or two and tens of raw
 * samples: reading its rows cost 1.0 against 0.5 ms a query of three series beside Prometheus,
 * where raw samples alone answer at Prometheus' speed (bench/promql-small.ts, docs/prometheus.md).
 */
const TIER_MIN_STEPS = 6;

/** Whether windows of this hint are long enough for the store's tiers to be worth reading. */
export function tiersWorthReading(store: MetricsReader, h: WindowHint | undefined): h is WindowHint {
  const finest = store.rollups?.tiers[0];
  return h !== undefined && finest !== undefined && h.range >= TIER_MIN_STEPS * finest.step;
}

export class TierWindows {
  private readonly intervals: number[] = [];
  /** Batches read, each series' entry dropped once it is taken (a query reads each series once). */
  private readonly batches = new Map<number, Promise<(WindowRead | undefined)[]>>();
  private readonly taken = new Map<number, number>();

  constructor(
    private readonly store: MetricsReader,
    private readonly tenant: string,
    private readonly hint: WindowHint,
    private readonly series: readonly { type: MetricType; id: string }[],
    private readonly seen?: Resolutions,
  ) {
    // (end − range, end] on integer milliseconds is [end − range + 1, end + 1).
    for (const end of hint.ends) this.intervals.push(end - hint.range + 1, end + 1);
  }

  /** Series i's steps from tiers and the samples its other windows need; undefined when it has no tiers. */
  read(i: number): Promise<WindowRead | undefined> {
    const b = Math.floor(i / BATCH);
    let p = this.batches.get(b);
    if (!p) {
      p = this.readBatch(b * BATCH, Math.min(this.series.length, (b + 1) * BATCH));
      this.batches.set(b, p);
    }
    return p.then((all) => {
      const w = all[i - b * BATCH];
      all[i - b * BATCH] = undefined;
      const taken = (this.taken.get(b) ?? 0) + 1;
      this.taken.set(b, taken);
      if (taken >= Math.min(BATCH, this.series.length - b * BATCH)) this.batches.delete(b);
      return w;
    });
  }

  private async readBatch(from: number, to: number): Promise<(WindowRead | undefined)[]> {
    const reads = await readThroughTiers(this.store, this.tenant, this.series.slice(from, to), this.intervals, mostlyRaw);
    if (!reads) return [];
    this.seen?.add(reads.resolution());
    const h = this.hint;
    const n = h.ends.length;
    const seg = new NumSeg(false, h.fn === "quantile_over_time" ? new QuantileSketch() : undefined);
    return reads.series.map((s) => {
      if (!s) return undefined;
      const steps: TierSteps = { vals: new Float64Array(n), has: new Uint8Array(n), mask: new Uint8Array(n) };
      for (let k = 0; k < n; k++) {
        if (s.whole[k]) continue;
        steps.mask[k] = 1;
        seg.clear();
        composeNumeric(s.covers[k]!, s.raw, seg);
        const v = windowValue(h, seg, h.ends[k]!);
        if (v === undefined) continue;
        steps.vals[k] = v;
        steps.has[k] = 1;
      }
      return { ts: s.raw.ts, vals: s.raw.vals, steps };
    });
  }
}
