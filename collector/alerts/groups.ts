import { completeConditions, completeDampening, completeTrigger } from "../../src/alerts/complete.ts";
import {
  applyGroupUpdate,
  deriveMember,
  detachMember,
  distributeGroupConditions,
  memberDampening,
  orphanMember,
  unorphanMember,
} from "../../src/alerts/groups.ts";
import type {
  Condition,
  Dampening,
  FullTrigger,
  GroupMemberInfo,
  StringMap,
  Trigger,
  TriggerMode,
  UnorphanMemberInfo,
} from "../../src/alerts/model.ts";
import type {
  ConditionInput,
  DampeningInput,
  FullTriggerInput,
  TriggerInput,
} from "../../src/alerts/schemas.ts";
import type { AlertingContext } from "./context.ts";
import { InvalidRequestError, NotFoundError } from "./errors.ts";
import { checkTriggerActions, commitTriggers, normalizeTrigger, requireGroup, requireNewId, requireSameType, requireTrigger } from "./trigger-writes.ts";

const MODES: TriggerMode[] = ["FIRING", "AUTORESOLVE"];

export interface GroupConditionsInput {
  conditions: ConditionInput[];
  dataIdMemberMap?: Record<string, StringMap>;
}

/**
 * Group triggers and their members. A group is a definition whose conditions use dataId tokens;
 * every change to it is carried to the members that still follow it (not to orphans).
 */
export class GroupDefinitions {
  constructor(private readonly ctx: AlertingContext) {}

  private async group(tenantId: string, groupId: string): Promise<FullTrigger> {
    const g = await requireTrigger(this.ctx, tenantId, groupId);
    requireGroup(g.trigger);
    return g;
  }

  private async following(tenantId: string, groupId: string): Promise<FullTrigger[]> {
    return (await this.ctx.store.members(tenantId, groupId)).filter((m) => m.trigger.type === "MEMBER");
  }

  /** POST /triggers/groups: a GROUP (or DATA_DRIVEN_GROUP) trigger without conditions. */
  create(tenantId: string, input: TriggerInput): Promise<Trigger> {
    return this.ctx.serial.run(async () => {
      const type = input.type === "DATA_DRIVEN_GROUP" ? "DATA_DRIVEN_GROUP" : "GROUP";
      const trigger = normalizeTrigger({ ...completeTrigger(input, tenantId, this.ctx.newId), type });
      await requireNewId(this.ctx, tenantId, trigger.id);
      await checkTriggerActions(this.ctx, trigger);
      await commitTriggers(this.ctx, { put: [{ trigger, conditions: [], dampenings: [] }] });
      return trigger;
    });
  }

  private updatedGroup(existing: Trigger, input: TriggerInput): Trigger {
    return normalizeTrigger({ ...completeTrigger({ ...input, id: existing.id }, existing.tenantId), type: existing.type });
  }

  /** PUT /triggers/groups/{groupId}: the group and every following member take the change. */
  update(tenantId: string, groupId: string, input: TriggerInput): Promise<Trigger> {
    return this.ctx.serial.run(async () => {
      const g = await this.group(tenantId, groupId);
      const trigger = this.updatedGroup(g.trigger, input);
      await checkTriggerActions(this.ctx, trigger);
      const members = (await this.following(tenantId, groupId)).map((m) => ({ ...m, trigger: applyGroupUpdate(trigger, m.trigger) }));
      await commitTriggers(this.ctx, { put: [{ ...g, trigger }, ...members] });
      return trigger;
    });
  }

  /** A group replaced whole (PUT /triggers/trigger/{groupId}): definition, conditions, dampenings. */
  replace(tenantId: string, groupId: string, input: FullTriggerInput): Promise<FullTrigger> {
    return this.ctx.serial.run(async () => {
      const g = await this.group(tenantId, groupId);
      requireSameType(g.trigger, input.trigger);
      const trigger = this.updatedGroup(g.trigger, input.trigger);
      await checkTriggerActions(this.ctx, trigger);
      const group: FullTrigger = {
        trigger,
        conditions: completeConditions(tenantId, groupId, input.conditions),
        dampenings: input.dampenings.map((d) => completeDampening(tenantId, groupId, d)),
      };
      const following = await this.following(tenantId, groupId);
      if (trigger.type === "DATA_DRIVEN_GROUP") {
        await commitTriggers(this.ctx, { put: [group], remove: following.map((m) => m.trigger) });
        return group;
      }
      let members = following.map((m) => ({ ...m, trigger: applyGroupUpdate(trigger, m.trigger) }));
      for (const mode of MODES) members = this.distribute(group, mode, members, {});
      members = members.map((m) => ({ ...m, dampenings: group.dampenings.map((d) => memberDampening(m.trigger, d)) }));
      await commitTriggers(this.ctx, { put: [group, ...members] });
      return group;
    });
  }

  /** The group's conditions of `mode` given to each member, through its dataIdMap and the extra mappings. */
  private distribute(group: FullTrigger, mode: TriggerMode, members: FullTrigger[], dataIdMemberMap: Record<string, StringMap>): FullTrigger[] {
    const ofMode = group.conditions.filter((c) => c.triggerMode === mode);
    const updates = distributeGroupConditions(
      mode,
      ofMode,
      members.map((m) => m.trigger),
      dataIdMemberMap,
    );
    return members.map((m, i) => ({
      ...m,
      trigger: updates[i]!.trigger,
      conditions: [...m.conditions.filter((c) => c.triggerMode !== mode), ...updates[i]!.conditions],
    }));
  }

  /** DELETE /triggers/groups/{groupId}: members are removed, or kept as standalone triggers. */
  remove(tenantId: string, groupId: string, keepNonOrphans: boolean, keepOrphans: boolean): Promise<void> {
    return this.ctx.serial.run(async () => {
      const g = await this.group(tenantId, groupId);
      const put: FullTrigger[] = [];
      const remove: Trigger[] = [g.trigger];
      for (const m of await this.ctx.store.members(tenantId, groupId)) {
        const keep = m.trigger.type === "ORPHAN" ? keepOrphans : keepNonOrphans;
        if (keep) put.push({ ...m, trigger: detachMember(m.trigger) });
        else remove.push(m.trigger);
      }
      await commitTriggers(this.ctx, { put, remove });
    });
  }

  /** PUT /triggers/groups/enabled: the groups and the members that follow them. */
  setEnabled(tenantId: string, groupIds: readonly string[], enabled: boolean): Promise<void> {
    return this.ctx.serial.run(async () => {
      const put: FullTrigger[] = [];
      for (const id of groupIds) {
        const g = await this.group(tenantId, id);
        put.push({ ...g, trigger: { ...g.trigger, enabled } });
        for (const m of await this.following(tenantId, id)) {
          if (m.trigger.enabled !== enabled) put.push({ ...m, trigger: { ...m.trigger, enabled } });
        }
      }
      await commitTriggers(this.ctx, { put });
    });
  }

  // ------------------------------------------------------------ members

  addMember(tenantId: string, info: GroupMemberInfo): Promise<Trigger> {
    return this.ctx.serial.run(async () => {
      const g = await this.group(tenantId, info.groupId);
      if (info.memberId) await requireNewId(this.ctx, tenantId, info.memberId);
      const member = deriveMember(g, info, this.ctx.newId);
      await commitTriggers(this.ctx, { put: [member] });
      return member.trigger;
    });
  }

  /** An unknown group has no members (upstream answers an empty list). */
  async members(tenantId: string, groupId: string, includeOrphans: boolean): Promise<Trigger[]> {
    return (await this.ctx.store.members(tenantId, groupId)).map((m) => m.trigger).filter((t) => includeOrphans || t.type === "MEMBER");
  }

  private async member(tenantId: string, memberId: string): Promise<FullTrigger> {
    const m = await requireTrigger(this.ctx, tenantId, memberId);
    if (m.trigger.type !== "MEMBER" && m.trigger.type !== "ORPHAN") {
      throw new InvalidRequestError(`Trigger is not a member trigger: [${tenantId}/${memberId}]`);
    }
    return m;
  }

  orphan(tenantId: string, memberId: string): Promise<Trigger> {
    return this.ctx.serial.run(async () => {
      const m = await this.member(tenantId, memberId);
      if (m.trigger.type === "ORPHAN") throw new InvalidRequestError(`Trigger is already an orphan: [${tenantId}/${memberId}]`);
      const trigger = orphanMember(m.trigger);
      await commitTriggers(this.ctx, { put: [{ ...m, trigger }] });
      return trigger;
    });
  }

  unorphan(tenantId: string, memberId: string, info: UnorphanMemberInfo): Promise<Trigger> {
    return this.ctx.serial.run(async () => {
      const m = await this.member(tenantId, memberId);
      if (m.trigger.type !== "ORPHAN") throw new InvalidRequestError(`Trigger is not an orphan: [${tenantId}/${memberId}]`);
      const g = await this.ctx.store.trigger(tenantId, m.trigger.memberOf ?? "");
      if (!g) throw new NotFoundError(`Group trigger ${m.trigger.memberOf} of member ${memberId} not found`);
      const member = unorphanMember(g, m.trigger, info, this.ctx.newId);
      await commitTriggers(this.ctx, { put: [member] });
      return member.trigger;
    });
  }

  // ------------------------------------------------------------ conditions and dampenings

  /**
   * PUT /triggers/groups/{groupId}/conditions[/{mode}]: answers the group's conditions of the
   * mode(s) set. The members of a data-driven group are removed instead (as upstream): data from
   * their sources creates them again with the new conditions.
   */
  setConditions(tenantId: string, groupId: string, input: GroupConditionsInput, mode?: TriggerMode): Promise<Condition[]> {
    return this.ctx.serial.run(async () => {
      const g = await this.group(tenantId, groupId);
      const modes = mode ? [mode] : MODES;
      const fresh = modes.flatMap((m) =>
        completeConditions(
          tenantId,
          groupId,
          input.conditions.filter((c) => c.triggerMode === m),
          m,
        ),
      );
      const group: FullTrigger = { ...g, conditions: [...g.conditions.filter((c) => !modes.includes(c.triggerMode)), ...fresh] };
      let members = await this.following(tenantId, groupId);
      if (g.trigger.type === "DATA_DRIVEN_GROUP") {
        await commitTriggers(this.ctx, { put: [group], remove: members.map((m) => m.trigger) });
        return fresh;
      }
      for (const m of modes) members = this.distribute(group, m, members, input.dataIdMemberMap ?? {});
      await commitTriggers(this.ctx, { put: [group, ...members] });
      return fresh;
    });
  }

  private async changeDampenings(
    tenantId: string,
    groupId: string,
    change: (current: Dampening[]) => { dampenings: Dampening[]; result: Dampening },
  ): Promise<Dampening> {
    return this.ctx.serial.run(async () => {
      const g = await this.group(tenantId, groupId);
      const { dampenings, result } = change(g.dampenings);
      const members = (await this.following(tenantId, groupId)).map((m) => ({
        ...m,
        dampenings: dampenings.map((d) => memberDampening(m.trigger, d)),
      }));
      await commitTriggers(this.ctx, { put: [{ ...g, dampenings }, ...members] });
      return result;
    });
  }

  createDampening(tenantId: string, groupId: string, input: DampeningInput): Promise<Dampening> {
    return this.changeDampenings(tenantId, groupId, (current) => {
      const d = completeDampening(tenantId, groupId, input);
      if (current.some((x) => x.triggerMode === d.triggerMode)) throw new InvalidRequestError(`Existing dampening for dampeningId: ${d.dampeningId}`);
      return { dampenings: [...current, d], result: d };
    });
  }

  updateDampening(tenantId: string, groupId: string, dampeningId: string, input: DampeningInput): Promise<Dampening> {
    return this.changeDampenings(tenantId, groupId, (current) => {
      const old = current.find((x) => x.dampeningId === dampeningId);
      if (!old) throw new NotFoundError(`No dampening found for dampeningId: ${dampeningId}`);
      if (input.triggerMode !== old.triggerMode) throw new InvalidRequestError(`The mode of dampening ${dampeningId} cannot change`);
      const d = completeDampening(tenantId, groupId, input);
      return { dampenings: current.map((x) => (x === old ? d : x)), result: d };
    });
  }

  deleteDampening(tenantId: string, groupId: string, dampeningId: string): Promise<Dampening> {
    return this.changeDampenings(tenantId, groupId, (current) => {
      const old = current.find((x) => x.dampeningId === dampeningId);
      if (!old) throw new NotFoundError(`Dampening not found for dampeningId: ${dampeningId}`);
      return { dampenings: current.filter((x) => x !== old), result: old };
    });
  }
}
