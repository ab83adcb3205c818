import { type ActionDefinition, type FullTrigger, SOURCE_NONE } from "../../src/alerts/model.ts";
import { announceDefinitions } from "./announce.ts";
import { unknownProperties } from "../../src/alerts/actions/plugin.ts";
import { checkTimeConstraint, TimeConstraintError } from "../../src/alerts/actions/time-constraint.ts";
import type { AlertingContext } from "./context.ts";
import { InvalidRequestError, NotFoundError } from "./errors.ts";
import { commitTriggers } from "./trigger-writes.ts";

/** Action definitions of a tenant, checked against the plugin they name. */
export class ActionDefinitions {
  constructor(private readonly ctx: AlertingContext) {}

  plugins(): string[] {
    return this.ctx.plugins.names();
  }

  /** The property names to fill for a plugin (GET /plugins/{plugin}). */
  pluginProperties(name: string): string[] {
    const p = this.ctx.plugins.get(name);
    if (!p) throw new NotFoundError(`actionPlugin: ${name} not found`);
    return [...p.properties];
  }

  /** Plugin → action ids (GET /actions). */
  async byPlugin(tenantId: string): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const d of await this.ctx.store.actionDefinitions(tenantId)) (out[d.actionPlugin] ??= []).push(d.actionId);
    return out;
  }

  async ids(tenantId: string, plugin: string): Promise<string[]> {
    return (await this.ctx.store.actionDefinitions(tenantId)).filter((d) => d.actionPlugin === plugin).map((d) => d.actionId);
  }

  async get(tenantId: string, plugin: string, actionId: string): Promise<ActionDefinition> {
    const d = await this.ctx.store.actionDefinition(tenantId, plugin, actionId);
    if (!d) throw new NotFoundError(`Not action found for actionPlugin: ${plugin} and actionId: ${actionId}`);
    return d;
  }

  /** Throws InvalidRequestError unless the plugin is deployed and reads every property given. */
  check(def: ActionDefinition): void {
    const plugin = this.ctx.plugins.get(def.actionPlugin);
    if (!plugin) throw new InvalidRequestError(`Plugin: ${def.actionPlugin} is not deployed`);
    const unknown = unknownProperties(plugin, def.properties);
    if (unknown.length > 0) throw new InvalidRequestError(`Property: ${unknown.join(", ")} is not valid on plugin: ${def.actionPlugin}`);
    const problems = plugin.check(def.properties);
    if (problems.length > 0) throw new InvalidRequestError(`Invalid properties for plugin ${def.actionPlugin}: ${problems.join("; ")}`);
    if (def.calendar) {
      try {
        checkTimeConstraint(def.calendar);
      } catch (e) {
        if (e instanceof TimeConstraintError) throw new InvalidRequestError(`calendar: ${e.message}`);
        throw e;
      }
    }
  }

  create(tenantId: string, input: ActionDefinition): Promise<ActionDefinition> {
    const def = withDefaults(input, tenantId);
    this.check(def);
    return this.ctx.serial.run(async () => {
      if (await this.ctx.store.actionDefinition(tenantId, def.actionPlugin, def.actionId)) {
        throw new InvalidRequestError(`Existing ActionDefinition: ${def.actionPlugin}/${def.actionId}`);
      }
      await this.ctx.store.putActionDefinitions([def]);
      await this.announceAgentAction(tenantId, def);
      return def;
    });
  }

  update(tenantId: string, input: ActionDefinition): Promise<ActionDefinition> {
    const def = withDefaults(input, tenantId);
    this.check(def);
    return this.ctx.serial.run(async () => {
      const before = await this.ctx.store.actionDefinition(tenantId, def.actionPlugin, def.actionId);
      if (!before) throw new NotFoundError(`ActionDefinition: ${def.actionPlugin}/${def.actionId} not found for update`);
      await this.ctx.store.putActionDefinitions([def]);
      await this.announceAgentAction(tenantId, def, before.global);
      return def;
    });
  }

  /** Removes the definition and every trigger's link to it, so no trigger names a missing action. */
  remove(tenantId: string, plugin: string, actionId: string): Promise<ActionDefinition> {
    return this.ctx.serial.run(async () => {
      const def = await this.ctx.store.actionDefinition(tenantId, plugin, actionId);
      if (!def) throw new NotFoundError(`ActionPlugin: ${plugin} ActionId: ${actionId} not found for delete`);
      await this.ctx.store.deleteActionDefinition(tenantId, plugin, actionId);
      const linked = (f: FullTrigger) => (f.trigger.actions ?? []).some((a) => a.actionPlugin === plugin && a.actionId === actionId);
      const put = (await this.ctx.store.triggers(tenantId)).filter(linked).map((f) => ({
        ...f,
        trigger: { ...f.trigger, actions: f.trigger.actions!.filter((a) => !(a.actionPlugin === plugin && a.actionId === actionId)) },
      }));
      if (put.length > 0) await commitTriggers(this.ctx, { put });
      else await this.announceAgentAction(tenantId, def);
      return def;
    });
  }

  /**
   * Definitions of agent plugins travel with the triggers pushed to agents: the triggers that
   * link one (all local triggers for a global one) are announced, so their sets are pushed again.
   */
  private async announceAgentAction(tenantId: string, def: ActionDefinition, wasGlobal = false): Promise<void> {
    if (!this.ctx.plugins.get(def.actionPlugin)?.runsOnAgent) return;
    const global = def.global === true || wasGlobal;
    const links = (f: FullTrigger) => (f.trigger.actions ?? []).some((a) => a.actionPlugin === def.actionPlugin && a.actionId === def.actionId);
    const ids = (await this.ctx.store.triggers(tenantId))
      .filter((f) => (global ? f.trigger.source !== undefined && f.trigger.source !== SOURCE_NONE : links(f)))
      .map((f) => f.trigger.id);
    announceDefinitions(this.ctx, tenantId, ids);
  }
}

/** The tenant, and `global` as upstream always writes it (false unless set). */
function withDefaults(input: ActionDefinition, tenantId: string): ActionDefinition {
  return { ...input, tenantId, global: input.global ?? false };
}
