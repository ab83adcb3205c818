import { completeConditions, completeDampening, completeTrigger } from "../../src/alerts/complete.ts";
import { isGroupTrigger } from "../../src/alerts/groups.ts";
import type { Condition, Dampening, FullTrigger, Trigger, TriggerMode } from "../../src/alerts/model.ts";
import type {
  ConditionInput,
  DampeningInput,
  FullTriggerInput,
  TriggerInput,
} from "../../src/alerts/schemas.ts";
import { matchesTags, type TagQuery } from "../../src/tags/query/index.ts";
import type { AlertingContext } from "./context.ts";
import { InvalidRequestError, NotFoundError } from "./errors.ts";
import type { GroupDefinitions } from "./groups.ts";
import { type Page, type Pager, paginate } from "./paging.ts";
import {
  checkTriggerActions,
  commitTriggers,
  normalizeTrigger,
  requireNewId,
  requireSameType,
  requireSelfManaged,
  requireTrigger,
} from "./trigger-writes.ts";

export interface TriggerFilter {
  triggerIds?: string[];
  tagQueries?: TagQuery[];
}

const MODES: TriggerMode[] = ["FIRING", "AUTORESOLVE"];

/** Trigger definitions: standalone triggers, their conditions and dampenings, enablement. */
export class TriggerDefinitions {
  constructor(
    private readonly ctx: AlertingContext,
    private readonly groups: GroupDefinitions,
  ) {}

  async list(tenantId: string, filter: TriggerFilter, pager: Pager): Promise<Page<Trigger>> {
    const all = (await this.ctx.store.triggers(tenantId)).map((f) => f.trigger);
    const ids = filter.triggerIds && new Set(filter.triggerIds);
    const selected = all.filter((t) => (!ids || ids.has(t.id)) && (filter.tagQueries ?? []).every((q) => matchesTags(q, t.tags)));
    return paginate(selected, pager, [{ field: "id", ascending: true }]);
  }

  async get(tenantId: string, id: string): Promise<Trigger> {
    return (await requireTrigger(this.ctx, tenantId, id)).trigger;
  }

  getFull(tenantId: string, id: string): Promise<FullTrigger> {
    return requireTrigger(this.ctx, tenantId, id);
  }

  /** POST /triggers: always a STANDARD trigger, with no conditions yet. */
  create(tenantId: string, input: TriggerInput): Promise<Trigger> {
    return this.ctx.serial.run(async () => {
      const trigger = normalizeTrigger({ ...completeTrigger(input, tenantId, this.ctx.newId), type: "STANDARD" });
      await requireNewId(this.ctx, tenantId, trigger.id);
      await checkTriggerActions(this.ctx, trigger);
      await commitTriggers(this.ctx, { put: [{ trigger, conditions: [], dampenings: [] }] });
      return trigger;
    });
  }

  /** POST /triggers/trigger: a standalone or a group trigger with its conditions and dampenings. */
  createFull(tenantId: string, input: FullTriggerInput): Promise<FullTrigger> {
    const type = input.trigger.type;
    if (type === "MEMBER" || type === "ORPHAN") {
      return Promise.reject(new InvalidRequestError("Member triggers are created through POST /triggers/groups/members"));
    }
    return this.ctx.serial.run(async () => {
      const trigger = normalizeTrigger(completeTrigger(input.trigger, tenantId, this.ctx.newId));
      await requireNewId(this.ctx, tenantId, trigger.id);
      await checkTriggerActions(this.ctx, trigger);
      const full = this.assemble(trigger, input.conditions, input.dampenings);
      await commitTriggers(this.ctx, { put: [full] });
      return full;
    });
  }

  private assemble(trigger: Trigger, conditions: readonly ConditionInput[], dampenings: readonly DampeningInput[]): FullTrigger {
    return {
      trigger,
      conditions: completeConditions(trigger.tenantId, trigger.id, conditions),
      dampenings: dampenings.map((d) => completeDampening(trigger.tenantId, trigger.id, d)),
    };
  }

  /** A standalone or orphan trigger's definition replaced; its type and group link cannot change here. */
  private edited(existing: Trigger, input: TriggerInput): Trigger {
    requireSameType(existing, input);
    if (isGroupTrigger(existing)) throw new InvalidRequestError(`Trigger [${existing.id}] is a group trigger; use /triggers/groups/${existing.id}`);
    if (existing.type === "MEMBER") throw new InvalidRequestError(`Trigger [${existing.id}] is a member trigger and must be updated via the group.`);
    if (existing.type === "ORPHAN" && input.memberOf !== undefined && input.memberOf !== existing.memberOf) {
      throw new InvalidRequestError("A member trigger can not change groups.");
    }
    const t = completeTrigger({ ...input, id: existing.id }, existing.tenantId);
    return normalizeTrigger({
      ...t,
      type: existing.type,
      ...(existing.type === "ORPHAN" ? { memberOf: existing.memberOf, dataIdMap: t.dataIdMap ?? existing.dataIdMap } : {}),
    });
  }

  update(tenantId: string, id: string, input: TriggerInput): Promise<Trigger> {
    return this.ctx.serial.run(async () => {
      const existing = await requireTrigger(this.ctx, tenantId, id);
      const trigger = this.edited(existing.trigger, input);
      await checkTriggerActions(this.ctx, trigger);
      await commitTriggers(this.ctx, { put: [{ ...existing, trigger }] });
      return trigger;
    });
  }

  /** PUT /triggers/trigger/{id}: everything replaced; a group carries the change to its members. */
  async updateFull(tenantId: string, id: string, input: FullTriggerInput): Promise<FullTrigger> {
    const existing = await requireTrigger(this.ctx, tenantId, id);
    if (isGroupTrigger(existing.trigger)) return this.groups.replace(tenantId, id, input);
    return this.ctx.serial.run(async () => {
      const current = await requireTrigger(this.ctx, tenantId, id);
      const trigger = this.edited(current.trigger, input.trigger);
      await checkTriggerActions(this.ctx, trigger);
      const full = this.assemble(trigger, input.conditions, input.dampenings);
      await commitTriggers(this.ctx, { put: [full] });
      return full;
    });
  }

  /** Standalone, member and orphan triggers; a group is removed through its own path. */
  remove(tenantId: string, id: string): Promise<void> {
    return this.ctx.serial.run(async () => {
      const existing = await requireTrigger(this.ctx, tenantId, id);
      if (isGroupTrigger(existing.trigger)) {
        throw new InvalidRequestError(`Trigger [${id}] is a group trigger; delete it with DELETE /triggers/groups/${id}`);
      }
      await commitTriggers(this.ctx, { remove: [existing.trigger] });
    });
  }

  /** PUT /triggers/enabled: all named triggers must exist and none may be a group. */
  setEnabled(tenantId: string, ids: readonly string[], enabled: boolean): Promise<void> {
    return this.ctx.serial.run(async () => {
      const changed: FullTrigger[] = [];
      for (const id of ids) {
        const full = await requireTrigger(this.ctx, tenantId, id);
        if (isGroupTrigger(full.trigger)) throw new InvalidRequestError(`Trigger [${id}] is a group trigger; use PUT /triggers/groups/enabled`);
        if (full.trigger.enabled !== enabled) changed.push({ ...full, trigger: { ...full.trigger, enabled } });
      }
      await commitTriggers(this.ctx, { put: changed });
    });
  }

  // ------------------------------------------------------------ conditions

  /** The spec lists no 404 here: an unknown trigger has no conditions (as upstream answers). */
  async conditions(tenantId: string, id: string): Promise<Condition[]> {
    return (await this.ctx.store.trigger(tenantId, id))?.conditions ?? [];
  }

  /**
   * Replaces the conditions of one mode, or of both when `mode` is absent; answers those of the
   * mode(s) set. On a group trigger this is the group's own path (upstream's clients use both):
   * the conditions are carried to the members.
   */
  async setConditions(tenantId: string, id: string, inputs: readonly ConditionInput[], mode?: TriggerMode): Promise<Condition[]> {
    const existing = await requireTrigger(this.ctx, tenantId, id);
    if (isGroupTrigger(existing.trigger)) return this.groups.setConditions(tenantId, id, { conditions: [...inputs] }, mode);
    return this.ctx.serial.run(async () => {
      const full = await requireTrigger(this.ctx, tenantId, id);
      requireSelfManaged(full.trigger);
      const kept = mode ? full.conditions.filter((c) => c.triggerMode !== mode) : [];
      const fresh = MODES.flatMap((m) =>
        mode && m !== mode
          ? []
          : completeConditions(
              tenantId,
              id,
              inputs.filter((c) => c.triggerMode === m),
              m,
            ),
      );
      await commitTriggers(this.ctx, { put: [{ ...full, conditions: [...fresh, ...kept] }] });
      return fresh;
    });
  }

  // ------------------------------------------------------------ dampenings

  /** Like conditions: an unknown trigger has none. */
  async dampenings(tenantId: string, id: string, mode?: TriggerMode): Promise<Dampening[]> {
    const all = (await this.ctx.store.trigger(tenantId, id))?.dampenings ?? [];
    return mode ? all.filter((d) => d.triggerMode === mode) : all;
  }

  async dampening(tenantId: string, id: string, dampeningId: string): Promise<Dampening> {
    const full = await requireTrigger(this.ctx, tenantId, id);
    const d = full.dampenings.find((x) => x.dampeningId === dampeningId);
    // Upstream's words, its missing space included.
    if (!d) throw new NotFoundError(`No dampening found for triggerId: ${id} and dampeningId:${dampeningId}`);
    return d;
  }

  createDampening(tenantId: string, id: string, input: DampeningInput): Promise<Dampening> {
    return this.ctx.serial.run(async () => {
      const full = await requireTrigger(this.ctx, tenantId, id);
      requireSelfManaged(full.trigger);
      const d = completeDampening(tenantId, id, input);
      if (full.dampenings.some((x) => x.triggerMode === d.triggerMode)) {
        throw new InvalidRequestError(`Existing dampening for dampeningId: ${d.dampeningId}`);
      }
      await commitTriggers(this.ctx, { put: [{ ...full, dampenings: [...full.dampenings, d] }] });
      return d;
    });
  }

  updateDampening(tenantId: string, id: string, dampeningId: string, input: DampeningInput): Promise<Dampening> {
    return this.ctx.serial.run(async () => {
      const full = await requireTrigger(this.ctx, tenantId, id);
      requireSelfManaged(full.trigger);
      const old = full.dampenings.find((x) => x.dampeningId === dampeningId);
      if (!old) throw new NotFoundError(`No dampening found for dampeningId: ${dampeningId}`);
      if (input.triggerMode !== old.triggerMode) throw new InvalidRequestError(`The mode of dampening ${dampeningId} cannot change`);
      const d = completeDampening(tenantId, id, input);
      await commitTriggers(this.ctx, { put: [{ ...full, dampenings: full.dampenings.map((x) => (x.dampeningId === dampeningId ? d : x)) }] });
      return d;
    });
  }

  deleteDampening(tenantId: string, id: string, dampeningId: string): Promise<Dampening> {
    return this.ctx.serial.run(async () => {
      const full = await requireTrigger(this.ctx, tenantId, id);
      requireSelfManaged(full.trigger);
      const old = full.dampenings.find((x) => x.dampeningId === dampeningId);
      if (!old) throw new NotFoundError(`Dampening not found for dampeningId: ${dampeningId}`);
      await commitTriggers(this.ctx, { put: [{ ...full, dampenings: full.dampenings.filter((x) => x !== old) }] });
      return old;
    });
  }
}
