/**
 * The messages between the main thread and the PromQL worker (promql-offload.ts,
 * promql-worker.ts). The series handed over travel as a slice's blocks and columns copied into
 * one buffer that is transferred, their places in a Float64Array, the labels as one JSON text.
 * Cloning thousands of small arrays and label pairs costs the main thread more than this copy.
 * The heads' points, which the store's read copied already (SeriesParts.own), are not copied
 * again: their buffers are transferred as they are.
 */
import type { Expr } from "../../src/promql/ast.ts";
import type { EvalTimes } from "../../src/promql/engine.ts";
import type { Labels } from "../../src/promql/labels.ts";
import type { SeriesParts } from "../store/metrics/parts.ts";

export const SLICE_FREE = 0;
export const SLICE_STARTED = 1;
export const SLICE_TAKEN_BACK = 2;

/** One slice of a job's series (the first carries the job; slices come last first), or the job's end: answer now. */
export interface OffloadRequest {
  id: number;
  /** `state`: one entry per slice, SLICE_FREE until the worker starts it or the main thread takes it back. */
  job?: { expr: Expr; t: EvalTimes; state: Int32Array };
  /** The slice's index (its entry in `state`). */
  at?: number;
  series?: PackedSlice;
  end?: boolean;
}

export type OffloadReply =
  | { id: number; ok: true; slices: number; series: { labels: Labels; vals: Float64Array; has: Uint8Array }[]; samples: number }
  | { id: number; ok: false; error: string };

export interface PackedSlice {
  labels: string;
  bytes: ArrayBuffer;
  /** Buffers of columns taken as they are (SeriesParts.own): ts then nums. */
  own: ArrayBuffer[];
  /** Per series: start, end, pieces; per piece: kind (0 block, 1 columns in bytes, 2 columns in own), byte offset (kind 2: index), bytes, points. */
  meta: Float64Array;
}

/** What postMessage transfers of a packed slice (the rest is cloned). */
export const transferables = (p: PackedSlice): ArrayBuffer[] => [p.bytes, ...p.own];

export type SliceSeries = { labels: Labels; parts: SeriesParts };

const align8 = (n: number) => (n + 7) & ~7;

/** One piece's entry in `meta` (without an array per piece). */
function put(meta: Float64Array, m: number, kind: number, at: number, bytes: number, n: number): void {
  meta[m] = kind;
  meta[m + 1] = at;
  meta[m + 2] = bytes;
  meta[m + 3] = n;
}

export function packSlice(series: readonly SliceSeries[]): PackedSlice {
  let bytes = 0;
  let metaLen = 0;
  for (const { parts } of series) {
    metaLen += 3 + parts.pieces.length * 4;
    for (const p of parts.pieces) bytes += "block" in p ? align8(p.block.byteLength) : p.own ? 0 : p.ts.length * 16;
  }
  const own: ArrayBuffer[] = [];
  const buf = new ArrayBuffer(bytes);
  const u8 = new Uint8Array(buf);
  const meta = new Float64Array(metaLen);
  let m = 0;
  let at = 0;
  for (const { parts } of series) {
    meta[m++] = parts.start;
    meta[m++] = parts.end;
    meta[m++] = parts.pieces.length;
    for (const p of parts.pieces) {
      if ("block" in p) {
        u8.set(p.block, at);
        put(meta, m, 0, at, p.block.byteLength, p.n);
        at += align8(p.block.byteLength);
      } else if (p.own) {
        put(meta, m, 2, own.length, p.ts.length * 16, p.ts.length);
        own.push(p.ts.buffer as ArrayBuffer);
      } else {
        const n = p.ts.length;
        new Float64Array(buf, at, n).set(p.ts);
        new Float64Array(buf, at + n * 8, n).set(p.nums);
        put(meta, m, 1, at, n * 16, n);
        at += n * 16;
      }
      m += 4;
    }
  }
  return { labels: JSON.stringify(series.map((s) => s.labels)), bytes: buf, own, meta };
}

export function unpackSlice(p: PackedSlice): SliceSeries[] {
  const labels = JSON.parse(p.labels) as Labels[];
  const { meta, bytes } = p;
  const out: SliceSeries[] = [];
  let m = 0;
  for (const l of labels) {
    const parts: SeriesParts = { start: meta[m]!, end: meta[m + 1]!, pieces: [] };
    const count = meta[m + 2]!;
    m += 3;
    for (let k = 0; k < count; k++, m += 4) {
      const at = meta[m + 1]!;
      const n = meta[m + 3]!;
      if (meta[m] === 0) parts.pieces.push({ block: new Uint8Array(bytes, at, meta[m + 2]!), n });
      else if (meta[m] === 2) parts.pieces.push({ ts: new Float64Array(p.own[at]!, 0, n), nums: new Float64Array(p.own[at]!, n * 8, n) });
      else parts.pieces.push({ ts: new Float64Array(bytes, at, n), nums: new Float64Array(bytes, at + n * 8, n) });
    }
    out.push({ labels: l, parts });
  }
  return out;
}
