import { completeFullTrigger } from "../../src/alerts/complete.ts";
import { deriveMember, isGroupTrigger } from "../../src/alerts/groups.ts";
import type { ActionDefinition, FullTrigger, GroupMemberInfo, Trigger } from "../../src/alerts/model.ts";
import type { FullTriggerInput } from "../../src/alerts/schemas.ts";
import type { ActionDefinitions } from "./action-definitions.ts";
import type { AlertingContext } from "./context.ts";
import { InvalidRequestError } from "./errors.ts";
import { commitTriggers, normalizeTrigger } from "./trigger-writes.ts";

export const IMPORT_STRATEGIES = ["DELETE", "ALL", "NEW", "OLD"] as const;
export type ImportStrategy = (typeof IMPORT_STRATEGIES)[number];

export interface DefinitionsInput {
  triggers: FullTriggerInput[];
  groupMembersInfo: GroupMemberInfo[];
  actions: ActionDefinition[];
}

export interface ExportedDefinitions {
  triggers: FullTrigger[];
  groupMembersInfo: GroupMemberInfo[];
  actions: ActionDefinition[];
}

/** Whether an item is imported: DELETE and ALL take everything, NEW only new items, OLD only existing ones. */
function takes(strategy: ImportStrategy, exists: boolean): boolean {
  return strategy === "NEW" ? !exists : strategy === "OLD" ? exists : true;
}

const actionKey = (plugin: string, id: string) => `${plugin}\u0000${id}`;

/** Export and import of a tenant's trigger and action definitions (GET /export, POST /import/{strategy}). */
export class DefinitionsTransfer {
  constructor(
    private readonly ctx: AlertingContext,
    private readonly actions: ActionDefinitions,
  ) {}

  /**
   * Every trigger, members included (as upstream's export lists them among `triggers`, with their
   * own conditions); `groupMembersInfo` is left empty, since the members come whole.
   */
  async export(tenantId: string): Promise<ExportedDefinitions> {
    return {
      triggers: await this.ctx.store.triggers(tenantId),
      groupMembersInfo: [],
      actions: await this.ctx.store.actionDefinitions(tenantId),
    };
  }

  /**
   * Plans the whole import first (every check passes or nothing is written), then writes it.
   * Answers what was imported.
   */
  import(tenantId: string, strategy: ImportStrategy, input: DefinitionsInput): Promise<ExportedDefinitions> {
    return this.ctx.serial.run(async () => {
      const existingTriggers = await this.ctx.store.triggers(tenantId);
      const existingDefs = await this.ctx.store.actionDefinitions(tenantId);
      const fresh = strategy === "DELETE";

      // actions first: triggers may link to them
      const defs = new Map<string, ActionDefinition>(fresh ? [] : existingDefs.map((d) => [actionKey(d.actionPlugin, d.actionId), d]));
      const importedDefs: ActionDefinition[] = [];
      for (const a of input.actions) {
        const def = { ...a, tenantId };
        const key = actionKey(def.actionPlugin, def.actionId);
        if (!takes(strategy, defs.has(key))) continue;
        this.actions.check(def);
        defs.set(key, def);
        importedDefs.push(def);
      }

      const triggers = new Map<string, FullTrigger>(fresh ? [] : existingTriggers.map((f) => [f.trigger.id, f]));
      const importedTriggers: FullTrigger[] = [];
      // groups before the triggers that may refer to them
      const ordered = [...input.triggers].sort((a, b) => Number(isGroupTrigger(b.trigger)) - Number(isGroupTrigger(a.trigger)));
      for (const t of ordered) {
        const completed = completeFullTrigger(t, tenantId, this.ctx.newId);
        const full = { ...completed, trigger: normalizeTrigger(completed.trigger) };
        if (!takes(strategy, triggers.has(full.trigger.id))) continue;
        this.checkLinks(full.trigger, defs);
        if (full.trigger.type === "MEMBER" || full.trigger.type === "ORPHAN") {
          const group = triggers.get(full.trigger.memberOf ?? "");
          if (!group || !isGroupTrigger(group.trigger)) {
            throw new InvalidRequestError(`Trigger [${full.trigger.id}] is a member of [${full.trigger.memberOf}], which is not a group trigger`);
          }
        }
        triggers.set(full.trigger.id, full);
        importedTriggers.push(full);
      }

      const importedInfo: GroupMemberInfo[] = [];
      const members: FullTrigger[] = [];
      for (const info of input.groupMembersInfo) {
        const exists = info.memberId !== undefined && triggers.has(info.memberId);
        if (!takes(strategy, exists)) continue;
        const group = triggers.get(info.groupId);
        if (!group || !isGroupTrigger(group.trigger)) throw new InvalidRequestError(`Group trigger [${info.groupId}] of a member does not exist`);
        const member = deriveMember(group, info, this.ctx.newId);
        triggers.set(member.trigger.id, member);
        members.push(member);
        importedInfo.push({ ...info, memberId: member.trigger.id });
      }

      if (fresh) {
        for (const d of existingDefs) await this.ctx.store.deleteActionDefinition(tenantId, d.actionPlugin, d.actionId);
      }
      await this.ctx.store.putActionDefinitions(importedDefs);
      await commitTriggers(this.ctx, {
        remove: fresh ? existingTriggers.map((f) => f.trigger) : [],
        put: [...importedTriggers, ...members],
      });
      return { triggers: importedTriggers, groupMembersInfo: importedInfo, actions: importedDefs };
    });
  }

  private checkLinks(t: Trigger, defs: Map<string, ActionDefinition>): void {
    for (const link of t.actions ?? []) {
      if (!defs.has(actionKey(link.actionPlugin, link.actionId))) {
        throw new InvalidRequestError(`Action [${link.actionPlugin}/${link.actionId}] of trigger [${t.id}] does not exist`);
      }
      link.tenantId = t.tenantId;
    }
  }
}
