import type { ActionDefinition, Alert, Event } from "../../src/alerts/model.ts";
import type { StoredAction } from "../store/alerts/types.ts";
import { actionsToRun } from "./actions/select.ts";
import type { AlertingContext } from "./context.ts";

/**
 * Records WAITING history for the actions an alert or event calls for, and queues them.
 * Runs inside a serial task; the actions themselves run later, in the background.
 */
export async function dispatchActions(ctx: AlertingContext, events: readonly Event[]): Promise<void> {
  const fired = events.filter((e) => e.trigger !== undefined);
  if (fired.length === 0) return;
  const byTenant = new Map<string, Event[]>();
  for (const e of fired) byTenant.set(e.tenantId, [...(byTenant.get(e.tenantId) ?? []), e]);
  const stored: StoredAction[] = [];
  const now = ctx.now();
  for (const [tenant, list] of byTenant) {
    const defs = await ctx.store.actionDefinitions(tenant);
    if (defs.length === 0) continue;
    const byKey = new Map<string, ActionDefinition>(defs.map((d) => [`${d.actionPlugin}\u0000${d.actionId}`, d]));
    const lookup = {
      definition: (plugin: string, id: string) => byKey.get(`${plugin}\u0000${id}`),
      globals: defs.filter((d) => d.global),
    };
    for (const e of list) for (const action of actionsToRun(e, lookup, now)) stored.push({ key: ctx.newId(), action });
  }
  if (stored.length === 0) return;
  await ctx.store.insertActions(stored);
  ctx.runner.enqueue(stored);
}

/** New alerts, or alerts whose lifecycle moved: watchers hear of them, their actions run. */
export async function announceAlerts(ctx: AlertingContext, alerts: readonly Alert[]): Promise<void> {
  for (const alert of alerts) ctx.hub.publish({ kind: "alert", alert });
  await dispatchActions(ctx, alerts);
}

export async function announceEvents(ctx: AlertingContext, events: readonly Event[]): Promise<void> {
  for (const event of events) ctx.hub.publish({ kind: "event", event });
  await dispatchActions(ctx, events);
}

export function announceDefinitions(ctx: AlertingContext, tenantId: string, triggerIds: readonly string[]): void {
  if (triggerIds.length === 0) return;
  for (const fn of ctx.definitionListeners) {
    try {
      fn(tenantId, triggerIds);
    } catch (e) {
      ctx.log.warn("definitions listener failed", { err: String(e) });
    }
  }
}
