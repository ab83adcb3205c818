import { numericValue } from "../conditions/operators.ts";
import { conditionSetResult, type DampeningState } from "../dampening.ts";
import type { Alert, Event, FullTrigger, TriggerMode } from "../model.ts";
import { SOURCE_NONE } from "../model.ts";
import { systemScheduler } from "../scheduler.ts";
import type { AlertsEngine, AlertsEngineOptions, AlertsEngineStats, EngineEffect } from "./api.ts";
import { collectRounds } from "./batching.ts";
import { DataIndex, type IndexEntry, indexConditions, unindexConditions } from "./data-index.ts";
import { type EngineData, evaluateDatum, evaluateEvent, evaluateMissingTimeout } from "./evaluate.ts";
import { firedEvent } from "./fire.ts";
import { type ConditionRt, TriggerRt } from "./runtime.ts";
import { SerialRunner } from "./serial-runner.ts";
import { describeEvals } from "./snapshot.ts";
import { EngineTimers } from "./timers.ts";

export type { AlertsEngine, AlertsEngineOptions, AlertsEngineStats, EngineEffect } from "./api.ts";

export function createAlertsEngine(options: AlertsEngineOptions = {}): AlertsEngine {
  return new Engine(options);
}

class Engine implements AlertsEngine {
  private readonly clock: () => number;
  private readonly timers: EngineTimers;
  private readonly minData: number;
  private readonly minEvents: number;
  private readonly idGenerator: () => string;
  private readonly listener: (effect: EngineEffect) => void;
  private readonly warn: (message: string) => void;
  private readonly maxChainDepth: number;

  private readonly triggers = new Map<string, Map<string, TriggerRt>>();
  private readonly index = new DataIndex();
  private batchSeq = 0;
  private roundSeq = 0;
  private readonly touched: TriggerRt[] = [];
  private chain: Event[] = [];
  private readonly runner = new SerialRunner();
  private readonly counters = {
    dataReceived: 0,
    dataDropped: 0,
    eventsReceived: 0,
    evaluations: 0,
    alerts: 0,
    events: 0,
    timeouts: 0,
    chainsCut: 0,
  };

  constructor(o: AlertsEngineOptions) {
    this.clock = o.clock ?? Date.now;
    this.timers = new EngineTimers(
      o.scheduler ?? systemScheduler,
      (c) => this.runner.run(() => this.onMissingTimer(c)),
      (t, mode) => this.runner.run(() => this.onTimeout(t, mode)),
    );
    this.minData = o.minReportingIntervalData ?? 1000;
    this.minEvents = o.minReportingIntervalEvents ?? 0;
    this.idGenerator = o.idGenerator ?? (() => crypto.randomUUID());
    this.listener = o.listener ?? (() => {});
    this.warn = o.onWarning ?? (() => {});
    this.maxChainDepth = o.maxChainDepth ?? 32;
  }

  // ------------------------------------------------------------ definitions

  loadTrigger(full: FullTrigger): void {
    this.runner.run(() => {
      const { tenantId, id } = full.trigger;
      const prev = this.find(tenantId, id);
      const t = new TriggerRt({ ...full.trigger }, full, prev);
      let byId = this.triggers.get(tenantId);
      if (!byId) this.triggers.set(tenantId, (byId = new Map()));
      byId.set(id, t);
      if (t.def.enabled && t.evaluable) this.activate(t, this.clock());
      // after the new one is indexed, so the latest values of shared dataIds are kept
      if (prev) this.discard(prev);
    });
  }

  removeTrigger(tenantId: string, triggerId: string): boolean {
    const t = this.find(tenantId, triggerId);
    if (!t) return false;
    this.runner.run(() => {
      this.discard(t);
      const byId = this.triggers.get(tenantId)!;
      byId.delete(triggerId);
      if (byId.size === 0) this.triggers.delete(tenantId);
    });
    return true;
  }

  setEnabled(tenantId: string, triggerId: string, enabled: boolean): boolean {
    const t = this.find(tenantId, triggerId);
    if (!t) return false;
    this.runner.run(() => {
      t.def.enabled = enabled;
      if (enabled && !t.active && t.evaluable) this.activate(t, this.clock());
      else if (!enabled) this.deactivate(t);
    });
    return true;
  }

  reloadTrigger(tenantId: string, triggerId: string): boolean {
    const t = this.find(tenantId, triggerId);
    if (!t) return false;
    this.runner.run(() => {
      if (t.active) this.resetState(t, this.clock());
    });
    return true;
  }

  getTrigger(tenantId: string, triggerId: string): FullTrigger | undefined {
    const t = this.find(tenantId, triggerId);
    return t && { ...t.full, trigger: { ...t.def } };
  }

  triggerIds(tenantId: string): string[] {
    return [...(this.triggers.get(tenantId)?.keys() ?? [])];
  }

  getMode(tenantId: string, triggerId: string): TriggerMode | undefined {
    return this.find(tenantId, triggerId)?.mode;
  }

  alertsResolved(tenantId: string, triggerId: string, allResolved = true): void {
    const t = this.find(tenantId, triggerId);
    if (!t || !allResolved) return;
    this.runner.run(() => {
      const now = this.clock();
      if (t.def.autoEnable && !t.def.enabled) {
        t.def.enabled = true;
        if (t.evaluable) this.activate(t, now);
        this.emit({ kind: "enablement", tenantId, triggerId, enabled: true, cause: "autoEnable", time: now });
      } else if (t.def.autoResolve && t.active && t.mode === "AUTORESOLVE") {
        this.resetState(t, now);
        this.emit({ kind: "mode", tenantId, triggerId, mode: "FIRING", time: now });
      }
    });
  }

  stats(): AlertsEngineStats {
    let triggers = 0;
    let activeTriggers = 0;
    for (const byId of this.triggers.values()) {
      for (const t of byId.values()) {
        triggers++;
        if (t.active) activeTriggers++;
      }
    }
    return { triggers, activeTriggers, indexedKeys: this.index.size(), ...this.counters };
  }

  close(): void {
    this.runner.closed = true;
    for (const byId of this.triggers.values()) for (const t of byId.values()) this.timers.cancel(t);
  }

  private find(tenantId: string, triggerId: string): TriggerRt | undefined {
    return this.triggers.get(tenantId)?.get(triggerId);
  }

  // ------------------------------------------------------------ activation and state

  private activate(t: TriggerRt, now: number): void {
    t.active = true;
    indexConditions(this.index, t.allConditions(), t.source, t.def.tenantId);
    this.resetState(t, now);
  }

  private deactivate(t: TriggerRt): void {
    if (!t.active) return;
    t.active = false;
    unindexConditions(this.index, t.allConditions());
    this.timers.cancel(t);
  }

  private discard(t: TriggerRt): void {
    this.deactivate(t);
    t.removed = true;
  }

  /** The state of a freshly loaded trigger: FIRING, fresh dampening, no evaluations, missing intervals from now. */
  private resetState(t: TriggerRt, now: number): void {
    this.timers.cancel(t);
    t.reset(now);
    this.timers.armMissing(t, "FIRING", now);
  }

  // ------------------------------------------------------------ data

  watches(tenantId: string, dataId: string, source = SOURCE_NONE): boolean {
    const e = this.index.get(tenantId, source || SOURCE_NONE, dataId);
    return e !== undefined && e.dataRefs.length > 0;
  }

  sendData(batch: readonly EngineData[]): void {
    if (batch.length === 0) return;
    this.runner.run(() => this.processData(batch));
  }

  private processData(batch: readonly EngineData[]): void {
    const now = this.clock();
    this.counters.dataReceived += batch.length;
    const { entries, rounds, dropped } = collectRounds(
      batch,
      ++this.batchSeq,
      (d) => this.index.get(d.tenantId, d.source || SOURCE_NONE, d.id),
      (e) => e.dataRefs.length > 0,
      (d) => d.timestamp,
      () => true,
      this.minData,
    );
    this.counters.dataDropped += dropped;
    if (entries.length === 0) return;
    for (let r = 0; r < rounds; r++) {
      const inRound = r === 0 ? entries : entries.filter((e) => e.more !== null && e.more.length > r);
      this.dataRound(inRound, r, now);
    }
  }

  /** One evaluation cycle: at most one datum per key; then each touched trigger takes one dampening step. */
  private dataRound(entries: readonly IndexEntry[], r: number, now: number): void {
    const roundSeq = ++this.roundSeq;
    // first every key's latest value moves, so compare conditions see both sides of this round
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      const d = e.itemOf(r) as EngineData;
      e.advance(d, numericValue(d.value));
    }
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      const d = e.cur as EngineData;
      const refs = e.dataRefs;
      for (let j = 0; j < refs.length; j++) {
        const c = refs[j]!;
        const t = c.trigger;
        if (c.def.triggerMode !== t.mode) {
          // a missing condition of the other mode still notes arrivals, for when its mode comes
          if (c.def.type === "MISSING") c.lastArrival = now;
          continue;
        }
        if (evaluateDatum(c, e, d, now, roundSeq)) {
          this.counters.evaluations++;
          this.touch(t, roundSeq);
        }
      }
    }
    this.dampenTouched(now);
    this.runChain(now);
  }

  // ------------------------------------------------------------ events

  sendEvents(events: readonly Event[]): void {
    if (events.length === 0) return;
    this.runner.run(() => this.processEvents(events));
  }

  private processEvents(batch: readonly Event[]): void {
    const now = this.clock();
    this.counters.eventsReceived += batch.length;
    const { entries, rounds, dropped } = collectRounds(
      batch,
      ++this.batchSeq,
      (ev) => (ev.dataId === undefined ? undefined : this.index.get(ev.tenantId, ev.dataSource || SOURCE_NONE, ev.dataId)),
      (e) => e.eventRefs.length > 0,
      (ev) => ev.ctime,
      (a, b) => a.id === b.id,
      this.minEvents,
    );
    this.counters.dataDropped += dropped;
    for (let r = 0; r < rounds && entries.length > 0; r++) {
      const inRound = entries.filter((e) => e.more === null ? r === 0 : e.more.length > r);
      this.eventRound(inRound.map((e) => e.itemOf(r) as Event), now);
      // what these events fired feeds further event conditions, as after a data round
      this.runChain(now);
    }
  }

  /** One evaluation cycle over events (API events, or those triggers just fired). */
  private eventRound(events: readonly Event[], now: number): void {
    const roundSeq = ++this.roundSeq;
    for (const ev of events) {
      if (ev.dataId === undefined) continue;
      const e = this.index.get(ev.tenantId, ev.dataSource || SOURCE_NONE, ev.dataId);
      if (e === undefined) continue;
      for (const c of e.eventRefs) {
        const t = c.trigger;
        if (c.def.triggerMode !== t.mode) {
          if (c.def.type === "MISSING") c.lastArrival = now;
          continue;
        }
        if (evaluateEvent(c, ev, now)) {
          this.counters.evaluations++;
          this.touch(t, roundSeq);
        }
      }
    }
    this.dampenTouched(now);
  }

  /** Alerts and events fired in a cycle are evaluated at once, as events, so triggers can chain. */
  private runChain(now: number): void {
    let depth = 0;
    while (this.chain.length > 0) {
      if (depth++ >= this.maxChainDepth) {
        this.counters.chainsCut++;
        this.warn(`trigger chain deeper than ${this.maxChainDepth} cut; ${this.chain.length} fired events not evaluated further`);
        this.chain = [];
        return;
      }
      const events = this.chain;
      this.chain = [];
      this.eventRound(events, now);
    }
  }

  // ------------------------------------------------------------ dampening and firing

  private touch(t: TriggerRt, roundSeq: number): void {
    if (t.touchSeq === roundSeq) return;
    t.touchSeq = roundSeq;
    this.touched.push(t);
  }

  private dampenTouched(now: number): void {
    const list = this.touched;
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      if (t.active) this.dampen(t, now);
    }
    list.length = 0;
  }

  private dampen(t: TriggerRt, now: number): void {
    const mode = t.mode;
    const conds = t.conditions[mode];
    const d = t.dampenings[mode];
    const result = conditionSetResult(t.match, conds);
    if (result === undefined) return;
    d.step(result, now, t.snapshot[mode]);
    if (d.satisfied) this.satisfied(t, d, now);
    else if (d.def.type === "STRICT_TIMEOUT") this.timers.armTimeout(t, mode, now);
  }

  private satisfied(t: TriggerRt, d: DampeningState, now: number): void {
    const { tenantId, id: triggerId } = t.def;
    if (d.def.triggerMode === "FIRING") {
      const fired = firedEvent(t.def, t.source, d.def, describeEvals(d.satisfyingEvals), now, this.idGenerator());
      d.reset();
      if (fired.eventType === "ALERT") {
        this.counters.alerts++;
        this.emit({ kind: "alert", alert: fired as Alert });
      } else {
        this.counters.events++;
        this.emit({ kind: "event", event: fired });
      }
      this.chain.push(fired);
      if (t.def.autoResolve) this.enterAutoResolve(t, now);
      else if (t.def.autoDisable) {
        t.def.enabled = false;
        this.deactivate(t);
        this.emit({ kind: "enablement", tenantId, triggerId, enabled: false, cause: "autoDisable", time: now });
      }
      return;
    }
    const resolvedEvalSets = describeEvals(d.satisfyingEvals);
    d.reset();
    if (t.def.autoResolveAlerts) {
      this.emit({ kind: "resolveAlerts", tenantId, triggerId, user: "AutoResolve", notes: "Trigger AutoResolve=True", resolvedEvalSets, time: now });
    }
    this.resetState(t, now);
    this.emit({ kind: "mode", tenantId, triggerId, mode: "FIRING", time: now });
  }

  private enterAutoResolve(t: TriggerRt, now: number): void {
    t.enterAutoResolve();
    this.timers.armMissing(t, "AUTORESOLVE", now);
    this.emit({ kind: "mode", tenantId: t.def.tenantId, triggerId: t.def.id, mode: "AUTORESOLVE", time: now });
  }

  // ------------------------------------------------------------ timers

  /** Lazy: arrivals only move `lastArrival`; the timer re-arms itself when it fires early. */
  private onMissingTimer(c: ConditionRt): void {
    c.timer = undefined;
    const t = c.trigger;
    if (this.runner.closed || !t.active || c.def.triggerMode !== t.mode || c.def.type !== "MISSING") return;
    const now = this.clock();
    if (now < c.lastArrival + c.def.interval) {
      this.timers.armMissingOne(c, now);
      return;
    }
    const roundSeq = ++this.roundSeq;
    evaluateMissingTimeout(c, now);
    this.counters.evaluations++;
    this.touch(t, roundSeq);
    this.dampenTouched(now);
    if (t.active && c.def.triggerMode === t.mode) this.timers.armMissingOne(c, now);
    this.runChain(now);
  }

  /** STRICT_TIMEOUT: fires when the time has come with no false evaluation, without waiting for data. */
  private onTimeout(t: TriggerRt, mode: TriggerMode): void {
    t.timeoutTimers[mode] = undefined;
    if (this.runner.closed || !t.active || t.mode !== mode) return;
    const d = t.dampenings[mode];
    const now = this.clock();
    if (!d.checkTimeout(now)) {
      this.timers.armTimeout(t, mode, now);
      return;
    }
    this.counters.timeouts++;
    this.satisfied(t, d, now);
    this.runChain(now);
  }

  // ------------------------------------------------------------ plumbing

  private emit(effect: EngineEffect): void {
    try {
      this.listener(effect);
    } catch (e) {
      this.warn(`alerts engine listener failed on ${effect.kind}: ${(e as Error).message}`);
    }
  }
}
