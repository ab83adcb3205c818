/**
 * One worker thread, started when first needed and kept (promql-offload.ts, json-offload.ts,
 * rollup-offload.ts): it does not keep the process alive, and one that fails, exits, is declared
 * hung or cannot be started is ended and reported once to its owner, which answers "not done"
 * for the work it held; `available()` starts another no sooner than `retryMs` after a loss.
 * close() ends it for good and waits until its thread has exited.
 */
/**
 * The script of a worker thread under collector/metrics/: its own file when run from source; in
 * the single-file binary, the entry point bundled beside collector/main.ts (deploy/release/
 * binaries.ts lists it), which Bun resolves by its path from the collector folder.
 */
export function workerScript(file: string): URL | string {
  return import.meta.url.includes("$bunfs") ? `./metrics/${file}` : new URL(`./${file}`, import.meta.url);
}

export class WorkerSlot<Reply> {
  private worker: Worker | undefined;
  private isClosed = false;
  private retryAt = 0;
  /** Workers lost: failed, exited, declared hung, or not started (self-metrics, tests). */
  lost = 0;

  constructor(
    private readonly o: {
      script: URL | string;
      options?: WorkerOptions;
      onMessage: (reply: Reply) => void;
      /** The current worker was ended (failed, exited, or lose() was called) or could not be started; not called after close(). */
      onLost: (why: string) => void;
      /** After a worker was lost, `available()` starts none before this many ms (default 0). */
      retryMs?: number;
      /** Called as `available()` starts a worker (the owner resets what it kept of the last one). */
      onStart?: () => void;
    },
  ) {}

  /** The worker now, if one runs. */
  get current(): Worker | undefined {
    return this.worker;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** The worker, started if none runs; throws when its script cannot be started. */
  get(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.o.script, this.o.options);
    // An idle worker does not keep the process alive; close() ends it.
    w.unref();
    w.onmessage = (ev: MessageEvent<Reply>) => this.o.onMessage(ev.data);
    w.onerror = (ev) => this.lose(w, ev.message ?? "error");
    w.addEventListener("close", () => this.lose(w, "exited"));
    this.worker = w;
    return w;
  }

  /**
   * The worker, started if none runs, unless closed or within `retryMs` of the last loss;
   * a script that cannot be started counts as a loss (told to the owner), and answers undefined.
   */
  available(): Worker | undefined {
    if (this.isClosed) return undefined;
    if (this.worker) return this.worker;
    if (Date.now() < this.retryAt) return undefined;
    try {
      this.o.onStart?.();
      return this.get();
    } catch (e) {
      this.counted(String(e));
      return undefined;
    }
  }

  /** Ends `w` when it is still the current worker, and tells the owner (unless closed). */
  lose(w: Worker, why: string): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    w.terminate();
    this.counted(why);
  }

  private counted(why: string): void {
    if (this.isClosed) return;
    this.lost++;
    this.retryAt = Date.now() + (this.o.retryMs ?? 0);
    this.o.onLost(why);
  }

  /** Ends the worker for good; resolves once its thread has exited. */
  async close(): Promise<void> {
    this.isClosed = true;
    const w = this.worker;
    this.worker = undefined;
    if (w) {
      const exited = new Promise<void>((resolve) => w.addEventListener("close", () => resolve()));
      w.terminate();
      await exited;
    }
  }
}
