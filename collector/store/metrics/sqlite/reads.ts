import type { MetricType } from "../../../../src/metrics/model.ts";
import type { ReadBuffers } from "../../../../src/promql/values.ts";
import { runColumns } from "../../../../src/metrics/run-columns.ts";
import { emptyRun, mergeRuns, type Run, sliceRun } from "../../../../src/metrics/run.ts";
import type { SeriesParts } from "../parts.ts";
import type { NumericSeries, PointColumns, RawQuery } from "../types.ts";
import { chunkRuns, loadChunk } from "./chunks.ts";
import { isNumeric, type SeriesMeta, type StoreState, WINDOW_MS } from "./state.ts";

/** Range reads of the SQLite metrics store: chunks (through the cache) merged with the head. */

/** The ids of the unexpired chunks that may hold points in [start, end), in write order. */
export type ChunkIds = (s: StoreState, m: SeriesMeta, start: number, end: number) => number[];

/** False when no chunk of `m` ends at or after `start`: only the head can hold points of the range. */
export function mayHaveChunks(s: StoreState, m: SeriesMeta, start: number): boolean {
  if (m.chunkMaxTs === undefined) m.chunkMaxTs = (s.st.selectChunkMax.get(m.sid) as { m: number | null }).m;
  return m.chunkMaxTs !== null && m.chunkMaxTs >= start;
}

/** ChunkIds of one series, one statement. */
const chunkIds: ChunkIds = (s, m, start, end) => {
  if (!mayHaveChunks(s, m, start)) return [];
  return (s.st.selectChunkIds.values(m.sid, start - WINDOW_MS, end, start, s.retentionMs(m), s.now()) as [number][]).map((x) => x[0]);
};

/** Stored points of a series in [start, end), ascending; expired chunks are left out. */
function readRun(s: StoreState, m: SeriesMeta, start: number, end: number, buffers?: ReadBuffers, ids = chunkIds): Run {
  const numeric = isNumeric(m.type);
  if (end <= start) return emptyRun(numeric);
  const runs: Run[] = [];
  const tail = headRun(m, start, end);
  for (const r of chunkRuns(s, m, ids(s, m, start, end), start, end, tail, buffers)) runs.push(sliceRun(r, start, end));
  const out = mergeRuns(runs, numeric);
  // The head's arrays go back to a pool when it is sealed (head-arrays.ts): an answer never
  // keeps a view of them, or a later read could show another series' points through it.
  return tail && out.ts.buffer === tail.ts.buffer ? copyRun(out) : out;
}

function copyRun(r: Run): Run {
  return { ts: r.ts.slice(), nums: r.nums?.slice(), strs: r.strs, tags: r.tags };
}

/** The head's points in [start, end) (views of the heads' shared scratch: the caller copies what it keeps before another head's are read). */
function headRun(m: SeriesMeta, start: number, end: number): Run | undefined {
  const h = m.head;
  if (!h || h.length === 0) return undefined;
  const { ts, nums } = h.columns();
  const all = { ts, nums, strs: h.strs?.slice(0, h.length), tags: h.tags?.slice(0, h.length) };
  return sliceRun(all, start, end);
}

/**
 * A numeric series' points in [start, end) undecoded (see SeriesParts); the head's are copied,
 * as later writes change the head. Undefined for unknown or string metrics.
 */
export function readParts(s: StoreState, tenant: string, type: MetricType, id: string, start: number, end: number, ids = chunkIds): SeriesParts | undefined {
  const m = s.find(tenant, type, id);
  if (!m || !isNumeric(type)) return undefined;
  const pieces: SeriesParts["pieces"] = [];
  if (end > start) {
    for (const cid of ids(s, m, start, end)) {
      const c = loadChunk(s, m, cid, true);
      if (c) pieces.push(c.block ? { block: c.block, n: c.n } : { ts: c.run.ts, nums: c.run.nums! });
    }
    const tail = headRun(m, start, end);
    if (tail && tail.ts.length > 0) {
      // One buffer of its own (see SeriesParts.own): handed to a worker without another copy.
      const n = tail.ts.length;
      const buf = new ArrayBuffer(n * 16);
      const ts = new Float64Array(buf, 0, n);
      const nums = new Float64Array(buf, n * 8, n);
      ts.set(tail.ts);
      nums.set(tail.nums!);
      pieces.push({ ts, nums, own: true });
    }
  }
  return { start, end, pieces };
}

export function readRaw(s: StoreState, tenant: string, type: MetricType, id: string, q: RawQuery): PointColumns {
  const m = s.find(tenant, type, id);
  if (!m) return { ts: [], values: [] };
  return runColumns(readRun(s, m, q.start, q.end), type, q);
}

export function readSeries(
  s: StoreState,
  tenant: string,
  type: MetricType,
  id: string,
  start: number,
  end: number,
  buffers?: ReadBuffers,
  ids = chunkIds,
): NumericSeries | undefined {
  const m = s.find(tenant, type, id);
  if (!m || !isNumeric(type)) return undefined;
  const run = readRun(s, m, start, end, buffers, ids);
  return { ts: run.ts, values: run.nums!, tags: run.tags };
}
