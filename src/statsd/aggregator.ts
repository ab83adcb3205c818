/**
 * StatsD metrics aggregated per flush interval, so that a burst of packets becomes one point
 * per series per interval, in Prometheus' shapes (docs/inputs.md, "StatsD"):
 *
 * - counter `c`: a running total (each value divided by its sample rate), `<name>_total`;
 * - gauge `g`: the last level (changes applied to it), kept from flush to flush;
 * - timer `ms`, histogram `h`, distribution `d`: per flush, the configured percentiles as
 *   `<name>{quantile="0.9"}` (nearest rank), `<name>_min`, `<name>_max`; and running
 *   `<name>_sum`, `<name>_count` (with sample rates), as a Prometheus summary;
 * - set `s`: the number of distinct members seen in the interval.
 *
 * Names and tag keys become Prometheus names (other characters `_`, a leading digit `_`-led).
 * A series not updated for `expireAfterMs` is dropped, its outputs ended (staleness marker).
 */
import { formatOpenMetricsFloat } from "../prometheus/float-format.ts";
import type { StatsdMetric, StatsdType } from "./statsd-line.ts";

export interface StatsdSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface AggregatorOptions {
  percentiles: readonly number[];
  expireAfterMs: number;
  maxSeries: number;
  /** Written when an expired series ends (undefined: nothing is written). */
  staleMarker?: number;
}

interface Series {
  kind: "counter" | "gauge" | "timing" | "set";
  name: string;
  labels: Record<string, string>;
  updated: number;
  /** counter total, gauge level */
  value: number;
  /** timings: this interval's values; running sum and count */
  values: number[];
  sum: number;
  count: number;
  members?: Set<string>;
}

const KIND: Record<StatsdType, Series["kind"]> = { c: "counter", g: "gauge", ms: "timing", h: "timing", d: "timing", s: "set" };

export function statsdName(name: string): string {
  const n = name.replace(/[^a-zA-Z0-9_:]/g, "_");
  return /^[0-9]/.test(n) ? `_${n}` : n;
}

function labelName(key: string): string {
  const n = key.replace(/[^a-zA-Z0-9_]/g, "_");
  return /^[0-9]/.test(n) ? `_${n}` : n;
}

export class StatsdAggregator {
  private readonly series = new Map<string, Series>();
  /** Metrics refused because max_series was reached, since the last flush. */
  refused = 0;

  constructor(private readonly o: AggregatorOptions) {}

  get size(): number {
    return this.series.size;
  }

  add(m: StatsdMetric, now: number): void {
    const kind = KIND[m.type];
    const name = statsdName(m.name);
    let key = `${kind}\u0000${name}`;
    const tags = m.tags.length > 1 ? [...m.tags].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) : m.tags;
    for (const [k, v] of tags) key += `\u0000${k}\u0001${v}`;
    let s = this.series.get(key);
    if (!s) {
      if (this.series.size >= this.o.maxSeries) {
        this.refused++;
        return;
      }
      const labels: Record<string, string> = {};
      for (const [k, v] of tags) {
        const l = labelName(k);
        if (l !== "__name__" && l !== "") labels[l] = v;
      }
      s = { kind, name, labels, updated: now, value: 0, values: [], sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.updated = now;
    switch (kind) {
      case "counter":
        for (const v of m.values) s.value += (v as number) / m.rate;
        break;
      case "gauge":
        for (const v of m.values) s.value = m.delta ? s.value + (v as number) : (v as number);
        break;
      case "timing":
        for (const v of m.values) {
          s.values.push(v as number);
          s.sum += (v as number) / m.rate;
          s.count += 1 / m.rate;
        }
        break;
      case "set":
        s.members ??= new Set();
        for (const v of m.values) s.members.add(String(v));
        break;
    }
  }

  /** The samples of this interval; forgets expired series (with their end, when markers are given). */
  flush(now: number): StatsdSample[] {
    const out: StatsdSample[] = [];
    const push = (name: string, labels: Record<string, string>, value: number) => out.push({ name, labels, value });
    for (const [key, s] of this.series) {
      if (this.o.expireAfterMs > 0 && now - s.updated > this.o.expireAfterMs) {
        this.series.delete(key);
        if (this.o.staleMarker !== undefined) for (const n of outputNames(s, this.o.percentiles)) push(n.name, n.labels, this.o.staleMarker);
        continue;
      }
      switch (s.kind) {
        case "counter":
          push(`${s.name}_total`, s.labels, s.value);
          break;
        case "gauge":
          push(s.name, s.labels, s.value);
          break;
        case "set":
          push(s.name, s.labels, s.members?.size ?? 0);
          s.members?.clear();
          break;
        case "timing":
          if (s.values.length > 0) {
            const sorted = [...s.values].sort((a, b) => a - b);
            for (const p of this.o.percentiles) {
              const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
              push(s.name, { ...s.labels, quantile: formatOpenMetricsFloat(p / 100) }, sorted[rank - 1]!);
            }
            push(`${s.name}_min`, s.labels, sorted[0]!);
            push(`${s.name}_max`, s.labels, sorted[sorted.length - 1]!);
            s.values = [];
          }
          push(`${s.name}_sum`, s.labels, s.sum);
          push(`${s.name}_count`, s.labels, s.count);
          break;
      }
    }
    return out;
  }
}

/** Every series a StatsD series writes (for its end). */
function outputNames(s: Series, percentiles: readonly number[]): { name: string; labels: Record<string, string> }[] {
  switch (s.kind) {
    case "counter":
      return [{ name: `${s.name}_total`, labels: s.labels }];
    case "gauge":
    case "set":
      return [{ name: s.name, labels: s.labels }];
    case "timing":
      return [
        ...percentiles.map((p) => ({ name: s.name, labels: { ...s.labels, quantile: formatOpenMetricsFloat(p / 100) } })),
        ...["_min", "_max", "_sum", "_count"].map((suffix) => ({ name: `${s.name}${suffix}`, labels: s.labels })),
      ];
  }
}
