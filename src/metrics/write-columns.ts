/**
 * A numeric write body in column form: what the JSON worker thread (collector/metrics/
 * json-offload.ts) hands the main thread instead of one object per point. The typed arrays are
 * transferred, not copied, and the store builds its log body from them without a per-point loop.
 * Only bodies that normalizedMetricsBody accepts as they are become columns, so a columnar write
 * stores exactly what the MetricWrite[] of the same body stores.
 */
import type { DataPoint, MetricType, MetricWrite, Tags } from "./model.ts";
import { normalizedMetricsBody } from "./normalized.ts";

/** The numeric types whose bodies may travel as columns. */
export type ColumnType = "gauge" | "counter";
export const isColumnType = (t: MetricType): t is ColumnType => t === "gauge" || t === "counter";

export interface WriteColumns {
  type: ColumnType;
  /** One entry per metric of the body with at least one point, in body order (ids may repeat). */
  ids: string[];
  counts: Uint32Array;
  /** Point i of entry k lies at (sum of counts before k) + i. */
  ts: Float64Array;
  values: Float64Array;
  /** `[pointIndex, tags]` for each point that carried a `tags` object (possibly empty). */
  tags: [number, Tags][];
  /**
   * Set when the arrays are views of memory given back for another request's use (the ingest
   * worker's slots): the columns must not be read any more.
   */
  released?: boolean;
  /**
   * Per entry (parallel to `ids`), where the store may keep its handle of that series between
   * writes: remote write sends the same series again and again, and its series objects outlive
   * the request (issue 28: three hash lookups a sample were a fifth of the main thread).
   */
  slots?: readonly SeriesSlot[];
}

/**
 * A caller's object standing for one series id for good (its id never changes), in which a
 * store keeps its own handle of that series. The store checks the handle before each use (it
 * may be another store's, another tenant's, or of a series deleted since) and sets it again
 * when it does not hold; callers never read or write these fields.
 */
export interface SeriesSlot {
  storeOwner?: unknown;
  storeHandle?: unknown;
}

/**
 * The columns of a JSON write body of `type`, or undefined when the body is not valid JSON, holds
 * a null anywhere (the main thread removes null properties first), or is not in the normalized
 * form: such bodies take the main-thread path, which explains or converts them.
 */
export function parseColumns(type: ColumnType, text: string): WriteColumns | undefined {
  if (text.includes("null")) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const writes = normalizedMetricsBody(type, body);
  return writes && columnsOf(type, writes);
}

/** The columns of normalized writes of one numeric type (writes without points are left out). */
function columnsOf(type: ColumnType, writes: readonly MetricWrite[]): WriteColumns {
  let total = 0;
  let entries = 0;
  for (const w of writes) {
    total += w.points.length;
    if (w.points.length > 0) entries++;
  }
  const c: WriteColumns = { type, ids: [], counts: new Uint32Array(entries), ts: new Float64Array(total), values: new Float64Array(total), tags: [] };
  let o = 0;
  for (const w of writes) {
    const pts = w.points;
    if (pts.length === 0) continue;
    c.counts[c.ids.length] = pts.length;
    c.ids.push(w.id);
    for (let i = 0; i < pts.length; i++, o++) {
      const p = pts[i]!;
      c.ts[o] = p.timestamp;
      c.values[o] = p.value as number;
      if (p.tags !== undefined) c.tags.push([o, p.tags]);
    }
  }
  return c;
}

/**
 * The columns as MetricWrite[] for those that need objects (the points bus, the PostgreSQL
 * store). A write's points are made only when read: the bus's listeners look at the ids of most
 * writes and at the points of few. One small object per write (the getter is its class's, not a
 * closure per write: issue 28, four objects a write were a tenth of MQTT ingest's garbage).
 */
export function columnsToWrites(c: WriteColumns): MetricWrite[] {
  const out: MetricWrite[] = new Array(c.ids.length);
  const tags = c.tags.length > 0 ? new Map(c.tags) : undefined;
  let o = 0;
  for (let k = 0; k < c.ids.length; k++) {
    const n = c.counts[k]!;
    out[k] = new ColumnWrite(c, c.ids[k]!, o, n, tags);
    o += n;
  }
  return out;
}

class ColumnWrite implements MetricWrite {
  readonly type: ColumnType;
  private made?: DataPoint[];

  constructor(
    private readonly c: WriteColumns,
    readonly id: string,
    private readonly from: number,
    private readonly n: number,
    private readonly tags: Map<number, Tags> | undefined,
  ) {
    this.type = c.type;
  }

  get points(): DataPoint[] {
    if (this.made) return this.made;
    const { c, from, n, tags } = this;
    // Listeners read the points while the write is published; kept for later, the arrays
    // would by then hold another request's points.
    if (c.released) throw new Error("the points of a columnar write were read after its columns were released");
    const points: DataPoint[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const t = tags?.get(from + i);
      points[i] = t === undefined ? { timestamp: c.ts[from + i]!, value: c.values[from + i]! } : { timestamp: c.ts[from + i]!, value: c.values[from + i]!, tags: t };
    }
    this.made = points;
    return points;
  }
}
