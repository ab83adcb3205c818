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
 * samples, two series of one request standing for the same thing — and the caller then decodes
 * the request with the general path, which gives the same answer as before.
 */
import { ProtobufError, ProtoReader } from "./protobuf.ts";
import { metadata } from "./remote-write.ts";
import { isStaleMarkerAt, STALE_NAN } from "./staleness.ts";

/** What a label set stands for (the caller's: a metric id and tags); one object per id. */
export interface MappedSeries {
  /** The last request whose columns hold this series (set by the decode). */
  lastRequest: number;
}

/**
 * Label sets by their encoded bytes (the label fields of a TimeSeries, as sent), bounded: past
 * `maxEntries` it starts again empty. The values are a pure function of the bytes, so one cache
 * serves every tenant. An open-addressing table of typed arrays over one arena of key bytes: a
 * Map of arrays of keys cost about 350 ns a lookup (its objects scattered in memory), this
 * about a third of that.
 */
export class LabelSetCache<V extends MappedSeries> {
  /** Entry index + 1 per slot (0: empty); twice as many slots as entries at most. */
  private slots = new Int32Array(1024);
  private hashes = new Int32Array(512);
  private starts = new Int32Array(512);
  private lengths = new Int32Array(512);
  private values: V[] = [];
  private arena = new Uint8Array(64 * 1024);
  private used = 0;

  constructor(readonly maxEntries = 100_000) {}

  get(buf: Uint8Array, start: number, end: number): V | undefined {
    const h = hashBytes(buf, start, end);
    const len = end - start;
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = slots[i]! - 1;
      if (e < 0) return undefined;
      if (this.hashes[e] === h && this.lengths[e] === len && sameBytes(this.arena, this.starts[e]!, buf, start, len)) return this.values[e];
    }
  }

  set(buf: Uint8Array, start: number, end: number, value: V): void {
    if (this.values.length >= this.maxEntries) this.clear();
    const e = this.values.length;
    const len = end - start;
    if (e === this.hashes.length) {
      this.hashes = grown(this.hashes);
      this.starts = grown(this.starts);
      this.lengths = grown(this.lengths);
    }
    if (this.used + len > this.arena.length) {
      const a = new Uint8Array(Math.max(this.arena.length * 2, this.used + len));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
    }
    // A copy of the bytes: the request's buffer is let go after it.
    this.arena.set(buf.subarray(start, end), this.used);
    this.hashes[e] = hashBytes(buf, start, end);
    this.starts[e] = this.used;
    this.lengths[e] = len;
    this.used += len;
    this.values.push(value);
    if (2 * (e + 1) > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(e);
  }

  get size(): number {
    return this.values.length;
  }

  private place(e: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = this.hashes[e]! & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = e + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let e = 0; e < this.values.length; e++) this.place(e);
  }

  private clear(): void {
    this.slots = new Int32Array(1024);
    this.values = [];
    this.used = 0;
  }
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Whether `len` bytes of `a` from `at` equal those of `buf` from `start` (four at a time, then the rest). */
function sameBytes(a: Uint8Array, at: number, buf: Uint8Array, start: number, len: number): boolean {
  let i = 0;
  for (const last = len - 3; i < last; i += 4) {
    const k = at + i;
    const j = start + i;
    if (a[k] !== buf[j] || a[k + 1] !== buf[j + 1] || a[k + 2] !== buf[j + 2] || a[k + 3] !== buf[j + 3]) return false;
  }
  for (; i < len; i++) if (a[at + i] !== buf[start + i]) return false;
  return true;
}

/** A hash of a byte range (FNV-1a's steps over 4 bytes at a time, then the rest one by one). */
function hashBytes(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 ^ (end - start);
  let i = start;
  for (const last = end - 3; i < last; i += 4) h = Math.imul(h ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)), 0x01000193);
  for (; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return (h ^ (h >>> 15)) | 0;
}

/** Columns a decode writes into; grown as needed and kept for the next request. */
export class SampleColumns<V> {
  counts = new Uint32Array(256);
  ts = new Float64Array(4096);
  values = new Float64Array(4096);
  series: V[] = [];
  points = 0;
  /** Samples left out: NaN that is not a staleness marker, ±Inf, as the general path skips them. */
  skipped = 0;

  reset(): void {
    this.series.length = 0;
    this.points = 0;
    this.skipped = 0;
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
  cache: LabelSetCache<V>,
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
  return true;
}

function timeSeries<V extends MappedSeries>(
  r: ProtoReader,
  end: number,
  cache: LabelSetCache<V>,
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
  // The general path merges a series met twice in a request, in the place it was first met.
  if (series.lastRequest === request) return false;
  series.lastRequest = request;
  if (out.points > first) out.entry(series, out.points - first);
  return true;
}

function lookUp<V extends MappedSeries>(
  r: ProtoReader,
  start: number,
  end: number,
  cache: LabelSetCache<V>,
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

/** The labels of a TimeSeries' label fields, as remote-write.ts reads them; undefined for a repeated name. */
function decodeLabels(buf: Uint8Array, start: number, end: number): Record<string, string> | undefined {
  const r = new ProtoReader(buf, start, end);
  const labels: Record<string, string> = {};
  while (!r.done()) {
    r.varint(); // the label field's key (0x0a: checked by the caller)
    const [s, e] = r.bytes();
    r.pos = s;
    let name = "";
    let value = "";
    while (r.pos < e) {
      const k = r.varint();
      if (k === 0x0a) name = r.string();
      else if (k === 0x12) value = r.string();
      else r.skip(k & 7);
    }
    r.pos = e;
    if (name in labels) return undefined;
    labels[name] = value;
  }
  return labels;
}
