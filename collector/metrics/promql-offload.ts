/**
 * Part of a large PromQL query in a second thread (src/promql/offload.ts): the main thread
 * evaluates slices of the series from the first on and hands the worker slices from the last
 * one backwards, undecoded (compressed blocks, the heads' points), as the worker starts them;
 * where the two meet, the main thread takes back the slices handed over but not started, so
 * each thread does what its speed allows. One worker, started at the first large query and
 * kept; a query arriving while it is busy stays on its own thread. A worker that fails or dies
 * answers "not done", and the main thread evaluates those series.
 */
import type { Expr } from "../../src/promql/ast.ts";
import type { EvalTimes } from "../../src/promql/engine.ts";
import type { Offload, OffloadJob, OffloadResult } from "../../src/promql/offload.ts";
import type { SeriesRef } from "../../src/promql/values.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { StoreSeriesRef } from "../../src/prometheus/store-source.ts";
import { type OffloadReply, type OffloadRequest, packSlice, SLICE_FREE, SLICE_TAKEN_BACK, type SliceSeries, transferables } from "./promql-wire.ts";
import { WorkerSlot, workerScript } from "./worker-slot.ts";

/** Series a slice (a message to the worker, the unit taken back) holds. */
const SLICE = 32;
/**
 * Slices waiting for the worker: more are gathered only as it starts them, so a worker without
 * a core of its own costs the main thread little gathering.
 */
const AHEAD = 2;

const isStoreRef = (r: SeriesRef): r is StoreSeriesRef => typeof (r as Partial<StoreSeriesRef>).parts === "function";

export class PromqlOffload implements Offload {
  private readonly slot: WorkerSlot<OffloadReply>;
  private pending: { id: number; done: (r: OffloadResult | undefined) => void } | undefined;
  private nextId = 1;
  private closed = false;
  /** Slices of series the worker evaluated (for tests). */
  slicesDone = 0;

  private readonly log?: Logger;
  private readonly takeBack: boolean;
  private readonly timeoutMs: number;

  constructor(
    o: {
      log?: Logger;
      /** The worker's script (tests substitute one that fails). */
      script?: URL;
      /** false: the main thread never takes slices back, the worker does all it was handed (tests). */
      takeBack?: boolean;
      /** A worker that has not answered this long after its last slice is ended (a bug's endless loop). */
      timeoutMs?: number;
    } = {},
  ) {
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.log = o.log;
    this.takeBack = o.takeBack ?? true;
    this.slot = new WorkerSlot<OffloadReply>({
      script: o.script ?? workerScript("promql-worker.ts"),
      onMessage: (m) => {
        if (m.ok) this.settle(m.id, { slices: m.slices, series: m.series, samples: m.samples });
        else {
          this.log?.warn("PromQL worker failed on a query; its part was evaluated on the main thread", { err: m.error });
          this.settle(m.id, undefined);
        }
      },
      // The worker failed, died or hangs: its job answers "not done".
      onLost: (why) => {
        this.log?.warn("PromQL worker ended; the next large query starts another", { err: why });
        if (this.pending) this.settle(this.pending.id, undefined);
      },
    });
  }

  async start(expr: Expr, refs: readonly SeriesRef[], t: EvalTimes, maxSeries: number): Promise<OffloadJob | undefined> {
    if (this.closed || this.pending || !refs.every(isStoreRef)) return undefined;
    const slices = Math.ceil(refs.length / SLICE);
    // The worker's results are held until folded: at most `maxSeries` series (whole slices).
    const lowest = Math.max(1, slices - Math.floor(maxSeries / SLICE));
    if (lowest >= slices) return undefined;
    // Claimed before the first await, so that a second query does not hand over work as well.
    const id = this.nextId++;
    let done!: (r: OffloadResult | undefined) => void;
    const result = new Promise<OffloadResult | undefined>((resolve) => (done = resolve));
    this.pending = { id, done };
    // Per slice: free, started by the worker, or taken back by this thread (compare-and-swap).
    const state = new Int32Array(new SharedArrayBuffer(slices * 4));
    /** Slices [from, slices) are handed over, from the last one down. */
    let from = slices;
    let first = true;
    let stopped = false;
    /** Gathers and sends slice from - 1 if it is above `next`; false when this job hands over nothing more. */
    const sendNext = async (next: number): Promise<boolean> => {
      const at = from - 1;
      if (stopped || at <= next || at < lowest || this.closed || this.pending?.id !== id) return false;
      const series: SliceSeries[] = [];
      for (let i = at * SLICE; i < Math.min(refs.length, (at + 1) * SLICE); i++) {
        const r = refs[i] as StoreSeriesRef;
        const parts = await r.parts();
        // A series that cannot be handed over: it and the rest stay with the main thread.
        if (!parts || this.pending?.id !== id) {
          stopped = true;
          return false;
        }
        series.push({ labels: r.labels, parts });
      }
      const request: OffloadRequest = { id, job: first ? { expr, t, state } : undefined, at, series: packSlice(series) };
      this.slot.get().postMessage(request, transferables(request.series!));
      first = false;
      from = at;
      return true;
    };
    const guarded = async (next: number): Promise<boolean> => {
      try {
        return await sendNext(next);
      } catch (e) {
        // The query goes on on one thread, whose own read reports a store error as it should.
        this.log?.warn("PromQL worker not used for a query", { err: String(e) });
        stopped = true;
        return false;
      }
    };
    // Without taking back (tests): the later half of the slices, all handed over now.
    const whole = !this.takeBack;
    if (whole) while (from > slices - Math.floor(slices / 2) && (await guarded(0))) {}
    else for (let i = 0; i < AHEAD && (await guarded(0)); i++) {}
    if (from === slices) return this.settle(id, undefined);
    return {
      sliceSize: SLICE,
      get from() {
        return from;
      },
      feed: async (next: number) => {
        if (whole) return;
        // Keep AHEAD slices waiting for the worker (it takes them from the last down).
        let waiting = 0;
        while (from + waiting < slices && waiting < AHEAD && Atomics.load(state, from + waiting) === SLICE_FREE) waiting++;
        for (; waiting < AHEAD && (await guarded(next)); waiting++) {}
      },
      finish: () => {
        let k = from;
        while (!whole && k < slices && Atomics.compareExchange(state, k, SLICE_FREE, SLICE_TAKEN_BACK) === SLICE_FREE) k++;
        if (k === slices) {
          // Nothing for it: the worker drops the job at the slice taken back.
          this.settle(id, undefined);
          return k;
        }
        const w = this.slot.current;
        if (w && this.pending?.id === id) {
          const end: OffloadRequest = { id, end: true };
          w.postMessage(end);
          const timer = setTimeout(() => {
            if (this.pending?.id === id) this.slot.lose(w, `no answer within ${this.timeoutMs} ms`);
          }, this.timeoutMs);
          timer.unref?.();
          void result.then(() => clearTimeout(timer));
        }
        return k;
      },
      result,
    };
  }

  /** Ends the job `id` with `r` (when it is still the pending one); undefined, for start's returns. */
  private settle(id: number, r: OffloadResult | undefined): undefined {
    const p = this.pending;
    if (p?.id !== id) return undefined;
    this.pending = undefined;
    if (r) this.slicesDone += r.slices;
    p.done(r);
    return undefined;
  }

  /** True while a worker thread exists. */
  get running(): boolean {
    return this.slot.current !== undefined;
  }

  /** Ends the worker; a pending job answers "not done" (its query finishes on the main thread). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pending) this.settle(this.pending.id, undefined);
    await this.slot.close();
  }
}
