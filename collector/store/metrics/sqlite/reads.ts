import type { MetricType } from "../../../../src/metrics/model.ts";
import type { ReadBuffers } from "../../../../src/promql/values.ts";
import { runColumns } from "../columns.ts";
import { emptyRun, mergeRuns, type Run, sliceRun } from "../run.ts";
import type { NumericSeries, PointColumns, RawQuery } from "../types.ts";
import { chunkRuns } from "./chunks.ts";
import { isNumeric, key, type SeriesMeta, type StoreState, WINDOW_MS } from "./state.ts";

/** Range reads of the SQLite metrics store: chunks (through the cache) merged with the head. */

/** Stored points of a series in [start, end), ascending; expired chunks are left out. */
function readRun(s: StoreState, m: SeriesMeta, start: number, end: number, buffers?: ReadBuffers): Run {
  const numeric = isNumeric(m.type);
  if (end <= start) return emptyRun(numeric);
  const runs: Run[] = [];
  if (m.chunkMaxTs === undefined) m.chunkMaxTs = (s.st.selectChunkMax.get(m.sid) as { m: number | null }).m;
  // No chunk ends at or after `start`: only the head can hold points of the range.
  const ids =
    m.chunkMaxTs !== null && m.chunkMaxTs >= start
      ? (s.st.selectChunkIds.values(m.sid, start - WINDOW_MS, end, start, s.retentionMs(m), s.now()) as [number][])
      : [];
  const cids = ids.map((x) => x[0]);
  const h = m.head;
  let tail: Run | undefined;
  if (h && h.length > 0) {
    h.normalize();
    const all = { ts: h.ts.subarray(0, h.length), nums: h.nums?.subarray(0, h.length), strs: h.strs?.slice(0, h.length), tags: h.tags?.slice(0, h.length) };
    tail = sliceRun(all, start, end);
  }
  for (const r of chunkRuns(s, m, cids, tail, buffers)) runs.push(sliceRun(r, start, end));
  return mergeRuns(runs, numeric);
}

export function readRaw(s: StoreState, tenant: string, type: MetricType, id: string, q: RawQuery): PointColumns {
  const m = s.series.get(key(tenant, type, id));
  if (!m) return { ts: [], values: [] };
  return runColumns(readRun(s, m, q.start, q.end), type, q);
}

export function readSeries(s: StoreState, tenant: string, type: MetricType, id: string, start: number, end: number, buffers?: ReadBuffers): NumericSeries | undefined {
  const m = s.series.get(key(tenant, type, id));
  if (!m || !isNumeric(type)) return undefined;
  const run = readRun(s, m, start, end, buffers);
  return { ts: run.ts, values: run.nums!, tags: run.tags };
}
