import type { ActionDefinition, Alert, Event } from "../../src/alerts/model.ts";
import type { Lease } from "../../src/partitions.ts";
import type { StoredAction, TriggerState } from "../store/alerts/types.ts";
import { actionsToRun } from "../../src/alerts/actions/select.ts";
import type { AlertingContext } from "./context.ts";

/**
 * The WAITING history rows of the actions these alerts and events call for. Reads only: the
 * rows are stored with what fired, in one transaction (`commitAndAnnounce`).
 */
export async function plannedActions(ctx: AlertingContext, events: readonly Event[]): Promise<StoredAction[]> {
  const fired = events.filter((e) => e.trigger !== undefined);
  if (fired.length === 0) return [];
  const byTenant = new Map<string, Event[]>();
  for (const e of fired) byTenant.set(e.tenantId, [...(byTenant.get(e.tenantId) ?? []), e]);
  const planned: StoredAction[] = [];
  const now = ctx.now();
  for (const [tenant, list] of byTenant) {
    // Actions of agent plugins are run and reported by the agent (docs/local-triggers.md).
    const defs = (await ctx.store.actionDefinitions(tenant)).filter((d) => !ctx.plugins.get(d.actionPlugin)?.runsOnAgent);
    if (defs.length === 0) continue;
    const byKey = new Map<string, ActionDefinition>(defs.map((d) => [`${d.actionPlugin}\u0000${d.actionId}`, d]));
    const lookup = {
      definition: (plugin: string, id: string) => byKey.get(`${plugin}\u0000${id}`),
      globals: defs.filter((d) => d.global),
    };
    for (const e of list) for (const action of actionsToRun(e, lookup, now)) planned.push({ key: ctx.newId(), action });
  }
  return planned;
}

export interface Announced {
  /** Alerts stored for the first time (the caller checked that their ids are new). */
  newAlerts?: readonly Alert[];
  /** Stored alerts whose lifecycle moved on. */
  changedAlerts?: readonly Alert[];
  /** Events stored for the first time (ids checked new). */
  newEvents?: readonly Event[];
  /** Trigger flags the engine changed with them (autoDisable...); announced by the caller. */
  triggerStates?: readonly TriggerState[];
}

/**
 * Stores alerts and events with the history of the actions they call for, in one transaction;
 * then, and only then, watchers hear of them and the actions are queued. Runs inside a serial
 * task. If the commit fails (a full disk) nothing happened and the caller may try again.
 */
export async function commitAndAnnounce(ctx: AlertingContext, w: Announced, opts: { runActions?: boolean; lease?: Lease } = {}): Promise<void> {
  const alerts = [...(w.newAlerts ?? []), ...(w.changedAlerts ?? [])];
  const events = w.newEvents ?? [];
  if (alerts.length === 0 && events.length === 0 && !w.triggerStates?.length) return;
  const actions = opts.runActions === false ? [] : await plannedActions(ctx, [...alerts, ...events]);
  const { lease } = opts;
  await ctx.store.commit({ insertAlerts: w.newAlerts, updateAlerts: w.changedAlerts, insertEvents: w.newEvents, actions, triggerStates: w.triggerStates, lease });
  for (const alert of alerts) ctx.hub.publish({ kind: "alert", alert });
  for (const event of events) ctx.hub.publish({ kind: "event", event });
  if (actions.length > 0) ctx.runner.enqueue(actions);
}

/** The items whose (tenant, id) is not stored yet, each once (the first of repeated ids). */
export async function unstored<T extends { tenantId: string; id: string }>(items: readonly T[], find: (tenantId: string, id: string) => Promise<unknown>): Promise<T[]> {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const k = `${item.tenantId}\u0000${item.id}`;
    if (seen.has(k)) continue;
    seen.add(k);
    if ((await find(item.tenantId, item.id)) === undefined) out.push(item);
  }
  return out;
}

export function announceDefinitions(ctx: AlertingContext, tenantId: string, triggerIds: readonly string[], remote = false): void {
  if (triggerIds.length === 0) return;
  for (const fn of ctx.definitionListeners) {
    try {
      fn(tenantId, triggerIds, remote);
    } catch (e) {
      ctx.log.warn("definitions listener failed", { err: String(e) });
    }
  }
}
