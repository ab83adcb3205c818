import type { MetricWrite } from "../metrics/model.ts";

/**
 * A program's own metrics (buffer depth, drops, ingest rate, request latencies...). One registry
 * per program instance; it renders to the Prometheus text format and to metric writes, so the
 * same numbers are scraped at /metrics and stored as metrics of the feed or collector.
 */
export type InstrumentKind = "counter" | "gauge" | "histogram";

export type Labels = Readonly<Record<string, string>>;

/** One value of an instrument: `suffix` is "_bucket", "_sum" or "_count" for histograms. */
export interface Sample {
  suffix: string;
  labels: Labels;
  value: number;
  /** How it is stored: cumulative counts are counters, the rest gauges. */
  stored: "counter" | "gauge";
}

export interface Instrument {
  name: string;
  help: string;
  kind: InstrumentKind;
  samples(): Sample[];
}

export interface Counter {
  inc(n?: number): void;
  readonly value: number;
}

export interface Histogram {
  observe(v: number): void;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Latency buckets in seconds, from a fast read to a slow bulk write. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function newCounter(): Counter & { read(): number } {
  let value = 0;
  return {
    inc(n = 1) {
      value += n;
    },
    get value() {
      return value;
    },
    read: () => value,
  };
}

/** Children of a labelled instrument, created on first use and kept in creation order. */
function family<T>(labelNames: readonly string[], make: () => T) {
  const children = new Map<string, { labels: Labels; child: T }>();
  return {
    with(labels: Labels): T {
      const key = labelNames.map((n) => labels[n] ?? "").join("\u0000");
      let e = children.get(key);
      if (!e) {
        const complete: Record<string, string> = {};
        for (const n of labelNames) complete[n] = labels[n] ?? "";
        children.set(key, (e = { labels: complete, child: make() }));
      }
      return e.child;
    },
    entries: () => [...children.values()],
  };
}

export class Telemetry {
  private readonly instruments = new Map<string, Instrument>();

  private add(i: Instrument, labelNames: readonly string[] = []): void {
    if (!NAME.test(i.name)) throw new Error(`invalid metric name ${i.name}`);
    for (const l of labelNames) if (!LABEL.test(l) || l === "le") throw new Error(`invalid label name ${l}`);
    if (this.instruments.has(i.name)) throw new Error(`metric ${i.name} registered twice`);
    this.instruments.set(i.name, i);
  }

  /** A monotonically increasing count; by convention its name ends in _total. */
  counter(name: string, help: string): Counter {
    const c = newCounter();
    this.add({ name, help, kind: "counter", samples: () => [{ suffix: "", labels: {}, value: c.read(), stored: "counter" }] });
    return c;
  }

  /**
   * A count kept by someone else, read when sampled. Stored metrics of type counter hold
   * integers: a fractional count (CPU seconds) is stored as a gauge instead.
   */
  counterFrom(name: string, help: string, read: () => number, stored: "counter" | "gauge" = "counter"): void {
    this.add({ name, help, kind: "counter", samples: () => [{ suffix: "", labels: {}, value: read(), stored }] });
  }

  /** Counters told apart by labels, e.g. requests by interface and status class. */
  counters(name: string, help: string, labelNames: readonly string[]): { with(labels: Labels): Counter } {
    const f = family(labelNames, newCounter);
    this.add({ name, help, kind: "counter", samples: () => f.entries().map((e) => ({ suffix: "", labels: e.labels, value: e.child.read(), stored: "counter" })) }, labelNames);
    return f;
  }

  /** A value read when sampled, from whatever owns it. */
  gauge(name: string, help: string, read: () => number): void {
    this.add({ name, help, kind: "gauge", samples: () => [{ suffix: "", labels: {}, value: read(), stored: "gauge" }] });
  }

  /** Gauges told apart by one label, read together (e.g. file sizes per database). */
  gauges(name: string, help: string, labelName: string, read: () => ReadonlyArray<readonly [string, number]>): void {
    this.add({ name, help, kind: "gauge", samples: () => read().map(([v, value]) => ({ suffix: "", labels: { [labelName]: v }, value, stored: "gauge" })) }, [labelName]);
  }

  /** Distributions (latencies) in cumulative buckets, told apart by labels. */
  histograms(name: string, help: string, labelNames: readonly string[], buckets: readonly number[] = LATENCY_BUCKETS): { with(labels: Labels): Histogram } {
    const bounds = [...buckets].sort((a, b) => a - b);
    const f = family(labelNames, () => ({ counts: new Array<number>(bounds.length).fill(0), count: 0, sum: 0 }));
    this.add(
      {
        name,
        help,
        kind: "histogram",
        samples: () =>
          f.entries().flatMap(({ labels, child: h }) => [
            ...bounds.map((b, i) => ({ suffix: "_bucket", labels: { ...labels, le: String(b) }, value: h.counts[i]!, stored: "counter" as const })),
            { suffix: "_bucket", labels: { ...labels, le: "+Inf" }, value: h.count, stored: "counter" as const },
            { suffix: "_sum", labels, value: h.sum, stored: "gauge" as const },
            { suffix: "_count", labels, value: h.count, stored: "counter" as const },
          ]),
      },
      labelNames,
    );
    return {
      with(labels) {
        const h = f.with(labels);
        return {
          observe(v) {
            h.count++;
            h.sum += v;
            // Cumulative buckets: every bound at or above the value counts it.
            for (let i = bounds.length - 1; i >= 0 && v <= bounds[i]!; i--) h.counts[i]!++;
          },
        };
      },
    };
  }

  list(): Instrument[] {
    return [...this.instruments.values()];
  }
}

function formatNumber(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(v);
}

const escapeHelp = (s: string) => s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeLabel = (s: string) => s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

/** Prometheus text exposition format 0.0.4. */
export function renderPrometheus(t: Telemetry): string {
  let out = "";
  for (const i of t.list()) {
    out += `# HELP ${i.name} ${escapeHelp(i.help)}\n# TYPE ${i.name} ${i.kind}\n`;
    for (const s of i.samples()) out += `${i.name}${s.suffix}${labelText(s.labels)} ${formatNumber(s.value)}\n`;
  }
  return out;
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** The id a sample is stored under: `${idPrefix}${name}${suffix}`, then `:value` per label. */
export function sampleId(idPrefix: string, name: string, s: Sample): string {
  return `${idPrefix}${name}${s.suffix}${Object.values(s.labels)
    .map((v) => `:${v}`)
    .join("")}`;
}

/**
 * One point per sample at `timestamp`, as metric writes with ids from `sampleId`: cumulative
 * counts as counter metrics (integers), the rest as gauges. Non-finite values are skipped.
 */
export function telemetryWrites(t: Telemetry, idPrefix: string, timestamp: number): MetricWrite[] {
  const out: MetricWrite[] = [];
  for (const i of t.list()) {
    for (const s of i.samples()) {
      if (!Number.isFinite(s.value)) continue;
      out.push({ type: s.stored, id: sampleId(idPrefix, i.name, s), points: [{ timestamp, value: s.stored === "counter" ? Math.round(s.value) : s.value }] });
    }
  }
  return out;
}
