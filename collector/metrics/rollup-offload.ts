/**
 * The SQLite roller's steps in a second thread (rollup-worker.ts): under ingest the main thread
 * is the collector's constraint, and computing the rollup tiers took about a sixth of it
 * (docs/storage.md, "The roller on the second core"). One worker, started at the first window
 * and kept; one that fails, dies or hangs answers "not done", and the store computes that
 * share itself until a new one starts (after retryMs).
 */
import type { Logger } from "../../src/log/logger.ts";
import type { RollupTier } from "../../src/metrics/rollup/tiers.ts";
import type { RemoteSteps, RollupCompute } from "../store/metrics/sqlite/rollup-remote.ts";
import type { StepRequest } from "../store/metrics/sqlite/rollup-series.ts";
import { WorkerSlot, workerScript } from "./worker-slot.ts";

export interface RollupRequest {
  id: number;
  path: string;
  tiers: readonly RollupTier[];
  steps: StepRequest[];
  now: number;
  /** Close the database connection (sent by close(), before the thread is ended). */
  close?: boolean;
}

export type RollupReply = ({ id: number; ok: true } & RemoteSteps) | { id: number; ok: false; error: string };

export class RollupOffload implements RollupCompute {
  private readonly slot: WorkerSlot<RollupReply>;
  private readonly waiting = new Map<number, { done: (r: RemoteSteps | undefined) => void; timer: ReturnType<typeof setTimeout> }>();
  private nextId = 1;
  /** The request that asks the worker to close its connection. */
  private closingId = 0;
  private readonly log?: Logger;
  private readonly timeoutMs: number;
  /** Requests answered by the worker (self-metrics, tests). */
  answered = 0;

  constructor(
    o: {
      log?: Logger;
      /** The worker's script (tests substitute one that fails). */
      script?: URL;
      /** A request not answered this long ends the worker (a hang). */
      timeoutMs?: number;
      /** After a worker was lost, no new one before this many ms. */
      retryMs?: number;
    } = {},
  ) {
    this.log = o.log;
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.slot = new WorkerSlot<RollupReply>({
      retryMs: o.retryMs ?? 10_000,
      script: o.script ?? workerScript("rollup-worker.ts"),
      // A small heap: its garbage is beyond the main thread's memory governor.
      options: { smol: true },
      onMessage: (m) => {
        if (m.ok) this.settle(m.id, { steps: m.steps, corrupt: m.corrupt, seconds: m.seconds });
        else {
          this.log?.warn("rollup worker failed on a request; the store computes it itself", { err: m.error });
          this.settle(m.id, undefined);
        }
      },
      onLost: (why) => this.workerLost(why),
    });
  }

  compute(path: string, tiers: readonly RollupTier[], steps: StepRequest[], now: number): Promise<RemoteSteps | undefined> {
    const w = this.slot.available();
    if (!w) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiting.has(id)) this.slot.lose(w, `no answer within ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      this.waiting.set(id, { done: resolve, timer });
      try {
        const request: RollupRequest = { id, path, tiers, steps, now };
        w.postMessage(request);
      } catch (e) {
        this.slot.lose(w, String(e));
      }
    });
  }

  private settle(id: number, r: RemoteSteps | undefined): void {
    const p = this.waiting.get(id);
    if (!p) return;
    this.waiting.delete(id);
    clearTimeout(p.timer);
    if (r && id !== this.closingId) this.answered++;
    p.done(r);
  }

  /** The worker failed, died or hangs (it is ended): what it held is computed by the store. */
  private workerLost(why: string): void {
    // Once at warn: a worker that keeps failing would otherwise log at every retry.
    if (this.slot.lost === 1) this.log?.warn("rollup worker ended; the store rolls up on its own thread meanwhile", { err: why });
    else this.log?.debug("rollup worker ended again", { err: why });
    for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
  }

  /** Workers lost: failed, died, hung or not started (self-metrics, tests). */
  get lost(): number {
    return this.slot.lost;
  }

  /**
   * Ends the worker for good (after the store closed); requests still out answer "not done".
   * The worker closes its connection first (for up to a second), so the store's clean stop is
   * not left with a reader that keeps its write-ahead log.
   */
  async close(): Promise<void> {
    const w = this.slot.current;
    if (w) {
      const id = this.nextId++;
      this.closingId = id;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.settle(id, undefined), 1000);
        this.waiting.set(id, { done: () => resolve(), timer });
        try {
          w.postMessage({ id, path: "", tiers: [], steps: [], now: 0, close: true } satisfies RollupRequest);
        } catch {
          this.settle(id, undefined);
        }
      });
    }
    await this.slot.close();
    for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
  }
}
