import { isGroupTrigger } from "../../src/alerts/groups.ts";
import type { FullTrigger, Trigger } from "../../src/alerts/model.ts";
import { checkTimeConstraint, TimeConstraintError } from "../../src/alerts/actions/time-constraint.ts";
import { announceDefinitions } from "./announce.ts";
import type { AlertingContext } from "./context.ts";
import { InvalidRequestError, NotFoundError } from "./errors.ts";

/** Helpers every trigger operation shares. The writing ones run inside serial tasks. */

export async function requireTrigger(ctx: AlertingContext, tenantId: string, id: string): Promise<FullTrigger> {
  const full = await ctx.store.trigger(tenantId, id);
  if (!full) throw new NotFoundError(`triggerId: ${id} not found`);
  return full;
}

export async function requireNewId(ctx: AlertingContext, tenantId: string, id: string): Promise<void> {
  if (await ctx.store.trigger(tenantId, id)) throw new InvalidRequestError(`Trigger with ID [${id}] exists.`);
}

/** Operations on one trigger's own conditions and dampenings: not for groups, nor for members that follow one. */
export function requireSelfManaged(t: Trigger): void {
  if (isGroupTrigger(t)) throw new InvalidRequestError(`Trigger [${t.id}] is a group trigger; use the /triggers/groups paths.`);
  if (t.type === "MEMBER") throw new InvalidRequestError(`Trigger [${t.id}] is a member trigger and must be managed via the group.`);
}

/** A full update may state the trigger's type, but not change it (upstream: "It is not allowed to update trigger type"). */
export function requireSameType(existing: Trigger, input: { type?: Trigger["type"] }): void {
  if (input.type !== undefined && input.type !== existing.type) {
    throw new InvalidRequestError(`It is not allowed to update trigger type. Current type: [${existing.type}]`);
  }
}

export function requireGroup(t: Trigger): void {
  if (!isGroupTrigger(t)) throw new InvalidRequestError(`Trigger [${t.id}] is not a group trigger.`);
}

/** Every action a trigger links to must be a definition of the tenant, with a readable calendar. */
export async function checkTriggerActions(ctx: AlertingContext, t: Trigger): Promise<void> {
  for (const link of t.actions ?? []) {
    if (!ctx.plugins.get(link.actionPlugin)) throw new InvalidRequestError(`Plugin: ${link.actionPlugin} is not deployed`);
    if (!(await ctx.store.actionDefinition(t.tenantId, link.actionPlugin, link.actionId))) {
      throw new InvalidRequestError(`Action [${link.actionPlugin}/${link.actionId}] of trigger [${t.id}] does not exist`);
    }
    if (link.calendar) {
      try {
        checkTimeConstraint(link.calendar);
      } catch (e) {
        if (e instanceof TimeConstraintError) throw new InvalidRequestError(`Action [${link.actionPlugin}/${link.actionId}] calendar: ${e.message}`);
        throw e;
      }
    }
    link.tenantId = t.tenantId;
  }
}

/** A trigger as the server keeps it: group links only where the type has them. */
export function normalizeTrigger(t: Trigger): Trigger {
  const { tenantId, id, ...rest } = t;
  const out: Trigger = { tenantId, id, ...rest };
  if (out.type !== "MEMBER" && out.type !== "ORPHAN") {
    delete out.memberOf;
    delete out.dataIdMap;
  }
  return out;
}

export interface TriggerChangeSet {
  put?: FullTrigger[];
  remove?: Trigger[];
}

/**
 * Stores the changes in one transaction, then has the engine evaluate what was stored: members
 * and standalone triggers are (re)loaded, which puts them back in FIRING mode as the spec's
 * reload rule says; groups are definitions only and never evaluate.
 */
export async function commitTriggers(ctx: AlertingContext, changes: TriggerChangeSet): Promise<void> {
  await ctx.store.writeTriggers({ put: changes.put, remove: changes.remove?.map((t) => ({ tenantId: t.tenantId, id: t.id })) });
  const touched = new Map<string, string[]>();
  const note = (t: Trigger) => touched.set(t.tenantId, [...(touched.get(t.tenantId) ?? []), t.id]);
  for (const t of changes.remove ?? []) {
    ctx.engine.removeTrigger(t.tenantId, t.id);
    note(t);
  }
  for (const f of changes.put ?? []) {
    if (isGroupTrigger(f.trigger)) ctx.engine.removeTrigger(f.trigger.tenantId, f.trigger.id);
    else ctx.engine.loadTrigger(f);
    note(f.trigger);
  }
  for (const [tenant, ids] of touched) announceDefinitions(ctx, tenant, ids);
}
