import type { EngineEffect } from "../../src/alerts/engine/engine.ts";
import { resolveAlert } from "../../src/alerts/lifecycle.ts";
import type { Alert } from "../../src/alerts/model.ts";
import { announceAlerts, announceDefinitions, announceEvents } from "./announce.ts";
import type { AlertingContext } from "./context.ts";

/**
 * Applies what the engine reports to the store, the watch streams and the actions. The engine
 * reports synchronously, during evaluation; effects are collected and applied by one serial
 * task, in order, so evaluation never waits for storage.
 */
export class EffectApplier {
  private pending: EngineEffect[] = [];
  private scheduled = false;

  constructor(private readonly ctx: AlertingContext) {}

  /** The engine's listener. */
  readonly onEffect = (effect: EngineEffect): void => {
    this.pending.push(effect);
    if (this.scheduled) return;
    this.scheduled = true;
    this.ctx.serial.post(() => this.drain());
  };

  private async drain(): Promise<void> {
    this.scheduled = false;
    const effects = this.pending;
    this.pending = [];
    let i = 0;
    while (i < effects.length) {
      const e = effects[i]!;
      if (e.kind === "alert") {
        // consecutive alerts go to the store in one transaction
        const batch: Alert[] = [];
        while (i < effects.length && effects[i]!.kind === "alert") batch.push((effects[i++] as { alert: Alert }).alert);
        try {
          await announceAlerts(this.ctx, await this.ctx.store.insertAlerts(batch));
        } catch (err) {
          this.ctx.log.error("fired alerts not stored", { count: batch.length, err: (err as Error)?.stack ?? String(err) });
        }
        continue;
      }
      i++;
      try {
        await this.apply(e);
      } catch (err) {
        this.ctx.log.error("engine effect not applied", { kind: e.kind, err: (err as Error)?.stack ?? String(err) });
      }
    }
  }

  private async apply(e: Exclude<EngineEffect, { kind: "alert" }>): Promise<void> {
    const { store } = this.ctx;
    switch (e.kind) {
      case "event":
        await announceEvents(this.ctx, await store.insertEvents([e.event]));
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
        await store.updateAlerts(resolved);
        await announceAlerts(this.ctx, resolved);
        return;
      }
    }
  }
}
