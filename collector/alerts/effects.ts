import type { EngineEffect } from "../../src/alerts/engine/engine.ts";
import { resolveAlert } from "../../src/alerts/lifecycle.ts";
import type { Alert } from "../../src/alerts/model.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";
import { announceDefinitions, commitAndAnnounce, unstored } from "./announce.ts";
import type { AlertingContext } from "./context.ts";

/** How long effects the storage refused wait before they are tried again. */
const RETRY_MS = 1000;
/** Effects kept while storage refuses them; past this the oldest are given up (and logged). */
const MAX_HELD = 100_000;

/**
 * Applies what the engine reports to the store, the watch streams and the actions. The engine
 * reports synchronously, during evaluation; effects are collected and applied by one serial
 * task, in order, so evaluation never waits for storage. When the storage refuses a write
 * (a full disk), that effect and those after it are kept, in order, and tried again every
 * second until they are stored: what fired is never dropped for want of space.
 */
export class EffectApplier {
  private pending: EngineEffect[] = [];
  private scheduled = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly ctx: AlertingContext) {}

  /** The engine's listener. */
  readonly onEffect = (effect: EngineEffect): void => {
    this.pending.push(effect);
    this.schedule();
  };

  /** Effects waiting to be stored (held while the storage refuses them). */
  get held(): number {
    return this.pending.length;
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    this.ctx.serial.post(() => this.drain());
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    const effects = this.pending;
    this.pending = [];
    let i = 0;
    while (i < effects.length) {
      const first = i;
      const e = effects[i]!;
      let step: () => Promise<void>;
      if (e.kind === "alert") {
        // consecutive alerts go to the store in one transaction
        const batch: Alert[] = [];
        while (i < effects.length && effects[i]!.kind === "alert") batch.push((effects[i++] as { alert: Alert }).alert);
        step = () => this.storeAlerts(batch);
      } else {
        i++;
        step = () => this.apply(e);
      }
      try {
        await step();
      } catch (err) {
        if (storageFailure(err) !== undefined) {
          this.hold(effects.slice(first));
          return;
        }
        this.ctx.log.error("engine effect not applied", { kind: e.kind, err: (err as Error)?.stack ?? String(err) });
      }
    }
  }

  /** Puts refused effects back in front of any that came meanwhile, and tries again later. */
  private hold(effects: EngineEffect[]): void {
    this.pending = [...effects, ...this.pending];
    if (this.pending.length > MAX_HELD) {
      const dropped = this.pending.splice(0, this.pending.length - MAX_HELD);
      this.ctx.log.error("storage refused engine effects for too long: the oldest are given up", { dropped: dropped.length });
    }
    if (this.retry || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.schedule();
    }, RETRY_MS);
    this.retry.unref?.();
  }

  /** Stops retrying; what is still held is reported (it cannot be stored before the stop). */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.pending.length > 0) this.ctx.log.error("stopping with fired alerts and events the storage refused", { effects: this.pending.length });
  }

  private async storeAlerts(batch: Alert[]): Promise<void> {
    const store = this.ctx.store;
    await commitAndAnnounce(this.ctx, { newAlerts: await unstored(batch, (t, id) => store.alert(t, id)) });
  }

  private async apply(e: Exclude<EngineEffect, { kind: "alert" }>): Promise<void> {
    const { store } = this.ctx;
    switch (e.kind) {
      case "event":
        await commitAndAnnounce(this.ctx, { newEvents: await unstored([e.event], (t, id) => store.event(t, id)) });
        return;
      case "mode":
        await store.setTriggerMode(e.tenantId, e.triggerId, e.mode);
        return;
      case "enablement":
        await store.setTriggerEnabled(e.tenantId, e.triggerId, e.enabled);
        announceDefinitions(this.ctx, e.tenantId, [e.triggerId]);
        return;
      case "resolveAlerts": {
        const open = await store.findAlerts({ tenants: [e.tenantId], triggerIds: [e.triggerId], statuses: ["OPEN", "ACKNOWLEDGED"] });
        const resolved = open.map((a) => resolveAlert(a, e.user, e.time, e.notes, e.resolvedEvalSets));
        await commitAndAnnounce(this.ctx, { changedAlerts: resolved });
        return;
      }
    }
  }
}
