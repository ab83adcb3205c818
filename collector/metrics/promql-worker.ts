/**
 * The worker thread of promql-offload.ts: decodes the series handed to it, slice by slice as
 * they arrive (the last slice first, then downwards), and evaluates the per-series expression
 * over them with the evaluator of src/promql. It stops at the first slice the main thread took
 * back (or at the job's end) and answers the results of the slices it did, in series order —
 * or the error, after which the main thread evaluates those series itself.
 */
import { fullGC, heapSize } from "bun:jsc";
import { PerSeriesEval } from "../../src/promql/offload.ts";
import { partsColumns } from "../store/metrics/parts.ts";
import { withMarkersApart } from "../../src/prometheus/marker-split.ts";
import { type OffloadReply, type OffloadRequest, SLICE_FREE, SLICE_STARTED, unpackSlice } from "./promql-wire.ts";

declare const self: Worker;

/**
 * The worker's heap above which a job's end collects it. Between jobs it holds about 1 MB; a job
 * leaves the slices it was sent, their decoded samples and the evaluation's scratch, which the
 * engine let pile up to 20–40 MB (issue 28, the range bench) before collecting. A collection of
 * so small a live set took 2–6 ms on the loaded 2-core VM (a young-generation one, 1 ms, left
 * what had survived into the older one, and the heap still grew to 30 MB).
 */
const COLLECT_ABOVE = 4 * 1024 * 1024;
const collect = () => {
  if (heapSize() > COLLECT_ABOVE) fullGC();
};

let job: { id: number; ev: PerSeriesEval; state: Int32Array; slices: number; samples: number } | undefined;
const reply = (r: OffloadReply, transfer: ArrayBuffer[] = []) => self.postMessage(r, transfer);
const answer = (j: NonNullable<typeof job>) => {
  job = undefined;
  const out = j.ev.finish();
  // Hand the results' memory over instead of copying it (a buffer may back several series).
  const buffers = new Set<ArrayBuffer>();
  for (const s of out) buffers.add(s.vals.buffer as ArrayBuffer).add(s.has.buffer as ArrayBuffer);
  reply({ id: j.id, ok: true, slices: j.slices, series: out.map((s) => ({ labels: s.labels, vals: s.vals, has: s.has })), samples: j.samples }, [...buffers]);
  collect();
};
self.onmessage = (ev: MessageEvent<OffloadRequest>) => {
  const m = ev.data;
  if (m.job) job = { id: m.id, ev: new PerSeriesEval(m.job.expr, m.job.t), state: m.job.state, slices: 0, samples: 0 };
  const j = job;
  if (!j || j.id !== m.id) return;
  if (m.end || !m.series || m.at === undefined) return answer(j);
  try {
    if (Atomics.compareExchange(j.state, m.at, SLICE_FREE, SLICE_STARTED) !== SLICE_FREE) return answer(j);
    for (const { labels, parts } of unpackSlice(m.series)) {
      const c = partsColumns(parts, j.ev.arena);
      j.samples += c.ts.length;
      j.ev.add(withMarkersApart(labels, c.ts, c.nums));
    }
    j.ev.endSlice();
    j.slices++;
  } catch (e) {
    job = undefined;
    reply({ id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) });
    collect();
  }
};
