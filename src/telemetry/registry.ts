import type { MetricWrite } from "../metrics/model.ts";

/**
 * A program's own metrics (buffer depth, drops, ingest rate...). One registry per program
 * instance; it renders to the Prometheus text format and to metric writes, so the same
 * numbers are scraped at /metrics and stored as metrics of the feed or collector.
 */
export type InstrumentKind = "counter" | "gauge";

export interface Instrument {
  name: string;
  help: string;
  kind: InstrumentKind;
  read(): number;
}

export interface Counter {
  inc(n?: number): void;
  readonly value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

export class Telemetry {
  private readonly instruments = new Map<string, Instrument>();

  private add(i: Instrument): void {
    if (!NAME.test(i.name)) throw new Error(`invalid metric name ${i.name}`);
    if (this.instruments.has(i.name)) throw new Error(`metric ${i.name} registered twice`);
    this.instruments.set(i.name, i);
  }

  /** A monotonically increasing count; by convention its name ends in _total. */
  counter(name: string, help: string): Counter {
    let value = 0;
    const c: Counter = {
      inc(n = 1) {
        value += n;
      },
      get value() {
        return value;
      },
    };
    this.add({ name, help, kind: "counter", read: () => value });
    return c;
  }

  /** A value read when sampled, from whatever owns it. */
  gauge(name: string, help: string, read: () => number): void {
    this.add({ name, help, kind: "gauge", read });
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

/** Prometheus text exposition format 0.0.4. */
export function renderPrometheus(t: Telemetry): string {
  let out = "";
  for (const i of t.list()) {
    out += `# HELP ${i.name} ${escapeHelp(i.help)}\n# TYPE ${i.name} ${i.kind}\n${i.name} ${formatNumber(i.read())}\n`;
  }
  return out;
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * One point per instrument at `timestamp`, as metric writes with ids `${idPrefix}${name}`:
 * counters as counter metrics (integers), gauges as gauge metrics. Non-finite values are skipped.
 */
export function telemetryWrites(t: Telemetry, idPrefix: string, timestamp: number): MetricWrite[] {
  const out: MetricWrite[] = [];
  for (const i of t.list()) {
    const v = i.read();
    if (!Number.isFinite(v)) continue;
    out.push({ type: i.kind, id: `${idPrefix}${i.name}`, points: [{ timestamp, value: i.kind === "counter" ? Math.round(v) : v }] });
  }
  return out;
}
