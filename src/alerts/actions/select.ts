import type { Action, ActionDefinition, Alert, Event, TriggerAction } from "../model.ts";
import { satisfiesTimeConstraint } from "./time-constraint.ts";

type Constraints = Pick<TriggerAction, "states" | "calendar">;

/**
 * The spec's rule: constraints of the trigger's link, when it has any, replace those of the
 * definition; states apply to alerts only (events have no lifecycle). The calendar is read at
 * the time the action would run.
 */
function allowed(c: Constraints, event: Event, now: number): boolean {
  const status = (event as Partial<Alert>).status;
  if (c.states && c.states.length > 0 && event.eventType === "ALERT" && (status === undefined || !c.states.includes(status))) return false;
  if (c.calendar) {
    try {
      return satisfiesTimeConstraint(c.calendar, now);
    } catch {
      return false;
    }
  }
  return true;
}

function effective(link: Constraints | undefined, def: ActionDefinition): Constraints {
  const linkHas = link && ((link.states && link.states.length > 0) || link.calendar);
  return linkHas ? link! : { states: def.states, calendar: def.calendar };
}

export interface ActionLookup {
  definition(plugin: string, actionId: string): ActionDefinition | undefined;
  /** The tenant's definitions marked global: they run for every trigger. */
  globals: readonly ActionDefinition[];
}

/** The actions to run now for an alert or event a trigger fired, or whose status changed. */
export function actionsToRun(event: Event, lookup: ActionLookup, now: number): Action[] {
  const out: Action[] = [];
  const seen = new Set<string>();
  const add = (def: ActionDefinition, link: Constraints | undefined) => {
    const key = `${def.actionPlugin}\u0000${def.actionId}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (!allowed(effective(link, def), event, now)) return;
    out.push({ ...def, tenantId: event.tenantId, eventId: event.id, ctime: now, event, result: "WAITING" });
  };
  for (const link of event.trigger?.actions ?? []) {
    const def = lookup.definition(link.actionPlugin, link.actionId);
    if (def) add(def, link);
  }
  if (event.trigger) for (const def of lookup.globals) add(def, undefined);
  return out;
}
