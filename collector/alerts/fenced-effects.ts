import type { EngineEffect } from "../../src/alerts/engine/engine.ts";
import { resolveAlert } from "../../src/alerts/lifecycle.ts";
import type { Alert, Event } from "../../src/alerts/model.ts";
import type { Lease } from "../../src/partitions.ts";
import { StaleLeaseError } from "../../src/postgres/leases.ts";
import type { TriggerState } from "../store/alerts/types.ts";
import { announceDefinitions, commitAndAnnounce, unstored } from "./announce.ts";
import type { AlertingContext } from "./context.ts";

/** The lease this collector evaluates a tenant under, or none. */
export type LeaseOf = (tenantId: string) => Lease | undefined;

/**
 * Collectors sharing a database (collector/cluster/engine-relay.ts): what the engine fires for
 * a tenant is written only while this collector still holds the lease it evaluated under, so
 * that a holder that lost its lease without noticing yet cannot fire what the next holder fires.
 */
export interface EffectFencing {
  /** For effects outside an evaluation under known leases (timers, POST /data): the lease held now, if any. None: not lease work, written unfenced. */
  leaseOf: LeaseOf;
  /** A fenced write was refused: the lease was taken over. */
  lost(lease: Lease): void;
}

/** A resolveAlerts effect's alerts: the trigger's open and acknowledged ones, resolved (not stored yet). */
export async function resolvedAlerts(ctx: AlertingContext, e: Extract<EngineEffect, { kind: "resolveAlerts" }>): Promise<Alert[]> {
  const open = await ctx.store.findAlerts({ tenants: [e.tenantId], triggerIds: [e.triggerId], statuses: ["OPEN", "ACKNOWLEDGED"] });
  return open.map((a) => resolveAlert(a, e.user, e.time, e.notes, e.resolvedEvalSets));
}

export function effectTenant(e: EngineEffect): string {
  if (e.kind === "alert") return e.alert.tenantId;
  if (e.kind === "event") return e.event.tenantId;
  return e.tenantId;
}

/**
 * Writes what one evaluation under `lease` fired in one transaction fenced by the lease: the
 * alerts and events, the history of their actions, the triggers' new flags. Announced after the
 * commit, as unfenced effects are. Refused (the lease was taken over): nothing is written or
 * announced, and the lease is given up here; the next holder evaluates the tenant's data anew,
 * with the triggers as stored (collector/cluster/engine-relay.ts, adopt).
 */
export async function applyFenced(ctx: AlertingContext, fencing: EffectFencing, lease: Lease, effects: readonly EngineEffect[]): Promise<void> {
  const { store } = ctx;
  const alerts: Alert[] = [];
  const events: Event[] = [];
  const resolved: Alert[] = [];
  const triggerStates: TriggerState[] = [];
  for (const e of effects) {
    switch (e.kind) {
      case "alert":
        alerts.push(e.alert);
        break;
      case "event":
        events.push(e.event);
        break;
      case "mode":
        triggerStates.push({ tenantId: e.tenantId, id: e.triggerId, mode: e.mode });
        break;
      case "enablement":
        triggerStates.push({ tenantId: e.tenantId, id: e.triggerId, enabled: e.enabled });
        break;
      case "resolveAlerts":
        // Only ever first in a group (EffectApplier): nothing earlier in it is left unstored.
        resolved.push(...(await resolvedAlerts(ctx, e)));
        break;
    }
  }
  const newAlerts = await unstored(alerts, (t, id) => store.alert(t, id));
  const newEvents = await unstored(events, (t, id) => store.event(t, id));
  try {
    await commitAndAnnounce(ctx, { newAlerts, changedAlerts: resolved, newEvents, triggerStates }, { lease });
  } catch (err) {
    if (!(err instanceof StaleLeaseError)) throw err;
    ctx.log.warn("another collector took over this lease: what the engine fired under it is not stored (the new holder evaluates the tenants)", {
      partition: lease.partition,
      generation: lease.generation,
      dropped: effects.map((e) => e.kind).join(","),
    });
    fencing.lost(lease);
    return;
  }
  for (const s of triggerStates) if (s.enabled !== undefined) announceDefinitions(ctx, s.tenantId, [s.id]);
}
