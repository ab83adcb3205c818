/** histogram_quantile over classic histograms: `le` buckets of cumulative counts. */
import { dropLabels, labelsKey, labelValue, type Labels } from "./labels.ts";
import type { StepSeries } from "./values.ts";
import { newStepSeries } from "./values.ts";

interface Bucket {
  upper: number;
  count: number;
}

/** Prometheus' bucketQuantile: linear interpolation inside the bucket that holds the rank. */
export function bucketQuantile(q: number, buckets: Bucket[]): number {
  if (Number.isNaN(q)) return Number.NaN;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  buckets.sort((a, b) => a.upper - b.upper);
  if (buckets.length === 0 || buckets[buckets.length - 1]!.upper !== Number.POSITIVE_INFINITY) return Number.NaN;
  // Buckets with the same bound (e.g. "1" and "1.0") add up.
  const merged: Bucket[] = [];
  for (const b of buckets) {
    const last = merged[merged.length - 1];
    if (last && last.upper === b.upper) last.count += b.count;
    else merged.push({ ...b });
  }
  // Counts must not decrease with the bound; scrapes of a histogram are not atomic.
  let max = Number.NEGATIVE_INFINITY;
  for (const b of merged) {
    if (b.count > max) max = b.count;
    else b.count = max;
  }
  if (merged.length < 2) return Number.NaN;
  const observations = merged[merged.length - 1]!.count;
  if (observations === 0) return Number.NaN;
  let rank = q * observations;
  let b = 0;
  while (b < merged.length - 1 && merged[b]!.count < rank) b++;
  if (b === merged.length - 1) return merged[merged.length - 2]!.upper;
  if (b === 0 && merged[0]!.upper <= 0) return merged[0]!.upper;
  let start = 0;
  const end = merged[b]!.upper;
  let count = merged[b]!.count;
  if (b > 0) {
    start = merged[b - 1]!.upper;
    count -= merged[b - 1]!.count;
    rank -= merged[b - 1]!.count;
  }
  return start + (end - start) * (rank / count);
}

const LE_AND_NAME = new Set(["le", "__name__"]);

/** histogram_quantile(φ, buckets) at every step; series without a valid `le` are ignored. */
export function histogramQuantile(phi: Float64Array, input: StepSeries[], n: number): StepSeries[] {
  const groups = new Map<string, { labels: Labels; members: { upper: number; s: StepSeries }[] }>();
  for (const s of input) {
    const le = labelValue(s.labels, "le");
    const upper = le === "" ? Number.NaN : parseLe(le);
    if (Number.isNaN(upper)) continue;
    const labels = dropLabels(s.labels, LE_AND_NAME);
    const key = labelsKey(labels);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { labels, members: [] }));
    g.members.push({ upper, s });
  }
  const out: StepSeries[] = [];
  for (const g of groups.values()) {
    const r = newStepSeries(g.labels, n);
    let any = false;
    for (let i = 0; i < n; i++) {
      const buckets: Bucket[] = [];
      for (const m of g.members) if (m.s.has[i]) buckets.push({ upper: m.upper, count: m.s.vals[i]! });
      if (buckets.length === 0) continue;
      r.vals[i] = bucketQuantile(phi[i]!, buckets);
      r.has[i] = 1;
      any = true;
    }
    if (any) out.push(r);
  }
  return out;
}

function parseLe(le: string): number {
  const t = le.trim().toLowerCase();
  if (t === "+inf" || t === "inf") return Number.POSITIVE_INFINITY;
  if (t === "-inf") return Number.NEGATIVE_INFINITY;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t) ? Number(t) : Number.NaN;
}
