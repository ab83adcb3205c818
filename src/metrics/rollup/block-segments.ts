/**
 * A rollup block kept in segments (issue 28, docs/storage.md "Blocks in segments"): the block
 * as it was once written whole, then the rows a later step changed, appended. Why: a step
 * rewrote the whole block its points fall in, a day of 5-minute buckets (and twelve days of
 * hourly ones), so its cost grew with the hour of the day (about 200 µs a series' step in the
 * day's first hours, 900 by evening: bench/rollup-day.ts); appending costs what the step changed.
 *
 * Layout (version 2): the byte 2, then segments, each `varuint from · varuint length · a
 * version 1 block` (block.ts) of the rows from bucket index `from` on. The first segment's
 * `from` is 0. Read in order, a segment replaces every row at or after its `from` (a bucket
 * emptied again is a row left out). Once a block has MAX_SEGMENTS segments, the next change
 * writes it whole again, as a version 1 block.
 */
import { ByteReader, ByteWriter, varuintSize } from "../../codec/bytes.ts";
import { corrupt } from "../../codec/errors.ts";
import { type FloatAlloc, freshFloats } from "../run.ts";
import { columnsOf, decodeBlockRows, encodeRows, ROLLUP_BLOCK_VERSION } from "./block.ts";
import { lowerBound } from "./roll.ts";
import { KIND_AVAILABILITY, KIND_COUNTER, type NumericRows, type Rows, SKETCH_COLUMNS, type SketchColumns } from "./rows.ts";

export const SEGMENTED_BLOCK_VERSION = 2;
/** Segments a block holds at most; a change to one that holds this many writes it whole. */
export const MAX_SEGMENTS = 8;

/** The segments of a stored body, [from, bytes] each (a version 1 block is one, from 0). */
export function blockSegments(body: Uint8Array): [number, Uint8Array][] {
  if (body.length === 0) corrupt("an empty rollup block");
  if (body[0] !== SEGMENTED_BLOCK_VERSION) return [[0, body]];
  const r = new ByteReader(body, 1, body.length);
  const out: [number, Uint8Array][] = [];
  while (r.pos < body.length) {
    const from = r.varuint();
    const len = r.count(1);
    if (out.length === 0 && from !== 0) corrupt(`the first segment of a rollup block starts at bucket ${from}`);
    out.push([from, r.take(len)]);
  }
  if (out.length === 0) corrupt("a rollup block without segments");
  return out;
}

/** The rows of a stored block of either version, for buckets from blockStart on; throws PointCodecError when it is corrupt. */
export function decodeRows(body: Uint8Array, blockStart: number, step: number, alloc: FloatAlloc = freshFloats): Rows {
  if (body.length > 0 && body[0] === ROLLUP_BLOCK_VERSION) return decodeBlockRows(body, blockStart, step, alloc);
  const segments = blockSegments(body);
  const parts: Rows[] = [];
  for (const [from, bytes] of segments) {
    const rows = decodeBlockRows(bytes, blockStart, step, alloc);
    if (parts.length > 0 && rows.kind !== parts[0]!.kind) corrupt(`a rollup block's segments are of kinds ${parts[0]!.kind} and ${rows.kind}`);
    if (rows.n > 0 && rows.idx[0]! < from) corrupt(`a segment from bucket ${from} holds bucket ${rows.idx[0]}`);
    parts.push(rows);
  }
  if (parts.length === 1) return parts[0]!;
  // A segment keeps its rows before the first bucket a later one replaces from on: a prefix of
  // its rows, and the prefixes, in order, are the block's rows in order (a later segment's rows
  // are at or after its `from`). Joined at once, a column at a time.
  const keep: number[] = new Array(parts.length);
  let bound = Number.POSITIVE_INFINITY;
  for (let k = parts.length - 1; k >= 0; k--) {
    keep[k] = lowerBound(parts[k]!.idx, bound, 0, parts[k]!.n);
    bound = Math.min(bound, segments[k]![0]);
  }
  return joinRows(parts, keep, alloc);
}

/**
 * The body to store for a block whose rows are now `rows`, all rows before bucket index `from`
 * unchanged since `old` (its stored body, undefined when new): `old` with the rows from `from`
 * on appended as a segment, or the block whole when it is new, changed from its start or holds
 * MAX_SEGMENTS segments. A view of `into`'s buffer, valid until its next use.
 */
export function storedBody(rows: Rows, from: number, old: Uint8Array | undefined, blockStart: number, step: number, into: ByteWriter): Uint8Array {
  const j0 = old && from > 0 ? lowerBound(rows.idx, from, 0, rows.n) : 0;
  if (!old || j0 === 0) return encodeRows(rows, blockStart, step, into);
  const segmented = old[0] === SEGMENTED_BLOCK_VERSION;
  if (segmented && blockSegments(old).length >= MAX_SEGMENTS) return encodeRows(rows, blockStart, step, into);
  const seg = encodeRows(rowsFrom(rows, j0), blockStart, step, into);
  const head = segmented ? old.length : 1 + varuintSize(0) + varuintSize(old.length) + old.length;
  const out = joined(head + varuintSize(from) + varuintSize(seg.length) + seg.length);
  if (segmented) out.bytes(old);
  else {
    out.byte(SEGMENTED_BLOCK_VERSION);
    out.varuint(0);
    out.varuint(old.length);
    out.bytes(old);
  }
  out.varuint(from);
  out.varuint(seg.length);
  out.bytes(seg);
  return out.buf.subarray(0, out.pos);
}

/** The writer storedBody joins segments in (reused: its result is valid until the next call). */
let joiner = new ByteWriter(16 * 1024);
function joined(size: number): ByteWriter {
  if (joiner.buf.length < size || joiner.buf.length > 4 * 1024 * 1024) joiner = new ByteWriter(Math.max(size, 16 * 1024));
  joiner.pos = 0;
  return joiner;
}

/** Rows j0… of `rows`, as views (no copy). */
function rowsFrom(rows: Rows, j0: number): Rows {
  const rec = rows as unknown as Record<string, Float64Array>;
  const out: Record<string, unknown> = { kind: rows.kind, n: rows.n - j0 };
  for (const c of columnsOf(rows.kind)) out[c] = rec[c]!.subarray(j0);
  if (rows.kind !== KIND_AVAILABILITY) {
    out.sketch = sketchFrom(rows.sketch, j0, rows.n);
    if (rows.kind === KIND_COUNTER) out.rateSketch = sketchFrom(rows.rateSketch!, j0, rows.n);
  }
  return out as unknown as Rows;
}

/** Rows j0…n − 1 of a sketch: its columns as views, its bins from the first of row j0 (`at` says where). */
function sketchFrom(s: SketchColumns, j0: number, n: number): SketchColumns {
  const b0 = s.at[j0]!;
  const out = { gaps: s.gaps.subarray(b0), counts: s.counts.subarray(b0) } as SketchColumns;
  for (const c of SKETCH_COLUMNS) out[c] = s[c].subarray(j0, n);
  const at = new Float64Array(n - j0 + 1);
  for (let j = 1; j <= n - j0; j++) at[j] = s.at[j0 + j]! - b0;
  out.at = at;
  return out;
}

/** The first keep[k] rows of each of `parts`, in order (each column joined once; the sketches when first read). */
function joinRows(parts: readonly Rows[], keep: readonly number[], alloc: FloatAlloc): Rows {
  const kind = parts[0]!.kind;
  let n = 0;
  for (const k of keep) n += k;
  const out: Record<string, unknown> = { kind, n };
  const recs = parts as unknown as readonly Record<string, Float64Array>[];
  for (const c of columnsOf(kind)) out[c] = join(recs.map((r) => r[c]!), keep, n, alloc);
  if (kind !== KIND_AVAILABILITY) {
    const num = parts as readonly NumericRows[];
    let sketch: SketchColumns | undefined;
    let rates: SketchColumns | undefined;
    // Read lazily, as a single segment's are: a rate or a sum over a year needs none.
    Object.defineProperty(out, "sketch", { get: () => (sketch ??= joinSketches(num.map((r) => r.sketch), keep, n, alloc)), enumerable: true });
    if (kind === KIND_COUNTER) Object.defineProperty(out, "rateSketch", { get: () => (rates ??= joinSketches(num.map((r) => r.rateSketch!), keep, n, alloc)), enumerable: true });
  }
  return out as unknown as Rows;
}

/** The first counts[k] values of each column, one after the other, into one column of `n`. */
function join(cols: readonly Float64Array[], counts: readonly number[], n: number, alloc: FloatAlloc): Float64Array {
  const v = alloc(n);
  let at = 0;
  for (let k = 0; k < cols.length; k++) {
    const c = cols[k]!;
    const m = counts[k]!;
    // A short prefix by a loop: a view of it costs more than copying a few numbers.
    if (m === c.length) v.set(c, at);
    else if (m < 32) for (let j = 0; j < m; j++) v[at + j] = c[j]!;
    else v.set(c.subarray(0, m), at);
    at += m;
  }
  return v;
}

function joinSketches(parts: readonly SketchColumns[], keep: readonly number[], n: number, alloc: FloatAlloc): SketchColumns {
  const out = {} as SketchColumns;
  for (const c of SKETCH_COLUMNS) out[c] = join(parts.map((p) => p[c]), keep, n, alloc);
  const bins = parts.map((p, k) => p.at[keep[k]!]!);
  let total = 0;
  for (const b of bins) total += b;
  out.gaps = join(parts.map((p) => p.gaps), bins, total, alloc);
  out.counts = join(parts.map((p) => p.counts), bins, total, alloc);
  const at = alloc(n + 1);
  for (let j = 0; j < n; j++) at[j + 1] = at[j]! + out.pn[j]! + out.nn[j]!;
  out.at = at;
  return out;
}
