/**
 * Large metric write bodies parsed in a second thread (json-worker.ts): the main thread
 * receives the body's columns (src/metrics/write-columns.ts) instead of parsing it and making an
 * object per point, so ingest uses both cores. Only bodies of at least `minChars` bytes are
 * handed over (a small body costs less to parse than to pass). The body's bytes are copied into
 * a slot of shared memory (json-slots.ts) and the worker scans them into the slot's columns
 * (src/metrics/json-columns.ts); what the scan does not take it parses as text, and it answers
 * "not columns" for anything but the normalized form. A worker that fails, dies or does not
 * answer in time answers the same for the bodies it held, so the main thread then parses them
 * as before (it keeps its copy of the bytes until the answer): a request is never lost and
 * every 4xx stays as it was. One worker, started at the first large body and kept
 * (worker-slot.ts, shared with the PromQL offload); after one was lost, the next starts no
 * sooner than `retryMs` later.
 */
import type { Logger } from "../../src/log/logger.ts";
import type { ColumnType, WriteColumns } from "../../src/metrics/write-columns.ts";
import { type Slot, SlotPool } from "./json-slots.ts";
import { WorkerSlot, workerScript } from "./worker-slot.ts";

export interface JsonRequest {
  id: number;
  type: ColumnType;
  /** The slot holding the body's bytes (SlotPool.ONE_OFF: buffers of this request alone). */
  slot: number;
  length: number;
  /** The most ids the worker's dictionary holds before it starts again empty (tests make it small). */
  maxIds?: number;
  /** The slot's buffers, when the worker does not hold them yet (or they were replaced). */
  input?: SharedArrayBuffer;
  output?: SharedArrayBuffer;
}

/**
 * Columns in the slot (`points` ≥ 0, `entries` of them, each id as a code of the worker's
 * dictionary), columns of their own (`cols`), or neither: not columns. `newIds` are the ids the
 * dictionary took for this body, their codes following the last ones; `resetIds` says it started
 * again empty first (it is bounded).
 */
export interface JsonReply {
  id: number;
  points?: number;
  entries?: number;
  newIds?: string[];
  resetIds?: boolean;
  cols?: WriteColumns;
}

/** A body's columns, to be released once the store has taken them (its slot is then reused). */
export interface ParsedColumns {
  cols: WriteColumns;
  release(): void;
}

/** Bodies shorter than this (bytes) are parsed on the main thread (see docs/storage.md). */
export const JSON_OFFLOAD_MIN_CHARS = 32 * 1024;

interface Waiting {
  done: (c: ParsedColumns | undefined) => void;
  timer: ReturnType<typeof setTimeout>;
  type: ColumnType;
  slot: Slot;
}

export class JsonOffload {
  private readonly slot: WorkerSlot<JsonReply>;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private closed = false;
  /** Bodies the worker answered with columns (for tests and the self-metrics). */
  parsed = 0;

  private readonly slots: SlotPool;
  /** The worker's dictionary of ids, by code: each id a string once, not once per body (json-worker.ts). */
  private idByCode: string[] = [];
  private readonly log?: Logger;
  private readonly timeoutMs: number;
  private readonly maxWaiting: number;
  readonly minChars: number;
  private readonly maxIds?: number;

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
      /** The most ids the worker's dictionary holds (json-worker.ts; default a million). */
      maxIds?: number;
    } = {},
  ) {
    this.log = o.log;
    this.slot = new WorkerSlot<JsonReply>({
      script: o.script ?? workerScript("json-worker.ts"),
      // A small heap: the worker's garbage is beyond the main thread's memory governor, and the
      // default heap added 10–20 MB to the peak RSS of the peers benchmark.
      options: { smol: true },
      onMessage: (m) => this.settle(m),
      onLost: (why) => this.workerLost(why),
      retryMs: o.retryMs ?? 10_000,
      // A new worker starts with an empty dictionary of ids.
      onStart: () => {
        this.idByCode = [];
      },
    });
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.minChars = o.minChars ?? JSON_OFFLOAD_MIN_CHARS;
    this.maxWaiting = o.maxWaiting ?? 8;
    this.maxIds = o.maxIds;
    // Slots stay busy until the store has applied their columns, after the worker answered.
    this.slots = new SlotPool(this.maxWaiting * 2);
  }

  /**
   * The columns of the JSON body `bytes`, or undefined: parse it on this thread (too small, not
   * normalized, worker lost, no slot free). The caller releases the columns once stored.
   */
  parse(type: ColumnType, bytes: Uint8Array): Promise<ParsedColumns | undefined> {
    if (this.closed || bytes.byteLength < this.minChars || this.waiting.size >= this.maxWaiting) return Promise.resolve(undefined);
    const w = this.slot.available();
    if (!w) return Promise.resolve(undefined);
    const slot = this.slots.take(bytes.byteLength);
    if (!slot) return Promise.resolve(undefined);
    new Uint8Array(slot.input, 0, bytes.byteLength).set(bytes);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiting.has(id)) this.slot.lose(w, `no answer within ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      this.waiting.set(id, { done: resolve, timer, type, slot });
      try {
        const req: JsonRequest = { id, type, slot: slot.index, length: bytes.byteLength };
        if (this.maxIds !== undefined) req.maxIds = this.maxIds;
        if (slot.sentTo !== w) {
          req.input = slot.input;
          req.output = slot.output;
          slot.sentTo = w;
        }
        w.postMessage(req);
      } catch (e) {
        this.slot.lose(w, String(e));
      }
    });
  }

  /** `lost`: the worker was ended while it held the body; its slot is dropped, as a thread being ended may still write to it. */
  private settle(m: JsonReply, lost = false): void {
    const p = this.waiting.get(m.id);
    if (!p) return;
    this.waiting.delete(m.id);
    clearTimeout(p.timer);
    const { slot } = p;
    // The dictionary follows the worker's, reply by reply (they come in the order it made them).
    if (m.resetIds) this.idByCode = [];
    if (m.newIds) for (const id of m.newIds) this.idByCode.push(id);
    let parsed: ParsedColumns | undefined;
    if (m.points !== undefined && m.entries !== undefined) {
      const cols = slot.columns(p.type, this.idByCode, m.entries, m.points);
      parsed = {
        cols,
        release: () => {
          cols.released = true;
          this.slots.give(slot);
        },
      };
    } else {
      if (lost) this.slots.discard(slot);
      else this.slots.give(slot);
      if (m.cols) parsed = { cols: m.cols, release: () => {} };
    }
    if (parsed) this.parsed++;
    // Answered at once: holding answers back for a shared group commit (fewer fsyncs) was
    // measured slower, the main thread idling meanwhile (docs/storage.md).
    p.done(parsed);
  }

  /** The worker failed, died or hangs (it is ended): the bodies it held are parsed on the main thread. */
  private workerLost(why: string): void {
    // Once at warn: a worker that keeps failing would otherwise log at every retry.
    if (this.slot.lost === 1) this.log?.warn("JSON ingest worker ended; large bodies are parsed on the main thread meanwhile", { err: why });
    else this.log?.debug("JSON ingest worker ended again", { err: why });
    for (const id of [...this.waiting.keys()]) this.settle({ id }, true);
  }

  /** True while a worker thread exists. */
  get running(): boolean {
    return this.slot.current !== undefined;
  }

  /** Workers lost so far (for tests and the self-metrics). */
  get lost(): number {
    return this.slot.lost;
  }

  /** Ends the worker; bodies it held are parsed on the main thread. */
  async close(): Promise<void> {
    this.closed = true;
    for (const id of [...this.waiting.keys()]) this.settle({ id }, true);
    await this.slot.close();
  }
}
