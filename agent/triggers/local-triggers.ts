import type { AlertsEngine, EngineEffect } from "../../src/alerts/engine/engine.ts";
import type { EngineData } from "../../src/alerts/engine/evaluate.ts";
import { resolveAlert } from "../../src/alerts/lifecycle.ts";
import type { ActionDefinition, Alert, Event, FullTrigger } from "../../src/alerts/model.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { isStaleMarker } from "../../src/prometheus/staleness.ts";
import type { TriggersMessage } from "../../src/protocol/triggers-messages.ts";
import { dataIdsOf, diffTriggers } from "./trigger-set.ts";

/** Where the last applied set is kept, so triggers still evaluate after a restart while offline. */
export interface TriggerSetStore {
  load(): string | undefined;
  save(text: string): void;
}

export interface LocalTriggersOptions {
  tenant: string;
  feed: string;
  /** Receives what fired, in order: new alerts and events, and alerts resolved here. */
  fired(items: (Alert | Event)[]): void;
  store: TriggerSetStore;
  /** The action definitions that came with the set (plugin `agent`; docs/local-triggers.md). */
  actions?(definitions: ActionDefinition[]): void;
  log: Logger;
  now?: () => number;
}

/** Unresolved alerts remembered per trigger, to resolve them on auto-resolve; beyond this the oldest are forgotten. */
const MAX_OPEN_ALERTS_PER_TRIGGER = 1000;

/**
 * The triggers the collector pushed to this agent, evaluated by the shared engine on the
 * agent's own points (tagged with the feed as source, which is what these triggers read).
 * The engine and the trigger schemas are loaded only once there is a trigger to evaluate.
 */
export class LocalTriggers {
  private engine: AlertsEngine | undefined;
  private loaded = new Map<string, string>();
  private dataIds = new Set<string>();
  private digest: string | undefined;
  private readonly open = new Map<string, Alert[]>();
  private readonly now: () => number;

  constructor(private readonly o: LocalTriggersOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Re-applies the set saved by an earlier run. */
  async restore(): Promise<void> {
    const text = this.o.store.load();
    if (text === undefined) return;
    try {
      const saved = JSON.parse(text) as TriggersMessage;
      await this.apply(saved, false);
    } catch (e) {
      this.o.log.warn("ignoring the saved local triggers", { err: (e as Error).message });
    }
  }

  /** Replaces the set with the one the collector pushed. */
  async apply(msg: TriggersMessage, save = true): Promise<void> {
    if (msg.digest === this.digest) return;
    const valid = msg.triggers.length > 0 ? await this.validate(msg.triggers) : [];
    const actions = msg.actions && msg.actions.length > 0 ? await this.validateActions(msg.actions) : [];
    this.o.actions?.(actions);
    const { load, remove, texts } = diffTriggers(this.loaded, valid);
    if (load.length > 0) this.engine ??= await this.createEngine();
    for (const id of remove) {
      this.engine?.removeTrigger(this.o.tenant, id);
      this.open.delete(id);
    }
    for (const t of load) this.engine?.loadTrigger(t);
    this.loaded = texts;
    this.dataIds = dataIdsOf(valid);
    this.digest = msg.digest;
    if (save) this.o.store.save(JSON.stringify(actions.length > 0 ? { digest: msg.digest, triggers: valid, actions } : { digest: msg.digest, triggers: valid }));
    this.o.log.info("local triggers updated", { triggers: valid.length, loaded: load.length, removed: remove.length, actions: actions.length || undefined, digest: msg.digest });
  }

  get triggerCount(): number {
    return this.loaded.size;
  }

  /** Evaluates the points of metrics that some trigger reads. */
  onWrites(writes: readonly MetricWrite[]): void {
    const engine = this.engine;
    if (!engine || this.dataIds.size === 0) return;
    const data: EngineData[] = [];
    for (const w of writes) {
      if (!this.dataIds.has(w.id)) continue;
      // The engine reads availability as UP, DOWN or UNKNOWN, like the collector's data feed.
      const upper = w.type === "availability";
      for (const p of w.points) {
        // A staleness marker ends a Prometheus series; it is no value to evaluate.
        if (typeof p.value === "number" && isStaleMarker(p.value)) continue;
        data.push({ tenantId: this.o.tenant, id: w.id, timestamp: p.timestamp, value: upper ? String(p.value).toUpperCase() : p.value, source: this.o.feed });
      }
    }
    if (data.length > 0) engine.sendData(data);
  }

  close(): void {
    this.engine?.close();
  }

  private async validate(raw: unknown[]): Promise<FullTrigger[]> {
    const { fullTriggerSchema } = await import("../../src/alerts/schemas.ts");
    const { completeFullTrigger } = await import("../../src/alerts/complete.ts");
    const out: FullTrigger[] = [];
    for (const item of raw) {
      const r = fullTriggerSchema.safeParse(item);
      if (!r.success) {
        this.o.log.warn("ignoring an invalid pushed trigger", { err: r.error.issues[0]?.message });
        continue;
      }
      // The agent's tenant, whatever the message says.
      out.push(completeFullTrigger(r.data, this.o.tenant));
    }
    return out;
  }

  private async validateActions(raw: unknown[]): Promise<ActionDefinition[]> {
    const { actionDefinitionSchema } = await import("../../src/alerts/schemas.ts");
    const out: ActionDefinition[] = [];
    for (const item of raw) {
      const r = actionDefinitionSchema.safeParse(item);
      if (r.success) out.push({ ...r.data, tenantId: this.o.tenant } as ActionDefinition);
      else this.o.log.warn("ignoring an invalid pushed action definition", { err: r.error.issues[0]?.message });
    }
    return out;
  }

  private async createEngine(): Promise<AlertsEngine> {
    const { createAlertsEngine } = await import("../../src/alerts/engine/engine.ts");
    return createAlertsEngine({
      clock: this.now,
      listener: (e) => this.onEffect(e),
      onWarning: (m) => this.o.log.warn(m),
    });
  }

  private onEffect(e: EngineEffect): void {
    switch (e.kind) {
      case "alert": {
        const triggerId = e.alert.trigger?.id ?? "";
        const list = this.open.get(triggerId) ?? [];
        list.push(e.alert);
        if (list.length > MAX_OPEN_ALERTS_PER_TRIGGER) list.shift();
        this.open.set(triggerId, list);
        this.o.log.info("local trigger fired an alert", { trigger: triggerId, alert: e.alert.id, severity: e.alert.severity });
        this.o.fired([e.alert]);
        return;
      }
      case "event":
        this.o.log.info("local trigger fired an event", { trigger: e.event.trigger?.id, event: e.event.id });
        this.o.fired([e.event]);
        return;
      case "resolveAlerts": {
        const list = this.open.get(e.triggerId) ?? [];
        this.open.delete(e.triggerId);
        if (list.length === 0) return;
        this.o.log.info("local trigger auto-resolved its alerts", { trigger: e.triggerId, alerts: list.length });
        this.o.fired(list.map((a) => resolveAlert(a, e.user, e.time, e.notes, e.resolvedEvalSets)));
        return;
      }
      case "enablement":
        this.o.log.info(`local trigger ${e.enabled ? "enabled" : "disabled"} by ${e.cause}`, { trigger: e.triggerId });
        return;
      case "mode":
        this.o.log.debug("local trigger mode", { trigger: e.triggerId, mode: e.mode });
        return;
    }
  }
}
