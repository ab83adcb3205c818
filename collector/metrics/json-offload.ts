/**
 * JSON.parse of large metric write bodies in a second thread (json-worker.ts): the main thread
 * receives the body's columns (src/metrics/write-columns.ts) instead of parsing it and making an
 * object per point, so ingest uses both cores. Only bodies of at least `minChars` are handed
 * over (a small body costs less to parse than to pass). The worker answers "not columns" for
 * anything but the normalized form, and a worker that fails, dies or does not answer in time
 * answers the same for the bodies it held, so the main thread then parses them as before: a
 * request is never lost and every 4xx stays as it was. One worker, started at the first large
 * body and kept (worker-slot.ts, shared with the PromQL offload); after one was lost, the next
 * starts no sooner than `retryMs` later.
 */
import type { Logger } from "../../src/log/logger.ts";
import type { ColumnType, WriteColumns } from "../../src/metrics/write-columns.ts";
import { WorkerSlot, workerScript } from "./worker-slot.ts";

export interface JsonRequest {
  id: number;
  type: ColumnType;
  text: string;
}

export interface JsonReply {
  id: number;
  cols: WriteColumns | undefined;
}

/** Bodies shorter than this (characters) are parsed on the main thread (see docs/storage.md). */
export const JSON_OFFLOAD_MIN_CHARS = 32 * 1024;

interface Waiting {
  done: (c: WriteColumns | undefined) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class JsonOffload {
  private readonly slot: WorkerSlot<JsonReply>;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private closed = false;
  private warned = false;
  private retryAt = 0;
  /** Bodies the worker answered with columns (for tests and the self-metrics). */
  parsed = 0;
  private lostCount = 0;

  private readonly log?: Logger;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  private readonly maxWaiting: number;
  readonly minChars: number;

  constructor(
    o: {
      log?: Logger;
      /** The worker's script (tests substitute one that fails). */
      script?: URL;
      /** A body not answered this long after it was handed over ends the worker (a hang). */
      timeoutMs?: number;
      /** After a worker was lost, no new one before this many ms. */
      retryMs?: number;
      minChars?: number;
      /** Bodies handed over at once; beyond, the main thread parses (it is idle then). */
      maxWaiting?: number;
    } = {},
  ) {
    this.log = o.log;
    this.slot = new WorkerSlot<JsonReply>({
      script: o.script ?? workerScript("json-worker.ts"),
      // A small heap: the worker's garbage is beyond the main thread's memory governor, and the
      // default heap added 10–20 MB to the peak RSS of the peers benchmark.
      options: { smol: true },
      onMessage: (m) => this.settle(m.id, m.cols),
      onLost: (why) => this.workerLost(why),
    });
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.retryMs = o.retryMs ?? 10_000;
    this.minChars = o.minChars ?? JSON_OFFLOAD_MIN_CHARS;
    this.maxWaiting = o.maxWaiting ?? 8;
  }

  /** The columns of `text`, or undefined: parse it on this thread (too small, not normalized, worker lost). */
  parse(type: ColumnType, text: string): Promise<WriteColumns | undefined> {
    if (this.closed || text.length < this.minChars || this.waiting.size >= this.maxWaiting) return Promise.resolve(undefined);
    const w = this.ensureWorker();
    if (!w) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiting.has(id)) this.slot.lose(w, `no answer within ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      this.waiting.set(id, { done: resolve, timer });
      try {
        const req: JsonRequest = { id, type, text };
        w.postMessage(req);
      } catch (e) {
        this.slot.lose(w, String(e));
      }
    });
  }

  private settle(id: number, cols: WriteColumns | undefined): void {
    const p = this.waiting.get(id);
    if (!p) return;
    this.waiting.delete(id);
    clearTimeout(p.timer);
    if (cols) this.parsed++;
    // Answered at once: holding answers back for a shared group commit (fewer fsyncs) was
    // measured slower, the main thread idling meanwhile (docs/storage.md).
    p.done(cols);
  }

  private ensureWorker(): Worker | undefined {
    if (this.slot.current) return this.slot.current;
    if (Date.now() < this.retryAt) return undefined;
    try {
      return this.slot.get();
    } catch (e) {
      this.workerLost(String(e));
      return undefined;
    }
  }

  /** The worker failed, died or hangs (it is ended): the bodies it held are parsed on the main thread. */
  private workerLost(why: string): void {
    this.lostCount++;
    this.retryAt = Date.now() + this.retryMs;
    // Once at warn: a worker that keeps failing would otherwise log at every retry.
    if (!this.warned) this.log?.warn("JSON ingest worker ended; large bodies are parsed on the main thread meanwhile", { err: why });
    else this.log?.debug("JSON ingest worker ended again", { err: why });
    this.warned = true;
    for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
  }

  /** True while a worker thread exists. */
  get running(): boolean {
    return this.slot.current !== undefined;
  }

  /** Workers lost so far (for tests and the self-metrics). */
  get lost(): number {
    return this.lostCount;
  }

  /** Ends the worker; bodies it held are parsed on the main thread. */
  async close(): Promise<void> {
    this.closed = true;
    for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
    await this.slot.close();
  }
}
