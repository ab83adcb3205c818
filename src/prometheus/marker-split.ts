import type { Labels } from "../promql/labels.ts";
import type { RawSeries } from "../promql/values.ts";
import { splitStaleMarkers } from "./staleness.ts";

/**
 * A stored series as PromQL reads it: the store's NaN values are staleness markers (see
 * src/prometheus/staleness.ts), handed to the evaluator apart from the samples.
 */
export function withMarkersApart(labels: Labels, ts: Float64Array, values: Float64Array): RawSeries {
  const s = splitStaleMarkers(ts, values);
  return s.stale.length > 0 ? { labels, ts: s.ts, vals: s.vals, stale: s.stale } : { labels, ts: s.ts, vals: s.vals };
}
