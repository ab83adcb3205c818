import { createAlertsEngine } from "../../src/alerts/engine/engine.ts";
import type { EngineData } from "../../src/alerts/engine/evaluate.ts";
import { isGroupTrigger } from "../../src/alerts/groups.ts";
import { type Action, type ActionDefinition, type Alert, type Event, type FullTrigger, SOURCE_NONE } from "../../src/alerts/model.ts";
import { agentActionKey } from "../../src/alerts/actions/agent-record.ts";
import type { Scheduler } from "../../src/alerts/scheduler.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { AlertsStore } from "../store/alerts/types.ts";
import { ActionDefinitions } from "./action-definitions.ts";
import { ActionHistory } from "./action-history.ts";
import type { PluginRegistry } from "./actions/registry.ts";
import { ActionRunner } from "./actions/runner.ts";
import { AlertRecords } from "./alerts.ts";
import { announceDefinitions, commitAndAnnounce, unstored } from "./announce.ts";
import type { AlertingContext, DefinitionsListener } from "./context.ts";
import type { AlertCriteria, EventCriteria } from "./criteria.ts";
import { DataDrivenMembers } from "./data-driven.ts";
import { DataFeed } from "./data-feed.ts";
import { EffectApplier } from "./effects.ts";
import type { EffectFencing, LeaseOf } from "./fenced-effects.ts";
import { EventRecords } from "./events.ts";
import { GroupDefinitions } from "./groups.ts";
import { Serial } from "./serial.ts";
import { DefinitionsTransfer } from "./transfer.ts";
import { TriggerDefinitions } from "./triggers.ts";
import { type WatchFeed, watchAlerts, watchEvents } from "./watch.ts";
import { type WatchChange, WatchHub, type WatchListener } from "./watch-hub.ts";

export interface AlertingServiceOptions {
  store: AlertsStore;
  plugins: PluginRegistry;
  log: Logger;
  now?: () => number;
  scheduler?: Scheduler;
  newId?: () => string;
  /** Actions carried out at the same time. */
  actionConcurrency?: number;
  /** Collectors sharing a database: what fires is written under the tenant's lease. */
  fencing?: EffectFencing;
}

export interface IngestResult {
  /** Alerts and events stored for the first time. */
  created: number;
  /** Known alerts whose lifecycle moved on. */
  updated: number;
  /** Already known, unchanged. */
  ignored: number;
}

/**
 * The collector's alerting service: one engine for all tenants, fed by POST /data, events and
 * the metric points committed to the store; everything it fires is stored, watched and acted
 * on. Its parts are reached through the properties below.
 */
export class AlertingService {
  readonly triggers: TriggerDefinitions;
  readonly groups: GroupDefinitions;
  readonly alerts: AlertRecords;
  readonly events: EventRecords;
  readonly actions: ActionDefinitions;
  readonly history: ActionHistory;
  readonly transfer: DefinitionsTransfer;
  readonly data: DataFeed;
  private readonly ctx: AlertingContext;
  private readonly applier: EffectApplier;
  /** Open watches, ended when the service closes. */
  private readonly feeds = new Set<WatchFeed<Alert> | WatchFeed<Event>>();

  constructor(opts: AlertingServiceOptions) {
    const log = opts.log;
    const now = opts.now ?? Date.now;
    const serial = new Serial((err) => log.error("alerting write failed", { err: (err as Error)?.stack ?? String(err) }));
    let applier: EffectApplier | undefined;
    const engine = createAlertsEngine({
      clock: now,
      scheduler: opts.scheduler,
      listener: (effect) => applier?.onEffect(effect),
      onWarning: (msg) => log.warn(msg),
    });
    const runner = new ActionRunner({
      plugins: opts.plugins,
      log,
      concurrency: opts.actionConcurrency,
      record: (key, result) => serial.post(() => opts.store.setActionResult(key, result)),
    });
    this.ctx = {
      store: opts.store,
      engine,
      plugins: opts.plugins,
      runner,
      hub: new WatchHub((err) => log.warn("watch listener failed", { err: String(err) })),
      serial,
      log,
      now,
      newId: opts.newId ?? (() => crypto.randomUUID()),
      definitionListeners: new Set(),
    };
    applier = new EffectApplier(this.ctx, opts.fencing);
    this.applier = applier;
    this.groups = new GroupDefinitions(this.ctx);
    this.triggers = new TriggerDefinitions(this.ctx, this.groups);
    this.alerts = new AlertRecords(this.ctx);
    this.events = new EventRecords(this.ctx);
    this.actions = new ActionDefinitions(this.ctx);
    this.history = new ActionHistory(this.ctx);
    this.transfer = new DefinitionsTransfer(this.ctx, this.actions);
    this.data = new DataFeed(this.ctx, new DataDrivenMembers(this.ctx));
  }

  /**
   * Loads every stored trigger into the engine, in FIRING mode (the spec's start-up reload),
   * with the enabled state last stored; actions left WAITING by a stop run now. Among
   * collectors sharing a database (`owner`), only the WAITING actions of the tenants this one
   * owns run, and the stored modes are reset only by a collector owning every tenant (the
   * first to start), not under the engines of the others.
   */
  async open(owner?: { owns(tenantId: string): boolean; ownsEverything: boolean }): Promise<void> {
    const { store, engine, runner, log } = this.ctx;
    if (!owner || owner.ownsEverything) await store.resetModes();
    let loaded = 0;
    for (const full of await store.allTriggers()) {
      if (isGroupTrigger(full.trigger)) continue;
      engine.loadTrigger(full);
      loaded++;
    }
    const waiting = (await store.waitingActions()).filter((a) => !owner || (a.action.tenantId ? owner.owns(a.action.tenantId) : owner.ownsEverything));
    runner.enqueue(waiting);
    log.info("alerting ready", { triggers: loaded, resumedActions: waiting.length });
  }

  /**
   * Tenants whose lease this collector just took (collector/cluster/engine-relay.ts): their
   * triggers as stored now (created, changed, auto-disabled by other collectors meanwhile)
   * replace what the engine had loaded.
   */
  async adoptTenants(owns: (tenantId: string) => boolean): Promise<number> {
    let loaded = 0;
    for (const full of await this.ctx.store.allTriggers()) {
      if (isGroupTrigger(full.trigger) || !owns(full.trigger.tenantId)) continue;
      this.ctx.engine.loadTrigger(full);
      loaded++;
    }
    return loaded;
  }

  /**
   * Engine data of tenants whose leases this collector holds (collector/cluster/engine-relay.ts):
   * what it fires is stored only while `leaseOf`'s lease of its tenant is still this
   * collector's. Resolves once that is done.
   */
  async evaluateUnder(data: readonly EngineData[], leaseOf: LeaseOf): Promise<void> {
    if (data.length > 0) this.applier.under(leaseOf, () => this.ctx.engine.sendData(data));
    await this.ctx.serial.idle();
  }

  /**
   * Triggers changed through another collector sharing the database
   * (collector/cluster/definition-sync.ts): the engine takes them as stored now, and the
   * listeners are told, marked remote.
   */
  async applyRemoteDefinitions(tenantId: string, triggerIds: readonly string[]): Promise<void> {
    for (const id of triggerIds) {
      const full = await this.ctx.store.trigger(tenantId, id);
      if (!full || isGroupTrigger(full.trigger)) this.ctx.engine.removeTrigger(tenantId, id);
      else this.ctx.engine.loadTrigger(full);
    }
    announceDefinitions(this.ctx, tenantId, triggerIds, true);
  }

  /** Every alert or event announced to this collector's watch streams (collector/cluster/watch-sync.ts). */
  onWatchChange(fn: WatchListener): () => void {
    return this.ctx.hub.subscribe(fn);
  }

  async watchedItem(tenantId: string, kind: WatchChange["kind"], id: string): Promise<WatchChange | undefined> {
    if (kind === "alert") {
      const alert = await this.ctx.store.alert(tenantId, id);
      return alert && { kind, alert };
    }
    const event = await this.ctx.store.event(tenantId, id);
    return event && { kind, event };
  }

  /** Announces an alert or event another collector stored to this collector's watch streams. */
  publishWatch(change: WatchChange): void {
    this.ctx.hub.publish(change);
  }

  /** Stops evaluating, lets running actions finish (briefly), then stores what is pending. */
  async close(): Promise<void> {
    for (const f of [...this.feeds]) f.close();
    this.ctx.engine.close();
    await this.ctx.runner.close();
    await this.ctx.serial.idle();
    this.applier.close();
    await this.ctx.store.close();
  }

  /** Resolves once every write queued so far (including what fired) is stored. */
  idle(): Promise<void> {
    return this.ctx.serial.idle();
  }

  /** What the engine fired that the storage refused so far and that is being retried. */
  get heldEffects(): number {
    return this.applier.held;
  }

  /** Actions queued or running in the background. */
  get pendingActions(): number {
    return this.ctx.runner.pending;
  }

  async watchAlerts(tenants: readonly string[], criteria: AlertCriteria): Promise<WatchFeed<Alert>> {
    return this.track(await watchAlerts(this.ctx, this.alerts, tenants, criteria));
  }

  async watchEvents(tenants: readonly string[], criteria: EventCriteria): Promise<WatchFeed<Event>> {
    return this.track(await watchEvents(this.ctx, this.events, tenants, criteria));
  }

  private track<F extends WatchFeed<Alert> | WatchFeed<Event>>(feed: F): F {
    this.feeds.add(feed);
    feed.whenClosed(() => this.feeds.delete(feed));
    return feed;
  }

  // ------------------------------------------------------------ for agent synchronisation

  /**
   * The triggers an agent of this feed evaluates locally: members and standalone triggers
   * whose `source` is the feed id, or which carry the tag `feed` with the feed id. Groups
   * are definitions only and never included.
   */
  async triggersForFeed(tenantId: string, feedId: string): Promise<FullTrigger[]> {
    return (await this.ctx.store.triggers(tenantId)).filter(
      (f) => !isGroupTrigger(f.trigger) && ((f.trigger.source === feedId && feedId !== SOURCE_NONE) || f.trigger.tags?.feed === feedId),
    );
  }

  /** Full definitions (trigger, conditions, dampenings) of a tenant, all or the ids given. */
  async fullTriggers(tenantId: string, ids?: readonly string[]): Promise<FullTrigger[]> {
    const all = await this.ctx.store.triggers(tenantId);
    return ids ? all.filter((f) => ids.includes(f.trigger.id)) : all;
  }

  /** Called with the ids of a tenant's triggers after they were created, changed or removed. */
  onDefinitionsChanged(fn: DefinitionsListener): () => void {
    this.ctx.definitionListeners.add(fn);
    return () => this.ctx.definitionListeners.delete(fn);
  }

  /** The tenant's definitions of plugins the agents run; pushed with the triggers they link (or all, when global). */
  async agentActionDefinitions(tenantId: string): Promise<ActionDefinition[]> {
    return (await this.ctx.store.actionDefinitions(tenantId)).filter((d) => this.ctx.plugins.get(d.actionPlugin)?.runsOnAgent);
  }

  /**
   * Stores in the action history what an agent reports of the actions it ran. Each record has
   * a key made from the feed and the agent's run id, so a record delivered again is ignored.
   * Answers how many were new.
   */
  ingestAgentActions(tenantId: string, feed: string, actions: readonly Action[]): Promise<number> {
    return this.ctx.serial.run(async () => {
      const known = new Set((await this.ctx.store.findActions({ tenants: [tenantId], eventIds: [...new Set(actions.map((a) => a.eventId))] })).map((r) => r.key));
      const fresh = actions
        .map((a) => ({ key: agentActionKey(feed, a), action: { ...a, tenantId } }))
        .filter((r, i, all) => !known.has(r.key) && all.findIndex((o) => o.key === r.key) === i);
      if (fresh.length > 0) await this.ctx.store.insertActions(fresh);
      return fresh.length;
    });
  }

  /**
   * Stores alerts and events that an agent's triggers fired, without evaluating them again.
   * New ones are stored, watched and (unless `runActions` is false) acted on; a known alert
   * whose lifecycle grew (resolved on the agent) is updated; anything else is ignored, so
   * redelivery is harmless.
   */
  ingestFired(tenantId: string, items: readonly (Alert | Event)[], opts: { runActions?: boolean } = {}): Promise<IngestResult> {
    const runActions = opts.runActions !== false;
    return this.ctx.serial.run(async () => {
      const { store } = this.ctx;
      // An alert fired and resolved during one outage comes twice in a batch: its latest state counts.
      const latest = new Map<string, Alert>();
      for (const a of items) {
        if (a.eventType !== "ALERT") continue;
        const seen = latest.get(a.id);
        if (!seen || (a as Alert).lifecycle.length > seen.lifecycle.length) latest.set(a.id, { ...(a as Alert), tenantId });
      }
      const alerts = [...latest.values()];
      const events = items.filter((i) => i.eventType !== "ALERT").map((e) => ({ ...e, tenantId, eventType: "EVENT" as const }));
      const newAlerts = await unstored(alerts, (t, id) => store.alert(t, id));
      const fresh = new Set(newAlerts);
      const grown: Alert[] = [];
      for (const a of alerts) {
        if (fresh.has(a)) continue;
        const known = await store.alert(tenantId, a.id);
        if (known && a.lifecycle.length > known.lifecycle.length && !grown.some((g) => g.id === a.id)) grown.push(a);
      }
      const newEvents = await unstored(events, (t, id) => store.event(t, id));
      // One transaction: if it fails nothing is stored, the batch is not acked and comes again.
      await commitAndAnnounce(this.ctx, { newAlerts, changedAlerts: grown, newEvents }, { runActions });
      const created = newAlerts.length + newEvents.length;
      return { created, updated: grown.length, ignored: items.length - created - grown.length };
    });
  }
}
