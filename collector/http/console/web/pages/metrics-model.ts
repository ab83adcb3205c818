import { type Api, seg } from "../api.ts";
import type { AvailabilitySegment } from "../components/availability-strip.tsx";
import type { ChartData, ChartLine } from "../components/chart.tsx";

/** How the console reads and draws metrics (docs/console.md, "Metrics"). */

export type MetricKind = "gauge" | "counter" | "availability" | "string";
export const KINDS: readonly MetricKind[] = ["gauge", "counter", "availability", "string"];
const PATH: Record<MetricKind, string> = { gauge: "gauges", counter: "counters", availability: "availability", string: "strings" };

export interface MetricRef {
  type: MetricKind;
  id: string;
}

/** A metric in the view's URL: `gauge:web-1:cpu_usage_percent:total` (the type never holds a colon). */
export function refText(m: MetricRef): string {
  return `${m.type}:${m.id}`;
}
export function parseRef(text: string): MetricRef | undefined {
  const i = text.indexOf(":");
  const type = text.slice(0, i) as MetricKind;
  return i > 0 && KINDS.includes(type) && i < text.length - 1 ? { type, id: text.slice(i + 1) } : undefined;
}

/** Ranges up to this long are read as raw points; longer ones as bucketed stats (a month draws at once). */
export const RAW_MAX_MS = 6 * 3_600_000;
/** Buckets of a long range: about one per 3 pixels of a wide chart (at most). */
export const BUCKETS = 300;

const MINUTE = 60_000;
/**
 * Bucket lengths a long range is drawn in: each a whole number of the collector's rollup steps
 * (5 min, 1 h, 1 day by default), so that a bucket starting on its own grid is made of whole
 * stored rows and the collector reads no raw points for it (docs/storage.md, "Rollup tiers").
 */
const STEPS = [5, 10, 15, 20, 30, 60, 120, 180, 240, 360, 480, 720, 1440, 2 * 1440, 3 * 1440, 4 * 1440, 7 * 1440, 14 * 1440, 30 * 1440].map((m) => m * MINUTE);

/**
 * The buckets a long range is drawn in: the shortest listed length giving at most BUCKETS
 * buckets, starting on a multiple of that length (the range's start rounded down).
 */
export function bucketsOf(range: [number, number]): { start: number; step: number } {
  const span = range[1] - range[0];
  const step = STEPS.find((s) => span / s <= BUCKETS) ?? Math.ceil(span / BUCKETS / (1440 * MINUTE)) * 1440 * MINUTE;
  return { start: Math.floor(range[0] / step) * step, step };
}
const RAW_LIMIT = 100_000;

export const RANGES: { id: string; label: string; ms: number }[] = [
  { id: "15mn", label: "15 min", ms: 15 * 60_000 },
  { id: "1h", label: "1 h", ms: 3_600_000 },
  { id: "6h", label: "6 h", ms: 6 * 3_600_000 },
  { id: "24h", label: "24 h", ms: 24 * 3_600_000 },
  { id: "7d", label: "7 d", ms: 7 * 86_400_000 },
  { id: "30d", label: "30 d", ms: 30 * 86_400_000 },
];

/** The named ranges no longer than `maxMs` (an agent's local window), the shortest at least; all without a bound. */
export function rangesWithin(maxMs: number | undefined): typeof RANGES {
  if (maxMs === undefined) return RANGES;
  const within = RANGES.filter((r) => r.ms <= maxMs);
  return within.length > 0 ? within : RANGES.slice(0, 1);
}

/** The time range of a view: a named range ending now, or fixed `from`/`to` (zoomed or picked). */
export function resolveRange(q: URLSearchParams, now: number): [number, number] {
  const from = Number(q.get("from"));
  const to = Number(q.get("to"));
  if (Number.isFinite(from) && Number.isFinite(to) && from > 0 && to > from) return [from, to];
  const named = RANGES.find((r) => r.id === q.get("range")) ?? RANGES[1]!;
  return [now - named.ms, now];
}

export const isBucketed = (range: [number, number]) => range[1] - range[0] > RAW_MAX_MS;

interface Point {
  timestamp: number;
  value: number | string;
}
interface NumericBucket {
  start: number;
  end: number;
  empty: boolean;
  min?: number;
  avg?: number;
  max?: number;
}

/** One numeric series as read: timestamps (ms) and values, with min/max when bucketed. */
export interface NumericSeries {
  ts: number[];
  values: (number | null)[];
  min?: (number | null)[];
  max?: (number | null)[];
}

/** Counters are shown as a rate per second; the interface answers per minute. */
const PER_MINUTE_TO_SECOND = 1 / 60;

/** Raw points or bucketed stats of a gauge, or the rate of a counter, over the range. */
export async function readNumeric(api: Api, m: MetricRef, range: [number, number], signal?: AbortSignal): Promise<NumericSeries> {
  const [start, end] = range;
  const base = `svc/metrics/${PATH[m.type]}/${seg(m.id)}`;
  const scale = m.type === "counter" ? PER_MINUTE_TO_SECOND : 1;
  if (!isBucketed(range)) {
    const path = m.type === "counter" ? `${base}/rate` : `${base}/raw`;
    const points = await api.list<Point>(path, { start, end, order: "ASC", limit: RAW_LIMIT }, signal);
    return { ts: points.map((p) => p.timestamp), values: points.map((p) => (typeof p.value === "number" ? p.value * scale : null)) };
  }
  const path = m.type === "counter" ? `${base}/rate/stats` : `${base}/stats`;
  const grid = bucketsOf(range);
  const buckets = await api.list<NumericBucket>(path, { start: grid.start, end, bucketDuration: `${grid.step}ms` }, signal);
  const v = (x: number | undefined, b: NumericBucket) => (b.empty || x === undefined ? null : x * scale);
  return {
    ts: buckets.map((b) => Math.round((b.start + b.end) / 2)),
    values: buckets.map((b) => v(b.avg, b)),
    min: buckets.map((b) => v(b.min, b)),
    max: buckets.map((b) => v(b.max, b)),
  };
}

/**
 * Several series over one time axis: the union of their timestamps, each series null where it
 * has no point (uPlot draws aligned columns).
 */
export function alignSeries(labels: readonly string[], list: readonly NumericSeries[]): ChartData {
  const all = new Set<number>();
  for (const s of list) for (const t of s.ts) all.add(t);
  const x = [...all].sort((a, b) => a - b);
  const index = new Map(x.map((t, i) => [t, i] as const));
  const lines: ChartLine[] = list.map((s, k) => {
    const place = (src: (number | null)[] | undefined) => {
      if (!src) return undefined;
      const out: (number | null)[] = new Array(x.length).fill(null);
      s.ts.forEach((t, i) => {
        out[index.get(t)!] = src[i] ?? null;
      });
      return out;
    };
    return { label: labels[k]!, values: place(s.values)!, min: place(s.min), max: place(s.max) };
  });
  return { x, lines };
}

/**
 * Availability as stretches of one state, over any range: its changes are few even when its
 * points are many (the interface drops repeats, `distinct`), so it is never bucketed; bucketed
 * stats would show buckets without a change as empty.
 */
export async function readAvailability(api: Api, id: string, range: [number, number], signal?: AbortSignal): Promise<AvailabilitySegment[]> {
  const [start, end] = range;
  const base = `svc/metrics/availability/${seg(id)}`;
  // The state when the range begins is that of the last change before it.
  const [before, points] = await Promise.all([
    // Explicit bounds: without a start the interface would take 8 hours before now.
    api.list<Point>(`${base}/raw`, { start: Math.max(0, start - LOOK_BACK_MS), end: start, order: "DESC", limit: 1 }, signal),
    api.list<Point>(`${base}/raw`, { start, end, order: "ASC", distinct: true, limit: RAW_LIMIT }, signal),
  ]);
  return stateSegments(before[0], points, range);
}

/** How far back the state before a range is looked for (beyond the longest retention anyone keeps points). */
const LOOK_BACK_MS = 400 * 86_400_000;

const asState = (v: unknown): AvailabilitySegment["state"] => (v === "up" || v === "down" ? v : "unknown");

/** Stretches between consecutive changes; the last one lasts to the end of the range. */
export function stateSegments(before: Point | undefined, points: readonly Point[], range: [number, number]): AvailabilitySegment[] {
  const out: AvailabilitySegment[] = [];
  let state = before ? asState(before.value) : undefined;
  let from = range[0];
  for (const p of points) {
    const next = asState(p.value);
    if (state !== undefined && p.timestamp > from) out.push({ start: from, end: p.timestamp, state });
    state = next;
    from = Math.max(from, p.timestamp);
  }
  if (state !== undefined && range[1] > from) out.push({ start: from, end: range[1], state });
  // Neighbours in the same state become one.
  const merged: AvailabilitySegment[] = [];
  for (const s of out) {
    const last = merged[merged.length - 1];
    if (last && last.state === s.state && last.end === s.start) last.end = s.end;
    else merged.push({ ...s });
  }
  return merged;
}

/** The latest values of a string metric (they are shown as a list, not drawn). */
export async function readStrings(api: Api, id: string, range: [number, number], signal?: AbortSignal): Promise<Point[]> {
  return api.list<Point>(`svc/metrics/strings/${seg(id)}/raw`, { start: range[0], end: range[1], order: "DESC", limit: 50 }, signal);
}

/** A metric definition as GET /svc/metrics/metrics lists it. */
export interface MetricDefinition {
  id: string;
  type: MetricKind;
  tags?: Record<string, string>;
  minTimestamp?: number;
  maxTimestamp?: number;
}

/** The text as a regular expression found anywhere in an id (case-insensitive), or as plain text when it is not one. */
export function idMatcher(text: string): (id: string) => boolean {
  try {
    const re = new RegExp(text, "i");
    return (id) => re.test(id);
  } catch {
    const needle = text.toLowerCase();
    return (id) => id.toLowerCase().includes(needle);
  }
}

/**
 * Definitions whose id contains `id` (a regular expression) and whose tags match `tags`. With
 * tags the interface filters both (its `id` is then a regular expression over the whole id);
 * without, its `id` names exact ids (Hawkular 0.2x), so the page lists the type's definitions
 * and looks in them itself. Sorted by id.
 */
export async function findMetrics(api: Api, id: string, tags: string, type: string): Promise<MetricDefinition[]> {
  const list = tags
    ? await api.list<MetricDefinition>("svc/metrics/metrics", { tags, type, id: id ? `.*(?:${id}).*` : undefined })
    : (await api.list<MetricDefinition>("svc/metrics/metrics", { type })).filter((d) => !id || idMatcher(id)(d.id));
  return list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
