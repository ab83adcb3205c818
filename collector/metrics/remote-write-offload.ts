/**
 * Remote-write bodies decoded in a second thread (remote-write-worker.ts), issue 28: under a
 * backlog the main thread was busy 80–98 % of the time, a fifth of it looking up each series'
 * label bytes. The worker uncompresses and decodes a body into columns, each series a code of its
 * dictionary of label bytes; the main thread maps a code to its series once (from the label bytes
 * sent with the reply that added it, through remote write's own cache, so a cache warmed at
 * start serves), and then per entry only reads an array. Anything else — the worker answers "not
 * columns", fails, dies, hangs, or too many bodies wait — leaves the body to the main thread,
 * which decodes it as before: a request is never lost and every 4xx stays as it was.
 */
import type { Logger } from "../../src/log/logger.ts";
import { adoptColumns, resolveLabelBytes, type SampleColumns } from "../../src/prometheus/remote-write-columns.ts";
import type { RemoteSeries, RemoteWriteColumns } from "./foreign-writes.ts";
import { outputViews, type RemoteWriteReply, type RemoteWriteRequest } from "./remote-write-wire.ts";
import { WorkerSlot, workerScript } from "./worker-slot.ts";

interface Waiting {
  done: (c: SampleColumns<RemoteSeries> | undefined) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Requests in flight from which bodies go to the worker. Prometheus' live traffic (50,000
 * samples/s over 10 shards here) stays below it; a backlog runs tens to hundreds of shards.
 */
export const MIN_IN_FLIGHT = 16;

/** Bodies' buffers kept for reuse up to this size (Prometheus' are about 25 KB). */
const KEEP_BODY_BYTES = 1024 * 1024;

export class RemoteWriteOffload {
  private readonly slot: WorkerSlot<RemoteWriteReply>;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private closed = false;
  /** The worker's codes, in its order: the series, or null where remote write refuses the label set. */
  private byCode: (RemoteSeries | null)[] = [];
  private epoch = 0;
  /** The cache's count of starts afresh when last seen (see columnsOf). */
  private cacheClears = 0;
  /** Each entry's series, reused from body to body. */
  private series: RemoteSeries[] = [];
  private readonly bodies: ArrayBuffer[] = [];
  private spareOut: ArrayBuffer[] = [];
  private readonly log?: Logger;
  private readonly timeoutMs: number;
  private readonly maxWaiting: number;
  private readonly maxCodes: number;
  private readonly minInFlight: number;
  /** Bodies the worker answered with columns (for tests and the self-metrics). */
  decoded = 0;

  constructor(
    /** Remote write's cache and columns, which the worker's codes are mapped through. */
    readonly columns: RemoteWriteColumns,
    o: {
      log?: Logger;
      /** The worker's script (tests substitute one that fails). */
      script?: URL;
      /** A body not answered this long after it was handed over ends the worker (a hang). */
      timeoutMs?: number;
      /** After a worker was lost, no new one before this many ms. */
      retryMs?: number;
      /** Bodies handed over at once; beyond, the main thread decodes. */
      maxWaiting?: number;
      /**
       * Requests in flight (the caller's count, this one included) from which bodies are handed
       * over: fewer, and the main thread has time to decode them itself (see decode).
       */
      minInFlight?: number;
      /** Codes the worker's dictionary holds before both sides start again empty (default: the cache's bound). */
      maxCodes?: number;
    } = {},
  ) {
    this.log = o.log;
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.maxWaiting = o.maxWaiting ?? 64;
    this.minInFlight = o.minInFlight ?? MIN_IN_FLIGHT;
    this.maxCodes = o.maxCodes ?? columns.cache.maxEntries;
    this.slot = new WorkerSlot<RemoteWriteReply>({
      script: o.script ?? workerScript("remote-write-worker.ts"),
      // A small heap: its garbage is beyond the main thread's memory governor.
      options: { smol: true },
      onMessage: (m) => this.settle(m),
      onLost: (why) => this.workerLost(why),
      retryMs: o.retryMs ?? 10_000,
      // A new worker starts with an empty dictionary.
      onStart: () => this.newEpoch(),
    });
  }

  private newEpoch(): void {
    this.epoch++;
    this.byCode = [];
    this.spareOut = [];
  }

  /**
   * The columns of the remote-write body `body` (compressed), or undefined: decode it on this
   * thread. `inFlight`: remote-write requests being handled, this one included; below
   * minInFlight the main thread keeps up by itself, and handing over would only cost (a thread's
   * memory, a copy each way). The caller gives the columns back (RemoteWriteColumns.give) once
   * written.
   */
  decode(body: Uint8Array, limit: number, inFlight = Number.POSITIVE_INFINITY): Promise<SampleColumns<RemoteSeries> | undefined> {
    if (this.closed || inFlight < this.minInFlight || this.waiting.size >= this.maxWaiting) return Promise.resolve(undefined);
    const w = this.slot.available();
    if (!w) return Promise.resolve(undefined);
    const buf = this.bodyBuffer(body.byteLength);
    new Uint8Array(buf, 0, body.byteLength).set(body);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiting.has(id)) this.slot.lose(w, `no answer within ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      this.waiting.set(id, { done: resolve, timer });
      try {
        const req: RemoteWriteRequest = { id, epoch: this.epoch, maxCodes: this.maxCodes, body: buf, length: body.byteLength, limit };
        const transfer = [buf];
        if (this.spareOut.length > 0) {
          req.spare = this.spareOut;
          transfer.push(...this.spareOut);
          this.spareOut = [];
        }
        w.postMessage(req, transfer);
      } catch (e) {
        this.slot.lose(w, String(e));
      }
    });
  }

  private bodyBuffer(n: number): ArrayBuffer {
    const b = this.bodies.pop();
    if (b && b.byteLength >= n) return b;
    return new ArrayBuffer(Math.max(64 * 1024, n));
  }

  private settle(m: RemoteWriteReply): void {
    const p = this.waiting.get(m.id);
    if (!p) return;
    this.waiting.delete(m.id);
    clearTimeout(p.timer);
    if (m.body.byteLength <= KEEP_BODY_BYTES && this.bodies.length < this.maxWaiting) this.bodies.push(m.body);
    p.done(this.columnsOf(m));
  }

  private columnsOf(m: RemoteWriteReply): SampleColumns<RemoteSeries> | undefined {
    // A reply of an earlier epoch uses codes forgotten since (replies come in the order of requests).
    if (m.epoch !== this.epoch) return undefined;
    const cache = this.columns.cache;
    if (m.newKeys && m.newEnds) {
      // The codes this body added, in order, mapped as the main thread's decode maps label bytes.
      for (let i = 0, start = 0; i < m.newEnds.length; start = m.newEnds[i++]!) this.byCode.push(resolveLabelBytes(m.newKeys, start, m.newEnds[i]!, cache, this.columns.map) ?? null);
    }
    // The cache started again empty (its bound): its series are made anew from then on, and codes
    // mapped before would give a second object for one id. So both sides start again too.
    const emptied = cache.clears !== this.cacheClears;
    this.cacheClears = cache.clears;
    if (emptied || this.byCode.length >= this.maxCodes) {
      this.newEpoch();
      return undefined;
    }
    if (!m.ok || !m.out) return undefined;
    // A series named without points: its labels decide all the same (the general path refuses a set remote write refuses).
    if (m.empty) for (const code of m.empty) if (!this.byCode[code]) return undefined;
    const n = m.entries!;
    const points = m.points!;
    const v = outputViews(m.out, n, points);
    const series = this.series;
    for (let k = 0; k < n; k++) {
      const s = this.byCode[v.codes[k]!];
      // A label set remote write refuses: the main thread's decode answers it.
      if (!s) return undefined;
      series[k] = s;
    }
    const cols = this.columns.take();
    adoptColumns(cols, series, v.counts, v.ts, v.values, n, points, m.skipped!);
    this.spareOut.push(m.out);
    this.decoded++;
    return cols;
  }

  /** The worker failed, died or hangs (it is ended): the bodies it held are decoded on the main thread. */
  private workerLost(why: string): void {
    if (this.slot.lost === 1) this.log?.warn("remote-write worker ended; bodies are decoded on the main thread meanwhile", { err: why });
    else this.log?.debug("remote-write worker ended again", { err: why });
    this.handBack();
  }

  /** Every body waiting goes back to the main thread's decode. */
  private handBack(): void {
    for (const [id, p] of [...this.waiting]) {
      this.waiting.delete(id);
      clearTimeout(p.timer);
      p.done(undefined);
    }
  }

  /** True while a worker thread exists. */
  get running(): boolean {
    return this.slot.current !== undefined;
  }

  /** Workers lost so far (for tests and the self-metrics). */
  get lost(): number {
    return this.slot.lost;
  }

  /** Ends the worker; bodies it held are decoded on the main thread. */
  async close(): Promise<void> {
    this.closed = true;
    this.handBack();
    await this.slot.close();
  }
}
