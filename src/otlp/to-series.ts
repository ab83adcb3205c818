/**
 * OTLP metrics as Prometheus series, by the Prometheus/OpenTelemetry compatibility rules
 * (docs/inputs.md, "OTLP"):
 *
 * - resource `service.name` (after `service.namespace/`) → `job`, `service.instance.id` →
 *   `instance`; the other resource attributes go to one `target_info` series per resource;
 *   the scope's name and version → `otel_scope_name`, `otel_scope_version`;
 * - gauge → gauge; sum: monotonic → `<name>_total` (a counter), non-monotonic → gauge; delta
 *   temporality is accumulated into the cumulative value Prometheus expects (per series, in
 *   time order: a point at or before the last one taken is a resend and is skipped);
 * - histogram → `_bucket{le}` (cumulative), `_sum`, `_count`; exponential histogram → the same
 *   classic buckets at each bucket's upper bound (cumulative temporality only); summary →
 *   `{quantile}`, `_sum`, `_count`;
 * - a point flagged "no recorded value" ends its series (the staleness marker, when given).
 *
 * What cannot be taken is counted per data point, with a message, for OTLP's partial success.
 */
import { formatOpenMetricsFloat } from "../prometheus/float-format.ts";
import { seriesId } from "../prometheus/series-mapping.ts";
import {
  type Attributes,
  type AttributeValue,
  type ExponentialPoint,
  FLAG_NO_RECORDED_VALUE,
  type HistogramPoint,
  type MetricsRequest,
  type NumberPoint,
  type OtlpMetric,
  TEMPORALITY,
} from "./metrics-model.ts";
import { prometheusLabel, prometheusName } from "./naming.ts";

export interface SeriesSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp: number;
}

export interface Conversion {
  samples: SeriesSample[];
  /** Data points refused (OTLP partial success). */
  rejected: number;
  /** Why, for the partial-success message (the first few distinct reasons). */
  reasons: string[];
}

/**
 * Running totals of delta series, by series id, so that deltas become the cumulative values
 * Prometheus' functions expect. Bounded: past `maxSeries` the least recently updated go (a
 * series that comes back starts again from its next delta, which `rate` reads as a reset).
 */
export class DeltaTotals {
  private readonly totals = new Map<string, { value: number; lastMs: number }>();

  constructor(private readonly maxSeries = 100_000) {}

  /** The running total after adding `delta` at `timeMs`; undefined for a point at or before the last one taken. */
  add(key: string, delta: number, timeMs: number): number | undefined {
    const t = this.totals.get(key);
    if (t && timeMs <= t.lastMs) return undefined;
    const value = (t?.value ?? 0) + delta;
    // Re-inserted, so the map's order is the order of last updates.
    if (t) this.totals.delete(key);
    this.totals.set(key, { value, lastMs: timeMs });
    if (this.totals.size > this.maxSeries) this.totals.delete(this.totals.keys().next().value!);
    return value;
  }

  get size(): number {
    return this.totals.size;
  }
}

export interface ConvertOptions {
  /** Stamps points without a time. */
  now: number;
  /** Written for points flagged "no recorded value"; without it they are skipped. */
  staleMarker?: number;
}

function attributeText(v: AttributeValue): string {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** Attributes as labels; keys that become the same label have their values joined by ";" in key order. */
function addAttributes(out: Record<string, string>, attrs: Attributes): void {
  const byLabel = new Map<string, [string, string][]>();
  for (const [k, v] of attrs) {
    const label = prometheusLabel(k);
    const text = attributeText(v);
    if (label === "" || text === "") continue;
    let l = byLabel.get(label);
    if (!l) byLabel.set(label, (l = []));
    l.push([k, text]);
  }
  for (const [label, values] of byLabel) out[label] = values.length === 1 ? values[0]![1] : values.sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((x) => x[1]).join(";");
}

const IDENTIFYING = new Set(["service.name", "service.namespace", "service.instance.id"]);

function resourceLabels(resource: Attributes): { identity: Record<string, string>; info: Attributes } {
  const get = (k: string) => attributeText(resource.find(([key]) => key === k)?.[1]);
  const identity: Record<string, string> = {};
  const name = get("service.name");
  const ns = get("service.namespace");
  if (name) identity.job = ns ? `${ns}/${name}` : name;
  const instance = get("service.instance.id");
  if (instance) identity.instance = instance;
  return { identity, info: resource.filter(([k]) => !IDENTIFYING.has(k)) };
}

/** Upper bounds of an exponential histogram's buckets, and their cumulative counts, ascending. */
function exponentialBuckets(p: ExponentialPoint): [number, number][] {
  const base = 2 ** (2 ** -p.scale);
  const bound = (index: number) => base ** index;
  const out: [number, number][] = [];
  let total = 0;
  // Negative buckets, most negative first: bucket j holds (-base^(offset+j+1), -base^(offset+j)].
  const neg = p.negative;
  for (let j = neg.bucketCounts.length - 1; j >= 0; j--) {
    total += neg.bucketCounts[j]!;
    out.push([-bound(neg.offset + j), total]);
  }
  total += p.zeroCount;
  out.push([p.zeroThreshold, total]);
  const pos = p.positive;
  for (let i = 0; i < pos.bucketCounts.length; i++) {
    total += pos.bucketCounts[i]!;
    out.push([bound(pos.offset + i + 1), total]);
  }
  return out;
}

class Converter {
  readonly samples: SeriesSample[] = [];
  rejected = 0;
  readonly reasons = new Set<string>();

  constructor(
    private readonly deltas: DeltaTotals,
    private readonly o: ConvertOptions,
  ) {}

  reject(points: number, why: string): void {
    this.rejected += points;
    if (this.reasons.size < 5) this.reasons.add(why);
  }

  private time(ms: number): number {
    return ms > 0 ? ms : this.o.now;
  }

  /** One sample; a delta one is added to its running total first. */
  private emit(name: string, labels: Record<string, string>, value: number, timeMs: number, delta: boolean): void {
    let v = value;
    if (delta) {
      const total = this.deltas.add(seriesId(name, labels), value, timeMs);
      if (total === undefined) return;
      v = total;
    }
    this.samples.push({ name, labels, value: v, timestamp: timeMs });
  }

  /** A point without a recorded value: its series ends (staleness marker) when markers are given. */
  private ended(names: string[], labels: Record<string, string>, timeMs: number): void {
    if (this.o.staleMarker === undefined) return;
    for (const name of names) this.samples.push({ name, labels, value: this.o.staleMarker, timestamp: timeMs });
  }

  private labelsOf(base: Record<string, string>, attrs: Attributes): Record<string, string> {
    const labels: Record<string, string> = {};
    addAttributes(labels, attrs);
    return Object.assign(labels, base);
  }

  numberPoints(name: string, points: NumberPoint[], base: Record<string, string>, delta: boolean): void {
    for (const p of points) {
      const labels = this.labelsOf(base, p.attributes);
      const t = this.time(p.timeMs);
      if (p.flags & FLAG_NO_RECORDED_VALUE) this.ended([name], labels, t);
      else if (!Number.isFinite(p.value)) this.reject(1, `${name}: NaN and infinite values are not stored`);
      else this.emit(name, labels, p.value, t, delta);
    }
  }

  histogramPoints(name: string, points: HistogramPoint[], base: Record<string, string>, delta: boolean): void {
    for (const p of points) {
      const labels = this.labelsOf(base, p.attributes);
      const t = this.time(p.timeMs);
      const bounds = p.explicitBounds;
      if (p.flags & FLAG_NO_RECORDED_VALUE) {
        for (const le of [...bounds, Number.POSITIVE_INFINITY]) this.ended([`${name}_bucket`], { ...labels, le: formatOpenMetricsFloat(le) }, t);
        this.ended([`${name}_count`, ...(p.sum === undefined ? [] : [`${name}_sum`])], labels, t);
        continue;
      }
      if (p.bucketCounts.length !== 0 && p.bucketCounts.length !== bounds.length + 1) {
        this.reject(1, `${name}: a histogram point has ${p.bucketCounts.length} bucket counts for ${bounds.length} bounds (bounds + 1 expected)`);
        continue;
      }
      let cumulative = 0;
      for (let i = 0; i < bounds.length && p.bucketCounts.length > 0; i++) {
        cumulative += p.bucketCounts[i]!;
        this.emit(`${name}_bucket`, { ...labels, le: formatOpenMetricsFloat(bounds[i]!) }, cumulative, t, delta);
      }
      this.emit(`${name}_bucket`, { ...labels, le: "+Inf" }, p.count, t, delta);
      this.emit(`${name}_count`, labels, p.count, t, delta);
      if (p.sum !== undefined && Number.isFinite(p.sum)) this.emit(`${name}_sum`, labels, p.sum, t, delta);
    }
  }

  exponentialPoints(name: string, points: ExponentialPoint[], base: Record<string, string>): void {
    for (const p of points) {
      const labels = this.labelsOf(base, p.attributes);
      const t = this.time(p.timeMs);
      if (p.flags & FLAG_NO_RECORDED_VALUE) {
        this.ended([`${name}_count`, ...(p.sum === undefined ? [] : [`${name}_sum`])], labels, t);
        continue;
      }
      for (const [le, count] of exponentialBuckets(p)) this.emit(`${name}_bucket`, { ...labels, le: formatOpenMetricsFloat(le) }, count, t, false);
      this.emit(`${name}_bucket`, { ...labels, le: "+Inf" }, p.count, t, false);
      this.emit(`${name}_count`, labels, p.count, t, false);
      if (p.sum !== undefined && Number.isFinite(p.sum)) this.emit(`${name}_sum`, labels, p.sum, t, false);
    }
  }

  metric(m: OtlpMetric, base: Record<string, string>): number {
    const d = m.data;
    if (d.kind === "none") return 0;
    if (m.name === "") {
      this.reject(d.points.length, "a metric without a name");
      return 0;
    }
    const latest = d.points.reduce((a, p) => Math.max(a, this.time(p.timeMs)), 0);
    switch (d.kind) {
      case "gauge":
        this.numberPoints(prometheusName(m.name, m.unit, "gauge"), d.points, base, false);
        break;
      case "sum":
        if (d.temporality !== TEMPORALITY.delta && d.temporality !== TEMPORALITY.cumulative) {
          this.reject(d.points.length, `${m.name}: aggregation temporality unspecified`);
          return 0;
        }
        this.numberPoints(prometheusName(m.name, m.unit, d.monotonic ? "counter" : "other"), d.points, base, d.temporality === TEMPORALITY.delta);
        break;
      case "histogram":
        if (d.temporality !== TEMPORALITY.delta && d.temporality !== TEMPORALITY.cumulative) {
          this.reject(d.points.length, `${m.name}: aggregation temporality unspecified`);
          return 0;
        }
        this.histogramPoints(prometheusName(m.name, m.unit, "other"), d.points, base, d.temporality === TEMPORALITY.delta);
        break;
      case "exponentialHistogram":
        if (d.temporality !== TEMPORALITY.cumulative) {
          this.reject(d.points.length, `${m.name}: exponential histograms are taken with cumulative temporality only (set the exporter's temporality preference to cumulative)`);
          return 0;
        }
        this.exponentialPoints(prometheusName(m.name, m.unit, "other"), d.points, base);
        break;
      case "summary": {
        const name = prometheusName(m.name, m.unit, "other");
        for (const p of d.points) {
          const labels = this.labelsOf(base, p.attributes);
          const t = this.time(p.timeMs);
          if (p.flags & FLAG_NO_RECORDED_VALUE) {
            this.ended([`${name}_count`, `${name}_sum`], labels, t);
            continue;
          }
          for (const q of p.quantiles) if (Number.isFinite(q.value)) this.emit(name, { ...labels, quantile: formatOpenMetricsFloat(q.quantile) }, q.value, t, false);
          this.emit(`${name}_count`, labels, p.count, t, false);
          if (Number.isFinite(p.sum)) this.emit(`${name}_sum`, labels, p.sum, t, false);
        }
        break;
      }
    }
    return latest;
  }
}

/** Converts a decoded request. `deltas` holds the running totals of delta series between requests. */
export function otlpToSeries(req: MetricsRequest, deltas: DeltaTotals, o: ConvertOptions): Conversion {
  const c = new Converter(deltas, o);
  for (const rm of req.resources) {
    const { identity, info } = resourceLabels(rm.resource);
    let latest = 0;
    for (const sm of rm.scopes) {
      const base: Record<string, string> = {};
      if (sm.scope.name) base.otel_scope_name = sm.scope.name;
      if (sm.scope.version) base.otel_scope_version = sm.scope.version;
      Object.assign(base, identity);
      for (const m of sm.metrics) latest = Math.max(latest, c.metric(m, base));
    }
    // The resource's other attributes, once, as Prometheus' target_info.
    if (info.length > 0 && latest > 0) {
      const labels: Record<string, string> = {};
      addAttributes(labels, info);
      c.samples.push({ name: "target_info", labels: Object.assign(labels, identity), value: 1, timestamp: latest });
    }
  }
  return { samples: c.samples, rejected: c.rejected, reasons: [...c.reasons] };
}
