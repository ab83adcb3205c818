import { numericValue } from "../conditions/operators.ts";
import { conditionSetResult, type DampeningState } from "../dampening.ts";
import type { Alert, ConditionEval, Event, FullTrigger, TriggerMode } from "../model.ts";
import { SOURCE_NONE } from "../model.ts";
import { type Scheduler, systemScheduler } from "../scheduler.ts";
import { orderForRounds } from "./batching.ts";
import { DataIndex, type IndexEntry, indexConditions, unindexConditions } from "./data-index.ts";
import { type EngineData, evaluateDatum, evaluateEvent, evaluateMissingTimeout } from "./evaluate.ts";
import { firedEvent } from "./fire.ts";
import { type ConditionRt, TriggerRt } from "./runtime.ts";
import { describeEvals } from "./snapshot.ts";

/** What the engine tells its owner, who stores alerts and definitions. */
export type EngineEffect =
  | { kind: "alert"; alert: Alert }
  | { kind: "event"; event: Event }
  /** The engine moved a trigger to another mode (after firing with autoResolve, or when auto-resolved). */
  | { kind: "mode"; tenantId: string; triggerId: string; mode: TriggerMode; time: number }
  /** The engine disabled (autoDisable) or re-enabled (autoEnable) a trigger; persist the flag. */
  | { kind: "enablement"; tenantId: string; triggerId: string; enabled: boolean; cause: "autoDisable" | "autoEnable"; time: number }
  /** A trigger with autoResolveAlerts auto-resolved: resolve its unresolved alerts with these evaluations. */
  | {
      kind: "resolveAlerts";
      tenantId: string;
      triggerId: string;
      user: "AutoResolve";
      notes: string;
      resolvedEvalSets: ConditionEval[][];
      time: number;
    };

export interface AlertsEngineOptions {
  /** Milliseconds since the epoch; dampening times and fired ctimes come from it. */
  clock?: () => number;
  scheduler?: Scheduler;
  /** Data of one dataId closer than this to the previous kept one in a batch are dropped (default 1000 ms). */
  minReportingIntervalData?: number;
  /** The same for events (default 0 ms: only exact duplicates are dropped). */
  minReportingIntervalEvents?: number;
  /** The unique part of fired alert and event ids (default: random UUIDs). */
  idGenerator?: () => string;
  listener?: (effect: EngineEffect) => void;
  /** Told about listener failures and cut event chains. */
  onWarning?: (message: string) => void;
  /** Trigger-fired events feed further triggers at most this many levels deep (default 32). */
  maxChainDepth?: number;
}

export interface AlertsEngineStats {
  triggers: number;
  activeTriggers: number;
  indexedKeys: number;
  dataReceived: number;
  dataDropped: number;
  eventsReceived: number;
  evaluations: number;
  alerts: number;
  events: number;
  timeouts: number;
  chainsCut: number;
}

export interface AlertsEngine {
  /** Adds or replaces a trigger. A (re)loaded trigger starts in FIRING mode with fresh dampening. */
  loadTrigger(full: FullTrigger): void;
  removeTrigger(tenantId: string, triggerId: string): boolean;
  /** Enabling a disabled trigger loads it afresh; disabling stops its evaluation. */
  setEnabled(tenantId: string, triggerId: string, enabled: boolean): boolean;
  /** Back to FIRING mode with fresh dampening, as after a manual reload. */
  reloadTrigger(tenantId: string, triggerId: string): boolean;
  getTrigger(tenantId: string, triggerId: string): FullTrigger | undefined;
  triggerIds(tenantId: string): string[];
  getMode(tenantId: string, triggerId: string): TriggerMode | undefined;
  /** Whether an enabled trigger's condition reads this dataId (from this source), so callers can skip data nobody reads. */
  watches(tenantId: string, dataId: string, source?: string): boolean;
  /** Evaluates data, synchronously. */
  sendData(data: readonly EngineData[]): void;
  /** Evaluates events (API or external), synchronously. Events without dataId match nothing. */
  sendEvents(events: readonly Event[]): void;
  /**
   * Tells the engine a trigger's alerts were resolved by a user. When none is left unresolved,
   * an autoEnable trigger that was disabled is enabled again, and an autoResolve trigger in
   * AUTORESOLVE mode goes back to FIRING.
   */
  alertsResolved(tenantId: string, triggerId: string, allResolved?: boolean): void;
  stats(): AlertsEngineStats;
  /** Cancels every timer; later calls are ignored. */
  close(): void;
}

export function createAlertsEngine(options: AlertsEngineOptions = {}): AlertsEngine {
  return new Engine(options);
}

class Engine implements AlertsEngine {
  private readonly clock: () => number;
  private readonly scheduler: Scheduler;
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
  private busy = false;
  private readonly deferred: (() => void)[] = [];
  private closed = false;
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
    this.scheduler = o.scheduler ?? systemScheduler;
    this.minData = o.minReportingIntervalData ?? 1000;
    this.minEvents = o.minReportingIntervalEvents ?? 0;
    this.idGenerator = o.idGenerator ?? (() => crypto.randomUUID());
    this.listener = o.listener ?? (() => {});
    this.warn = o.onWarning ?? (() => {});
    this.maxChainDepth = o.maxChainDepth ?? 32;
  }

  // ------------------------------------------------------------ definitions

  loadTrigger(full: FullTrigger): void {
    this.run(() => {
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
    this.run(() => {
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
    this.run(() => {
      t.def.enabled = enabled;
      if (enabled && !t.active && t.evaluable) this.activate(t, this.clock());
      else if (!enabled) this.deactivate(t);
    });
    return true;
  }

  reloadTrigger(tenantId: string, triggerId: string): boolean {
    const t = this.find(tenantId, triggerId);
    if (!t) return false;
    this.run(() => {
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
    this.run(() => {
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
    this.closed = true;
    for (const byId of this.triggers.values()) for (const t of byId.values()) this.cancelTimers(t);
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
    this.cancelTimers(t);
  }

  private discard(t: TriggerRt): void {
    this.deactivate(t);
    t.removed = true;
  }

  /** The state of a freshly loaded trigger: FIRING, fresh dampening, no evaluations, missing intervals from now. */
  private resetState(t: TriggerRt, now: number): void {
    this.cancelTimers(t);
    t.mode = "FIRING";
    t.dampenings.FIRING.reset();
    t.dampenings.AUTORESOLVE.reset();
    for (const c of t.allConditions()) {
      c.clearEval();
      c.lastArrival = now;
    }
    this.armMissing(t, "FIRING", now);
  }

  private cancelTimers(t: TriggerRt): void {
    for (const c of t.allConditions()) {
      if (c.timer !== undefined) this.scheduler.clearTimeout(c.timer);
      c.timer = undefined;
    }
    for (const m of ["FIRING", "AUTORESOLVE"] as const) {
      if (t.timeoutTimers[m] !== undefined) this.scheduler.clearTimeout(t.timeoutTimers[m]);
      t.timeoutTimers[m] = undefined;
    }
  }

  // ------------------------------------------------------------ data

  watches(tenantId: string, dataId: string, source = SOURCE_NONE): boolean {
    const e = this.index.get(tenantId, source || SOURCE_NONE, dataId);
    return e !== undefined && e.dataRefs.length > 0;
  }

  sendData(batch: readonly EngineData[]): void {
    if (batch.length === 0) return;
    this.run(() => this.processData(batch));
  }

  private processData(batch: readonly EngineData[]): void {
    const now = this.clock();
    this.counters.dataReceived += batch.length;
    const seq = ++this.batchSeq;
    const entries: IndexEntry[] = [];
    for (let i = 0; i < batch.length; i++) {
      const d = batch[i]!;
      const e = this.index.get(d.tenantId, d.source || SOURCE_NONE, d.id);
      if (e === undefined || e.dataRefs.length === 0) continue;
      if (e.batchSeq !== seq) {
        e.batchSeq = seq;
        e.first = d;
        e.more = null;
        entries.push(e);
      } else if (e.more === null) e.more = [d];
      else e.more.push(d);
    }
    if (entries.length === 0) return;
    let rounds = 1;
    for (const e of entries) {
      if (e.more === null) continue;
      const all = [e.first as EngineData, ...(e.more as EngineData[])];
      const { kept, dropped } = orderForRounds(all, (d) => d.timestamp, () => true, this.minData);
      e.more = kept;
      this.counters.dataDropped += dropped;
      if (kept.length > rounds) rounds = kept.length;
    }
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
      const d = (e.more === null ? e.first : e.more[r]) as EngineData;
      e.cur = d;
      const num = numericValue(d.value);
      e.curNum = num;
      e.prevHas = e.hasLatest;
      e.prevNum = e.latestNum;
      e.prevTs = e.latestTs;
      const newest = !e.hasLatest || d.timestamp > e.latestTs;
      e.curNewest = newest;
      if (newest) {
        e.hasLatest = true;
        e.latestNum = num;
        e.latestTs = d.timestamp;
        e.latestContext = d.context;
      }
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
    this.run(() => this.processEvents(events));
  }

  private processEvents(batch: readonly Event[]): void {
    const now = this.clock();
    this.counters.eventsReceived += batch.length;
    const seq = ++this.batchSeq;
    const entries: IndexEntry[] = [];
    for (const ev of batch) {
      if (ev.dataId === undefined) continue;
      const e = this.index.get(ev.tenantId, ev.dataSource || SOURCE_NONE, ev.dataId);
      if (e === undefined || e.eventRefs.length === 0) continue;
      if (e.batchSeq !== seq) {
        e.batchSeq = seq;
        e.first = ev;
        e.more = null;
        entries.push(e);
      } else if (e.more === null) e.more = [ev];
      else e.more.push(ev);
    }
    let rounds = 1;
    for (const e of entries) {
      if (e.more === null) continue;
      const all = [e.first as Event, ...(e.more as Event[])];
      const { kept, dropped } = orderForRounds(all, (ev) => ev.ctime, (a, b) => a.id === b.id, this.minEvents);
      e.more = kept;
      this.counters.dataDropped += dropped;
      if (kept.length > rounds) rounds = kept.length;
    }
    for (let r = 0; r < rounds && entries.length > 0; r++) {
      const inRound = entries.filter((e) => e.more === null ? r === 0 : e.more.length > r);
      this.eventRound(inRound.map((e) => (e.more === null ? e.first : e.more[r]) as Event), now);
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
    else if (d.def.type === "STRICT_TIMEOUT") this.armTimeout(t, mode, now);
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
    t.mode = "AUTORESOLVE";
    t.dampenings.AUTORESOLVE.reset();
    for (const c of t.conditions.AUTORESOLVE) c.clearEval();
    this.armMissing(t, "AUTORESOLVE", now);
    this.emit({ kind: "mode", tenantId: t.def.tenantId, triggerId: t.def.id, mode: "AUTORESOLVE", time: now });
  }

  // ------------------------------------------------------------ timers

  private armMissing(t: TriggerRt, mode: TriggerMode, now: number): void {
    for (const c of t.conditions[mode]) if (c.def.type === "MISSING") this.armMissingOne(c, now);
  }

  private armMissingOne(c: ConditionRt, now: number): void {
    if (c.timer !== undefined || c.def.type !== "MISSING") return;
    const due = c.lastArrival + c.def.interval;
    c.timer = this.scheduler.setTimeout(() => this.run(() => this.onMissingTimer(c)), due - now);
  }

  /** Lazy: arrivals only move `lastArrival`; the timer re-arms itself when it fires early. */
  private onMissingTimer(c: ConditionRt): void {
    c.timer = undefined;
    const t = c.trigger;
    if (this.closed || !t.active || c.def.triggerMode !== t.mode || c.def.type !== "MISSING") return;
    const now = this.clock();
    if (now < c.lastArrival + c.def.interval) {
      this.armMissingOne(c, now);
      return;
    }
    const roundSeq = ++this.roundSeq;
    evaluateMissingTimeout(c, now);
    this.counters.evaluations++;
    this.touch(t, roundSeq);
    this.dampenTouched(now);
    if (t.active && c.def.triggerMode === t.mode) this.armMissingOne(c, now);
    this.runChain(now);
  }

  private armTimeout(t: TriggerRt, mode: TriggerMode, now: number): void {
    if (t.timeoutTimers[mode] !== undefined) return;
    const at = t.dampenings[mode].timeoutAt();
    if (at === undefined) return;
    t.timeoutTimers[mode] = this.scheduler.setTimeout(() => this.run(() => this.onTimeout(t, mode)), at - now);
  }

  /** STRICT_TIMEOUT: fires when the time has come with no false evaluation, without waiting for data. */
  private onTimeout(t: TriggerRt, mode: TriggerMode): void {
    t.timeoutTimers[mode] = undefined;
    if (this.closed || !t.active || t.mode !== mode) return;
    const d = t.dampenings[mode];
    const now = this.clock();
    if (!d.checkTimeout(now)) {
      this.armTimeout(t, mode, now);
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

  /** Serialises work: a listener that calls back into the engine is served after the current cycle. */
  private run(fn: () => void): void {
    if (this.closed) return;
    if (this.busy) {
      this.deferred.push(fn);
      return;
    }
    this.busy = true;
    try {
      fn();
      while (this.deferred.length > 0) this.deferred.shift()!();
    } finally {
      this.busy = false;
      this.deferred.length = 0;
    }
  }
}
