/**
 * Hawkular bucketed stats through the rollup tiers (docs/storage.md, "What each query reads").
 * A bucket is answered from raw points exactly as before (P² median and percentiles, in
 * upstream's feed order) when it is mostly left to raw points anyway; otherwise min, max, sum,
 * samples and avg come from the stored rows (the same numbers, within float rounding) and the
 * median and percentiles from the rows' sketches (within 1 %, quantile-sketch.ts). Counter rate
 * stats are answered from the tiers as a whole or not at all.
 */
import type { AvailabilityBucketPoint, NumericBucketPoint } from "../bucket-points.ts";
import { emptyBucket } from "../bucket-points.ts";
import { numericBucketStats } from "../bucket-stats.ts";
import type { Buckets } from "../buckets.ts";
import type { PercentileRequest } from "../percentiles-param.ts";
import { availabilityBucketStats } from "../availability-stats.ts";
import { QuantileSketch } from "../quantile-sketch.ts";
import { availabilityFromSegment } from "./availability-bucket.ts";
import { composeAvailability, composeNumeric } from "./compose.ts";
import type { Cover } from "./cover.ts";
import { AvailSeg, NumSeg } from "./segment.ts";
import { mergeSeries, type Order } from "../series.ts";
import { withoutStaleMarkers } from "../../prometheus/staleness.ts";
import type { MetricType } from "../model.ts";
import type { MetricsReader } from "../reader.ts";
import { readThroughTiers, type SeriesCovers } from "./read-through.ts";

/** Names the resolutions a response read, for its header (RESOLUTION_HEADER). */
export class Resolutions {
  private readonly names = new Set<string>();

  /** `rawOnly`: the answer is to be read from raw points alone (asked with the request header, to compare). */
  constructor(readonly rawOnly = false) {}

  /** Adds a list as readThroughTiers' resolution() gives it: tier names coarsest first, then "raw". */
  add(list: string): void {
    for (const n of list.split(",")) if (n) this.names.add(n);
  }

  /** The tiers read in the order they were first named, "raw" last; "raw" when nothing else was read. */
  header(): string {
    const tiers = [...this.names].filter((n) => n !== "raw");
    return [...tiers, ...(this.names.has("raw") || tiers.length === 0 ? ["raw"] : [])].join(",");
  }
}

export interface TierStatsRequest {
  buckets: Buckets;
  percentiles?: readonly PercentileRequest[];
  /** P² feed order of the buckets answered from raw points. */
  feedOrder: Order;
}

function intervalsOf(b: Buckets): number[] {
  const out: number[] = [];
  for (let i = 0; i < b.count; i++) out.push(b.start + i * b.step, b.start + (i + 1) * b.step);
  return out;
}

/** A bucket is read raw when raw points answer most of it anyway (or no tier fits it). */
const mostlyRaw = (c: Cover, lo: number, hi: number) => c.rawComplete && (c.tiers.size === 0 || c.rawSpan * 2 >= hi - lo);

function newSeg(rates = false): NumSeg {
  return new NumSeg(rates, new QuantileSketch(), rates ? new QuantileSketch() : undefined);
}

/** The segment of one series over bucket b: its raw points when answered whole, else its cover. */
function segmentOf(s: SeriesCovers, b: number, lo: number, hi: number, into: NumSeg): void {
  if (!s.whole[b]) {
    composeNumeric(s.covers[b]!, s.raw, into);
    return;
  }
  composeNumeric({ pieces: [{ lo, hi }], tiers: new Set(), rawComplete: true, rawSpan: hi - lo }, s.raw, into);
}

function bucketOf(seg: NumSeg, start: number, end: number, percentiles: readonly PercentileRequest[], rate: boolean): NumericBucketPoint {
  const n = rate ? seg.rn : seg.n;
  if (n === 0) return emptyBucket(start, end);
  const min = rate ? seg.rmin : seg.min;
  const max = rate ? seg.rmax : seg.max;
  const sum = rate ? seg.rsum : seg.sum;
  const sketch = (rate ? seg.rateSketch : seg.sketch)!;
  const point: NumericBucketPoint = { start, end, min, avg: sum / n, median: sketch.quantile(0.5, min, max), max, sum, samples: n, empty: false };
  if (percentiles.length > 0) point.percentiles = percentiles.map((p) => ({ quantile: p.quantile, originalQuantile: p.original, value: sketch.quantile(p.quantile / 100, min, max) }));
  return point;
}

/**
 * Value stats of gauges or counters per bucket through the tiers: of one series each
 * (`stacked` or a single metric: one list per series) or pooled (one list). Undefined when the
 * store keeps no tiers or no bucket could use them: the caller reads raw points as before.
 */
export async function tierValueStats(
  store: MetricsReader,
  tenant: string,
  type: MetricType,
  ids: readonly string[],
  q: TierStatsRequest,
  pooled: boolean,
  seen?: Resolutions,
): Promise<NumericBucketPoint[][] | undefined> {
  if (seen?.rawOnly) return undefined;
  const { buckets } = q;
  const iv = intervalsOf(buckets);
  const reads = await readThroughTiers(store, tenant, ids.map((id) => ({ type, id })), iv, mostlyRaw);
  const series = reads?.series.filter((s): s is SeriesCovers => s !== undefined) ?? [];
  if (!reads || series.every((s) => s.whole.every(Boolean))) return undefined;
  seen?.add(reads.resolution());
  const percentiles = q.percentiles ?? [];
  const opts = { percentiles, feedOrder: q.feedOrder };
  // Staleness markers are no points for the Hawkular stats (the raw path leaves them out too).
  const wholeStats = (raws: { ts: Float64Array; values: Float64Array }[]) => numericBucketStats(raws.length === 1 ? withoutStaleMarkers(raws[0]!) : mergeSeries(raws.map(withoutStaleMarkers)), buckets, opts);
  if (!pooled) {
    return series.map((s) => {
      const raw = s.whole.some(Boolean) ? wholeStats([{ ts: s.raw.ts, values: s.raw.vals }]) : undefined;
      const seg = newSeg();
      return s.whole.map((w, b) => {
        if (w) return raw![b]!;
        seg.clear();
        segmentOf(s, b, iv[2 * b]!, iv[2 * b + 1]!, seg);
        return bucketOf(seg, iv[2 * b]!, iv[2 * b + 1]!, percentiles, false);
      });
    });
  }
  const raw = series.some((s) => s.whole.some(Boolean)) ? wholeStats(series.map((s) => ({ ts: s.raw.ts, values: s.raw.vals }))) : undefined;
  const one = newSeg();
  const all = newSeg();
  const out: NumericBucketPoint[] = [];
  for (let b = 0; b < buckets.count; b++) {
    const lo = iv[2 * b]!;
    const hi = iv[2 * b + 1]!;
    if (series.every((s) => s.whole[b])) {
      out.push(raw![b]!);
      continue;
    }
    all.clear();
    for (const s of series) {
      one.clear();
      segmentOf(s, b, lo, hi, one);
      all.mergeUnordered(one);
    }
    out.push(bucketOf(all, lo, hi, percentiles, false));
  }
  return [out];
}

/**
 * Per-minute rate stats of counters through the tiers: each series' points composed bucket by
 * bucket in order (a bucket's rates include the pair from the previous bucket's last point, as
 * the raw computation does), medians from the rate sketches. Undefined when no bucket of any
 * series could use a tier.
 */
export async function tierRateStats(
  store: MetricsReader,
  tenant: string,
  ids: readonly string[],
  q: TierStatsRequest,
  pooled: boolean,
  seen?: Resolutions,
): Promise<NumericBucketPoint[][] | undefined> {
  if (seen?.rawOnly) return undefined;
  const { buckets } = q;
  const iv = intervalsOf(buckets);
  const reads = await readThroughTiers(store, tenant, ids.map((id) => ({ type: "counter" as const, id })), iv, () => false);
  const series = reads?.series.filter((s): s is SeriesCovers => s !== undefined) ?? [];
  if (!reads || series.every((s) => s.covers.every((c) => c.tiers.size === 0))) return undefined;
  seen?.add(reads.resolution());
  const percentiles = q.percentiles ?? [];
  const perSeries = series.map((s) => {
    const segs: NumSeg[] = [];
    let lastT = Number.NaN;
    let lastV = Number.NaN;
    for (let b = 0; b < buckets.count; b++) {
      const seg = newSeg(true);
      composeNumeric(s.covers[b]!, s.raw, seg);
      if (seg.n > 0) {
        if (!Number.isNaN(lastT) && seg.firstV >= lastV) seg.addRate((60_000 * (seg.firstV - lastV)) / (seg.firstT - lastT));
        lastT = seg.lastT;
        lastV = seg.lastV;
      }
      segs.push(seg);
    }
    return segs;
  });
  if (!pooled) return perSeries.map((segs) => segs.map((seg, b) => bucketOf(seg, iv[2 * b]!, iv[2 * b + 1]!, percentiles, true)));
  const out: NumericBucketPoint[] = [];
  for (let b = 0; b < buckets.count; b++) {
    const all = newSeg(true);
    for (const segs of perSeries) all.mergeUnordered(segs[b]!);
    out.push(bucketOf(all, iv[2 * b]!, iv[2 * b + 1]!, percentiles, true));
  }
  return [out];
}

/** Availability stats of one metric through the tiers; undefined when no bucket could use them. */
export async function tierAvailabilityStats(store: MetricsReader, tenant: string, id: string, buckets: Buckets, seen?: Resolutions): Promise<AvailabilityBucketPoint[] | undefined> {
  if (seen?.rawOnly) return undefined;
  const iv = intervalsOf(buckets);
  const reads = await readThroughTiers(store, tenant, [{ type: "availability", id }], iv, (c, lo, hi) => c.rawComplete && (c.tiers.size === 0 || c.rawSpan * 2 >= hi - lo));
  const s = reads?.series[0];
  if (!reads || !s || s.whole.every(Boolean)) return undefined;
  seen?.add(reads.resolution());
  const raw = s.whole.some(Boolean) ? availabilityBucketStats(withoutStaleMarkers({ ts: s.raw.ts, values: s.raw.vals }), buckets) : undefined;
  return s.whole.map((w, b) => {
    if (w) return raw![b]!;
    const lo = iv[2 * b]!;
    const hi = iv[2 * b + 1]!;
    const seg = new AvailSeg();
    composeAvailability(s.covers[b]!, s.raw, seg);
    return seg.samples === 0 ? { start: lo, end: hi, samples: 0, upCount: 0, empty: true } : availabilityFromSegment(seg, lo, hi);
  });
}
