/**
 * Remote write straight into columns (issue 28). Prometheus sends the same series again and
 * again, a few samples each: decoding every label into strings, building the series' id and tags
 * and a sample object per sample (remote-write.ts) cost about 9 CPU-seconds and 240,000 page
 * faults per million samples. Here a series' label set is looked up by its encoded bytes in a
 * cache (no string is made), and its samples are decoded into reused columns.
 *
 * The caller maps a label set it has not seen (decoded as remote-write.ts decodes it) to what it
 * stands for, or to nothing when the set is one the general path refuses. The decode gives up
 * (false) on anything the general path would answer or treat otherwise — malformed protobuf, an
 * invalid timestamp, a label set mapped to nothing, a series whose labels do not come before its
 * samples — and the caller then decodes the request with the general path, which gives the
 * same answer as before. A series met more than once in a request is merged as that path merges
 * it (SampleColumns.regroup).
 */
import { ProtobufError, ProtoReader } from "./protobuf.ts";
import { BytesMap } from "../codec/bytes-map.ts";
import { metadata } from "./remote-write.ts";
import { isStaleMarkerAt, STALE_NAN } from "./staleness.ts";

/**
 * What a label set stands for (the caller's: a metric id and tags); one object per id. The
 * caller's cache (a BytesMap) holds them by the label fields' bytes as sent: the values are a
 * pure function of the bytes, so one cache serves every tenant.
 */
export interface MappedSeries {
  /** The last request whose columns hold this series (set by the decode). */
  lastRequest: number;
  /** Its first entry in that request's columns (set by the decode; regroup's group of it). */
  firstEntry: number;
}

/**
 * Points regroup() copies aside while it writes them back grouped: one pair for every set of
 * columns, since a regroup runs within one synchronous decode. It was a spare pair in each set,
 * which doubled the memory of each request waiting for its commit (200 of them while Prometheus
 * catches up over 200 shards: issue 28). Kept up to SCRATCH_KEPT points; a larger request's
 * pair is its own, left to the garbage collector.
 */
const SCRATCH_KEPT = 64 * 1024;
let scratchTs = new Float64Array(0);
let scratchValues = new Float64Array(0);
/** Per entry its group, per group its size and where its points go: 3 × the entries. */
let scratchGroups = new Int32Array(0);

/** A kept scratch's new length for `n`: a power of two from `least`, at most SCRATCH_KEPT. */
const keptLength = (n: number, least: number) => Math.min(SCRATCH_KEPT, Math.max(least, 2 ** Math.ceil(Math.log2(n))));

/** regroup's group arrays for `n` entries (the shared ones unless `n` is past SCRATCH_KEPT). */
function groupScratch(n: number): Int32Array {
  if (n > SCRATCH_KEPT) return new Int32Array(3 * n);
  if (scratchGroups.length < 3 * n) scratchGroups = new Int32Array(3 * keptLength(n, 256));
  return scratchGroups;
}

/** A pair of at least `n` points for regroup (the shared one unless `n` is past SCRATCH_KEPT). */
function regroupScratch(n: number): { ts: Float64Array; values: Float64Array } {
  if (n > SCRATCH_KEPT) return { ts: new Float64Array(n), values: new Float64Array(n) };
  if (scratchTs.length < n) {
    scratchTs = new Float64Array(keptLength(n, 1024));
    scratchValues = new Float64Array(scratchTs.length);
  }
  return { ts: scratchTs, values: scratchValues };
}

/** Columns a decode writes into; grown as needed and kept for the next request. */
export class SampleColumns<V extends MappedSeries> {
  counts = new Uint32Array(256);
  // Grown by doubling when a request brings more: a backlog over many shards sends a few hundred samples a request.
  ts = new Float64Array(1024);
  values = new Float64Array(1024);
  series: V[] = [];
  points = 0;
  /** Samples left out: NaN that is not a staleness marker, ±Inf, as the general path skips them. */
  skipped = 0;
  /** A series has more than one entry, or an entry has no points: see regroup. */
  private uneven = false;

  /** Bytes the columns hold (their capacity). */
  get byteLength(): number {
    return this.counts.byteLength + this.ts.byteLength + this.values.byteLength;
  }

  reset(): void {
    this.series.length = 0;
    this.points = 0;
    this.skipped = 0;
    this.uneven = false;
  }

  /** A series met again in the request (its entries are merged at the end). */
  repeated(): void {
    this.uneven = true;
  }

  push(t: number, v: number): void {
    if (this.points === this.ts.length) {
      const ts = new Float64Array(this.ts.length * 2);
      ts.set(this.ts);
      this.ts = ts;
      const values = new Float64Array(this.values.length * 2);
      values.set(this.values);
      this.values = values;
    }
    this.ts[this.points] = t;
    this.values[this.points++] = v;
  }

  entry(series: V, count: number): void {
    const k = this.series.length;
    if (k === this.counts.length) {
      const c = new Uint32Array(k * 2);
      c.set(this.counts);
      this.counts = c;
    }
    this.counts[k] = count;
    this.series.push(series);
    if (count === 0) this.uneven = true;
  }

  /**
   * What the general path makes of the entries: one a series, where it was first met, its points
   * in request order, none for a series without points. Prometheus sends every sample as a series
   * of its own, so a request that spans several scrapes names a series several times: a
   * backlog's, once it runs 200 shards of a few hundred series each (issue 28: such requests
   * went to the general path, 12 CPU-seconds a million samples, 800 MB resident).
   */
  regroup(): void {
    if (!this.uneven) return;
    const n = this.series.length;
    // Groups by each series' first entry, which the decode noted in it: a Map of the series
    // was 4 % of a backlog's CPU (issue 28). Groups are numbered in order of first entry.
    const scratch = groupScratch(n);
    const groupOf = scratch.subarray(0, n);
    const sizes = scratch.subarray(n, 2 * n);
    const firsts: V[] = [];
    for (let k = 0; k < n; k++) {
      const s = this.series[k]!;
      const first = s.firstEntry;
      let g: number;
      if (first === k) {
        g = firsts.length;
        firsts.push(s);
        sizes[g] = 0;
      } else g = groupOf[first]!;
      groupOf[k] = g;
      sizes[g]! += this.counts[k]!;
    }
    const at = scratch.subarray(2 * n, 3 * n);
    for (let g = 0, o = 0; g < firsts.length; g++) {
      at[g] = o;
      o += sizes[g]!;
    }
    // The points as decoded go to the shared scratch, and come back grouped.
    const { ts: fromTs, values: fromValues } = regroupScratch(this.points);
    fromTs.set(this.ts.subarray(0, this.points));
    fromValues.set(this.values.subarray(0, this.points));
    const ts = this.ts;
    const values = this.values;
    for (let k = 0, src = 0; k < n; k++) {
      const g = groupOf[k]!;
      const end = src + this.counts[k]!;
      let d = at[g]!;
      for (; src < end; src++, d++) {
        ts[d] = fromTs[src]!;
        values[d] = fromValues[src]!;
      }
      at[g] = d;
    }
    this.series.length = 0;
    for (let g = 0; g < firsts.length; g++) {
      if (sizes[g] === 0) continue;
      this.counts[this.series.length] = sizes[g]!;
      this.series.push(firsts[g]!);
    }
    this.uneven = false;
  }
}

let requests = 0;

/**
 * Decodes an uncompressed WriteRequest into `out` (reset first): one entry per series with at
 * least one finite sample, in request order. `map` is asked for label sets `cache` does not hold,
 * with the labels decoded; `validTimestamp` is the general path's check. False: decode the
 * request with the general path instead.
 */
export function decodeWriteColumns<V extends MappedSeries>(
  raw: Uint8Array,
  cache: BytesMap<V>,
  map: (labels: Record<string, string>) => V | undefined,
  validTimestamp: (t: number) => boolean,
  out: SampleColumns<V>,
): boolean {
  out.reset();
  const request = ++requests;
  const r = new ProtoReader(raw);
  try {
    while (!r.done()) {
      const key = r.varint();
      if (key === 0x0a || key === 0x1a) {
        const e = r.contentEnd();
        // Metadata is not written, but read as the general path reads it (which refuses a malformed one).
        if (key === 0x1a) metadata(r, e);
        else if (!timeSeries(r, e, cache, map, validTimestamp, out, request)) return false;
        r.pos = e;
      } else r.skip(key & 7);
    }
  } catch (err) {
    if (err instanceof ProtobufError) return false;
    throw err;
  }
  out.regroup();
  return true;
}

function timeSeries<V extends MappedSeries>(
  r: ProtoReader,
  end: number,
  cache: BytesMap<V>,
  map: (labels: Record<string, string>) => V | undefined,
  validTimestamp: (t: number) => boolean,
  out: SampleColumns<V>,
  request: number,
): boolean {
  let labelsStart = -1;
  let labelsEnd = -1;
  let series: V | undefined;
  const first = out.points;
  while (r.pos < end) {
    const fieldStart = r.pos;
    const key = r.varint();
    if (key === 0x0a) {
      // Labels come first, together: the bytes of all of them are the cache's key.
      if (series) return false;
      if (labelsStart < 0) labelsStart = fieldStart;
      else if (labelsEnd !== fieldStart) return false;
      labelsEnd = r.contentEnd();
      r.pos = labelsEnd;
    } else if (key === 0x12) {
      series ??= lookUp(r, labelsStart, labelsEnd, cache, map);
      if (!series) return false;
      const e = r.contentEnd();
      let value = 0;
      let timestamp = 0;
      let stale = false;
      while (r.pos < e) {
        const k = r.varint();
        if (k === 0x09) {
          // As remote-write.ts: the staleness marker is known by its bits, which the double loses.
          stale = r.pos + 8 <= r.end && isStaleMarkerAt(r.buf, r.pos);
          value = r.double();
        } else if (k === 0x10) timestamp = r.int64();
        else r.skip(k & 7);
      }
      r.pos = e;
      if (!validTimestamp(timestamp)) return false;
      if (stale) out.push(timestamp, STALE_NAN);
      else if (Number.isFinite(value)) out.push(timestamp, value);
      else out.skipped++;
    } else if (key === 0x22) r.skip(2);
    else r.skip(key & 7);
  }
  // A series without samples still has its labels checked by the general path.
  series ??= lookUp(r, labelsStart, labelsEnd, cache, map);
  if (!series) return false;
  // The general path merges a series met twice in a request, in the place it was first met
  // (regroup, at the end); an entry without points keeps that place.
  if (series.lastRequest === request) out.repeated();
  else {
    series.lastRequest = request;
    series.firstEntry = out.series.length;
  }
  out.entry(series, out.points - first);
  return true;
}

function lookUp<V extends MappedSeries>(
  r: ProtoReader,
  start: number,
  end: number,
  cache: BytesMap<V>,
  map: (labels: Record<string, string>) => V | undefined,
): V | undefined {
  if (start < 0) return map({});
  const known = cache.get(r.buf, start, end);
  if (known) return known;
  const labels = decodeLabels(r.buf, start, end);
  const v = labels && map(labels);
  if (v) cache.set(r.buf, start, end, v);
  return v;
}

/**
 * Label names and values already read, by their bytes: the label sets of new series repeat most
 * of them (a job, an instance, the metric's name), and each read made a new string (about ten a
 * new series, issue 28). Pure functions of the bytes, so shared by every tenant; bounded.
 */
const NAMES = new BytesMap<string>(4096);
const VALUES = new BytesMap<string>(16_384);

/** A string field's text, from `known` when its bytes were read before. */
function text(r: ProtoReader, known: BytesMap<string>): string {
  const e = r.contentEnd();
  const s = r.pos;
  r.pos = e;
  const seen = known.get(r.buf, s, e);
  if (seen !== undefined) return seen;
  const v = r.textAt(s, e);
  known.set(r.buf, s, e, v);
  return v;
}

/** The labels of a TimeSeries' label fields, as remote-write.ts reads them; undefined for a repeated name. */
function decodeLabels(buf: Uint8Array, start: number, end: number): Record<string, string> | undefined {
  const r = new ProtoReader(buf, start, end);
  const labels: Record<string, string> = {};
  while (!r.done()) {
    r.varint(); // the label field's key (0x0a: checked by the caller)
    const e = r.contentEnd();
    let name = "";
    let value = "";
    while (r.pos < e) {
      const k = r.varint();
      if (k === 0x0a) name = text(r, NAMES);
      else if (k === 0x12) value = text(r, VALUES);
      else r.skip(k & 7);
    }
    r.pos = e;
    if (name in labels) return undefined;
    labels[name] = value;
  }
  return labels;
}
