import type { Logger } from "../../../src/log/logger.ts";
import type { StoredAction } from "../../store/alerts/types.ts";
import type { PluginRegistry } from "./registry.ts";

export interface ActionRunnerDeps {
  plugins: PluginRegistry;
  /** Stores the outcome of one action: PROCESSED or FAILED. */
  record(key: string, result: "PROCESSED" | "FAILED"): void;
  log: Logger;
  /** Actions carried out at the same time (default 8). */
  concurrency?: number;
}

/**
 * Carries out actions in the background: callers only queue them, so a slow or failing plugin
 * never holds up the engine or an HTTP response; it only ends up recorded as FAILED.
 */
export class ActionRunner {
  private readonly queue: StoredAction[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly concurrency: number;
  private closed = false;
  /** Past the grace period: late results are dropped (the store is closing); the rows stay WAITING. */
  private abandoned = false;

  constructor(private readonly deps: ActionRunnerDeps) {
    this.concurrency = deps.concurrency ?? 8;
  }

  enqueue(actions: readonly StoredAction[]): void {
    if (this.closed) return;
    this.queue.push(...actions);
    this.pump();
  }

  /** Actions queued or running. */
  get pending(): number {
    return this.queue.length + this.inFlight.size;
  }

  private pump(): void {
    while (!this.closed && this.inFlight.size < this.concurrency && this.queue.length > 0) {
      const next = this.queue.shift()!;
      const p = this.execute(next).finally(() => {
        this.inFlight.delete(p);
        this.pump();
      });
      this.inFlight.add(p);
    }
  }

  private async execute({ key, action }: StoredAction): Promise<void> {
    // never run plugin code inside the caller's turn
    await Promise.resolve();
    const plugin = this.deps.plugins.get(action.actionPlugin);
    try {
      if (!plugin) throw new Error(`plugin ${action.actionPlugin} is not deployed`);
      await plugin.run(action);
      if (!this.abandoned) this.deps.record(key, "PROCESSED");
    } catch (e) {
      if (this.abandoned) return;
      this.deps.log.warn("action failed", {
        tenant: action.tenantId,
        plugin: action.actionPlugin,
        actionId: action.actionId,
        eventId: action.eventId,
        err: (e as Error)?.message ?? String(e),
      });
      this.deps.record(key, "FAILED");
    }
  }

  /**
   * Stops taking actions and waits (at most `graceMs`) for those running. Queued ones, and
   * running ones that outlast the grace, stay WAITING in the store and run after the next start.
   */
  async close(graceMs = 5000): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    if (this.inFlight.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.abandoned = true;
  }
}
