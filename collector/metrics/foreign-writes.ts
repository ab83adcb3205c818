/**
 * Points from the Prometheus world (remote write, Influx line protocol) into the store through
 * the same write path as the Hawkular writes: definitions get the series' labels as tags first,
 * so that no query sees a series without its labels, then the points are committed.
 */

import { BytesMap } from "../../src/codec/bytes-map.ts";
import { ApiError } from "../../src/http/errors.ts";
import { ByIdTable } from "../../src/codec/by-id-table.ts";
import { metricIdProblem, tagsProblem, timestampProblem } from "../../src/metrics/limits.ts";
import type { MetricType, MetricWrite, Tags } from "../../src/metrics/model.ts";
import { MAX_STRING_LENGTH } from "../../src/metrics/model.ts";
import type { SeriesEntry } from "../../src/metrics/reader.ts";
import type { SeriesSlot, WriteColumns } from "../../src/metrics/write-columns.ts";
import { LabelFieldWriter } from "../../src/prometheus/label-fields.ts";
import { type MappedSeries, SampleColumns } from "../../src/prometheus/remote-write-columns.ts";
import { EXPORTED_NAME_TAG, isSeriesIdOf, NAME_TAG, seriesId, seriesTags } from "../../src/prometheus/series-mapping.ts";
import { STALE_NAN } from "../../src/prometheus/staleness.ts";
import { type WriteDeps, writeColumns, writePoints } from "./write-points.ts";

export interface ForeignSeries {
  name: string;
  labels: Record<string, string>;
  type: Extract<MetricType, "gauge" | "string">;
  /** `stale`: the value is a staleness marker (src/prometheus/staleness.ts), kept as such. */
  points: { timestamp: number; value: number | string; stale?: boolean }[];
}

export interface ForeignWriteResult {
  points: number;
  /** Samples that cannot be stored: NaN that is not a staleness marker, ±Inf. */
  skipped: number;
}

/** Checks what the Hawkular write schemas check; a bad point rejects the whole request (400). */
function validate(s: ForeignSeries): void {
  if (s.name === "") throw new ApiError(400, "series without a metric name (__name__)");
  for (const k of Object.keys(s.labels)) if (k === "") throw new ApiError(400, `series ${s.name} has a label with an empty name`);
  for (const p of s.points) {
    if (!Number.isSafeInteger(p.timestamp)) throw new ApiError(400, `timestamp must be an integer number of milliseconds (series ${s.name})`);
    const range = timestampProblem(p.timestamp);
    if (range) throw new ApiError(400, `${range} (series ${s.name})`);
    if (typeof p.value === "string" && p.value.length > MAX_STRING_LENGTH) {
      throw new ApiError(400, `string values are at most ${MAX_STRING_LENGTH} characters (series ${s.name})`);
    }
  }
}

export async function writeForeignSeries(deps: WriteDeps, tenant: string, series: ForeignSeries[], origin: string): Promise<ForeignWriteResult> {
  const byId = new Map<string, { type: ForeignSeries["type"]; tags: Tags; write: MetricWrite }>();
  let skipped = 0;
  for (const s of series) {
    validate(s);
    const id = seriesId(s.name, s.labels);
    // The limits of every other way in (docs/limits.md), on the id and tags the series maps to.
    const problem = metricIdProblem(id) ?? tagsProblem(seriesTags(s.name, s.labels), "metric");
    if (problem) throw new ApiError(400, `${problem} (series ${s.name})`);
    const key = `${s.type}\u0000${id}`;
    let entry = byId.get(key);
    if (!entry) byId.set(key, (entry = { type: s.type, tags: seriesTags(s.name, s.labels), write: { type: s.type, id, points: [] } }));
    for (const p of s.points) {
      if (p.stale) entry.write.points.push({ timestamp: p.timestamp, value: STALE_NAN });
      else if (typeof p.value === "number" && !Number.isFinite(p.value)) skipped++;
      else entry.write.points.push({ timestamp: p.timestamp, value: p.value });
    }
  }
  const entries = [...byId.values()].filter((e) => e.write.points.length > 0);
  await deps.store.ensureTags(
    tenant,
    entries.map((e) => ({ type: e.type, id: e.write.id, tags: e.tags })),
  );
  const points = await writePoints(
    deps,
    tenant,
    entries.map((e) => e.write),
    origin,
  );
  return { points, skipped };
}

/**
 * A remote-write series as it is stored: its metric id and tags (frozen, shared with the store),
 * itself the item ensureTags is given (one object a series rather than two: issue 28); the store
 * keeps its handle of the series in it (a SeriesSlot: its id never changes).
 */
export interface RemoteSeries extends MappedSeries, SeriesSlot {
  readonly type: "gauge";
  id: string;
  tags: Readonly<Tags>;
  /** The tenant and store definitions version with which ensureTags last had this series' tags stored. */
  ensuredTenant?: string;
  ensuredVersion?: number;
}

/** What every remote-write series has alike: on the prototype, not in each object (below). */
const REMOTE_SERIES = Object.freeze({ type: "gauge" as const });

/** A series not cached yet: no request has named it, no store holds a handle in it. */
function remoteSeries(id: string, tags: Readonly<Tags>): RemoteSeries {
  // Every field from the start: one shape, all fields in the object (see seriesMeta in the store).
  // Eight own fields: the engine's object for eight is 80 bytes, for nine 112 (issue 28).
  return { __proto__: REMOTE_SERIES, id, tags, lastRequest: 0, firstEntry: 0, storeOwner: undefined, storeHandle: undefined, ensuredTenant: undefined, ensuredVersion: undefined } as unknown as RemoteSeries;
}

/** Bytes of spare columns RemoteWriteColumns keeps: the columns of a few hundred requests of 1,024 samples. */
export const SPARE_BYTES = 16 * 1024 * 1024;

/**
 * What remote write's fast path (src/prometheus/remote-write-columns.ts) needs from the
 * collector: label sets mapped to metric ids and tags exactly as writeForeignSeries maps them
 * (and refused where it refuses them), cached by their bytes, and the columns of requests in
 * flight, reused from request to request.
 */
export class RemoteWriteColumns {
  readonly cache: BytesMap<RemoteSeries>;
  /**
   * One object per id, so that two label sets of one id in a request are seen as one series
   * (a ByIdTable rather than a Map: it is read on cache misses only, and held for every series).
   */
  private readonly byId = new ByIdTable<RemoteSeries>();
  /** Columns of requests done, for the next ones: SPARE_BYTES at most (see give). */
  private readonly spare: SampleColumns<RemoteSeries>[] = [];
  private spareBytes = 0;

  /** `maxEntries`: label sets the cache holds at most (past it, it starts again empty). */
  constructor(maxEntries?: number) {
    this.cache = new BytesMap<RemoteSeries>(maxEntries);
  }

  /** The series of a label set not seen before, or undefined where writeForeignSeries refuses it. */
  readonly map = (all: Record<string, string>): RemoteSeries | undefined => {
    // seriesId and seriesTags leave __name__ out: no copy of the labels without it.
    const name = all.__name__ ?? "";
    // As validate() and writeForeignSeries check a series (its samples are checked by the decode).
    if (name === "") return undefined;
    for (const k in all) if (k === "") return undefined;
    const id = seriesId(name, all);
    const tags = seriesTags(name, all);
    if (metricIdProblem(id) ?? tagsProblem(tags, "metric")) return undefined;
    let s = this.byId.get(id);
    if (!s) {
      if (this.byId.size >= this.cache.maxEntries) this.byId.clear();
      this.byId.add((s = remoteSeries(id, Object.freeze(tags))));
    }
    return s;
  };

  /**
   * Puts a tenant's stored series in the cache under the label bytes Prometheus sends for them
   * (labels sorted by name), as if they had been sent since the start: a series is taken only
   * where mapping those labels gives exactly its id and tags (so a hit answers what a miss
   * would have), and is marked ensured at `version`, its tags being the store's already. At most
   * half the cache is filled, the rest left to series not stored yet. Why: a restarted collector
   * mapped every series of the first requests anew (a backlog from 50,000 remote-write series:
   * 55 MB of heap within a second, the restart's peak; issue 28, docs/prometheus.md). Nothing
   * here makes garbage per series: the labels, the id check and the bytes use reused buffers.
   * Returns the series taken.
   */
  warm(tenant: string, entries: readonly SeriesEntry[], version: number | undefined): number {
    let taken = 0;
    for (const e of entries) {
      if (!this.roomToWarm()) break;
      if (e.type !== "gauge" || !e.tags || !this.labelsOf(e.tags)) continue;
      const n = this.names.length;
      if (!isSeriesIdOf(e.id, e.tags[NAME_TAG]!, this.names, this.values, n) || metricIdProblem(e.id) || tagsProblem(e.tags, "metric")) continue;
      this.fields.write(this.fieldNames, this.fieldValues, n + 1);
      const bytes = this.fields.bytes;
      const end = this.fields.length;
      if (this.cache.get(bytes, 0, end)) continue;
      let s = this.byId.get(e.id);
      if (!s) this.byId.add((s = remoteSeries(e.id, e.tags)));
      this.cache.set(bytes, 0, end, s);
      if (version !== undefined && s.ensuredVersion === undefined) {
        s.ensuredTenant = tenant;
        s.ensuredVersion = version;
      }
      taken++;
    }
    return taken;
  }

  /** Whether warm() may fill more: half the cache at most, the rest left to series not stored yet. */
  roomToWarm(): boolean {
    return this.cache.size < this.cache.maxEntries / 2;
  }

  /** Reused by warm(): a series' labels without __name__ (sorted), and with it (in Prometheus' order). */
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private readonly fieldNames: string[] = [];
  private readonly fieldValues: string[] = [];
  private readonly fields = new LabelFieldWriter();

  /**
   * The labels a series' tags were mapped from (seriesTags' inverse) into names/values and
   * fieldNames/fieldValues; false where that is not one label set Prometheus sends (a name that
   * is not ASCII, an empty value, a `__name__` tag).
   */
  private labelsOf(tags: Readonly<Tags>): boolean {
    const names = this.names;
    names.length = 0;
    const name = tags[NAME_TAG];
    if (!name) return false;
    for (const k in tags) {
      if (k === NAME_TAG) continue;
      if (k === "__name__" || tags[k] === "") return false;
      for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) >= 0x80) return false;
      names.push(k === EXPORTED_NAME_TAG ? NAME_TAG : k);
    }
    // ASCII names: the engine's order is Prometheus' byte order, and seriesId's.
    names.sort();
    const values = this.values;
    const fieldNames = this.fieldNames;
    const fieldValues = this.fieldValues;
    values.length = fieldNames.length = fieldValues.length = 0;
    let named = false;
    for (const k of names) {
      const v = tags[k === NAME_TAG ? EXPORTED_NAME_TAG : k]!;
      values.push(v);
      if (!named && k > "__name__") {
        fieldNames.push("__name__");
        fieldValues.push(name);
        named = true;
      }
      fieldNames.push(k);
      fieldValues.push(v);
    }
    if (!named) {
      fieldNames.push("__name__");
      fieldValues.push(name);
    }
    return true;
  }

  /** The timestamp check of validate(). */
  readonly validTimestamp = (t: number): boolean => Number.isSafeInteger(t) && timestampProblem(t) === undefined;

  take(): SampleColumns<RemoteSeries> {
    const c = this.spare.pop();
    if (!c) return new SampleColumns<RemoteSeries>();
    this.spareBytes -= c.byteLength;
    return c;
  }

  /**
   * Gives columns back once their write has completed (nothing reads them afterwards); kept while
   * the spares hold at most SPARE_BYTES. Bounded by bytes rather than by count: Prometheus
   * catching up runs up to 200 shards, each request holds its columns until its commit, and
   * with 16 spares kept the rest of every wave was made anew: 1.7 GB of columns allocated over a
   * 180 s backlog's 20 s (issue 28).
   */
  give(c: SampleColumns<RemoteSeries>): void {
    const bytes = c.byteLength;
    if (this.spareBytes + bytes > SPARE_BYTES) return;
    this.spare.push(c);
    this.spareBytes += bytes;
  }
}

/**
 * writeForeignSeries for a request decoded into columns: the same definitions and tags first,
 * then the same points, through the columnar write.
 */
export async function writeRemoteColumns(deps: WriteDeps, tenant: string, c: SampleColumns<RemoteSeries>, origin: string): Promise<ForeignWriteResult> {
  const n = c.series.length;
  // Definitions first, as writeForeignSeries; skipped for series ensured since the store's
  // definitions last changed (a metric deleted or retagged meanwhile is ensured again).
  const version = deps.store.definitionsVersion?.();
  const need = version === undefined ? c.series : c.series.filter((s) => s.ensuredVersion !== version || s.ensuredTenant !== tenant);
  if (need.length > 0) {
    await deps.store.ensureTags(tenant, need);
    if (version !== undefined && deps.store.definitionsVersion?.() === version) {
      for (const s of need) {
        s.ensuredTenant = tenant;
        s.ensuredVersion = version;
      }
    }
  }
  const cols: WriteColumns = {
    type: "gauge",
    ids: c.series.map((s) => s.id),
    counts: c.counts.subarray(0, n),
    ts: c.ts.subarray(0, c.points),
    values: c.values.subarray(0, c.points),
    tags: [],
    slots: c.series,
  };
  try {
    return { points: await writeColumns(deps, tenant, cols, origin), skipped: c.skipped };
  } finally {
    // The columns go back to be reused: a listener that kept them must not read them.
    cols.released = true;
  }
}
