import type { EngineEffect } from "../../src/alerts/engine/engine.ts";
import type { Alert } from "../../src/alerts/model.ts";
import { type Lease, sameLease } from "../../src/partitions.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";
import { announceDefinitions, commitAndAnnounce, unstored } from "./announce.ts";
import type { AlertingContext } from "./context.ts";
import { applyFenced, type EffectFencing, effectTenant, type LeaseOf, resolvedAlerts } from "./fenced-effects.ts";

/** An effect, with the lease its evaluation ran under when it is fenced by one. */
interface Stamped {
  effect: EngineEffect;
  lease: Lease | undefined;
}

/** How long effects the storage refused wait before they are tried again. */
const RETRY_MS = 1000;
/** Effects kept while storage refuses them; past this the oldest are given up (and logged). */
const MAX_HELD = 100_000;

/**
 * Applies what the engine reports to the store, the watch streams and the actions. The engine
 * reports synchronously, during evaluation; effects are collected and applied by one serial
 * task, in order, so evaluation never waits for storage. When the storage refuses a write
 * (a full disk), that effect and those after it are kept, in order, and tried again every
 * second until they are stored: what fired is never dropped for want of space. Among collectors
 * sharing a database, what an evaluation under a lease fired is written fenced by that lease
 * (fenced-effects.ts), and dropped if another collector took it over meanwhile.
 */
export class EffectApplier {
  private pending: Stamped[] = [];
  private scheduled = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** Set while the engine evaluates data under known leases (`under`). */
  private scope: LeaseOf | undefined;

  /** `fencing`: collectors sharing a database, where what fires is written under a lease. */
  constructor(
    private readonly ctx: AlertingContext,
    private readonly fencing?: EffectFencing,
  ) {}

  /** The engine's listener. The engine reports during evaluation, so the lease is the one it evaluated under. */
  readonly onEffect = (effect: EngineEffect): void => {
    const lease = this.fencing && (this.scope ?? this.fencing.leaseOf)(effectTenant(effect));
    this.pending.push({ effect, lease });
    this.schedule();
  };

  /** Runs `fn` (an engine evaluation) with what it fires fenced by the leases `leaseOf` names. */
  under(leaseOf: LeaseOf, fn: () => void): void {
    const outer = this.scope;
    this.scope = leaseOf;
    try {
      fn();
    } finally {
      this.scope = outer;
    }
  }

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
      const { effect: e, lease } = effects[i]!;
      let step: () => Promise<void>;
      if (lease && this.fencing) {
        // What one evaluation fired (an alert and its autoDisable) commits together or not at all.
        // A resolveAlerts reads the stored alerts, so it starts a group of its own.
        const group = [e];
        i++;
        while (i < effects.length && sameLease(effects[i]!.lease, lease) && effects[i]!.effect.kind !== "resolveAlerts") group.push(effects[i++]!.effect);
        const fencing = this.fencing;
        step = () => applyFenced(this.ctx, fencing, lease, group);
      } else if (e.kind === "alert") {
        // consecutive alerts go to the store in one transaction
        const batch: Alert[] = [];
        while (i < effects.length && effects[i]!.effect.kind === "alert" && !effects[i]!.lease) batch.push((effects[i++]!.effect as { alert: Alert }).alert);
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
  private hold(effects: Stamped[]): void {
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
      case "resolveAlerts":
        await commitAndAnnounce(this.ctx, { changedAlerts: await resolvedAlerts(this.ctx, e) });
        return;
    }
  }
}
