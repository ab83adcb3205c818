import { completeConditions } from "./complete.ts";
import { dampeningId } from "./ids.ts";
import type {
  Condition,
  Dampening,
  FullTrigger,
  GroupMemberInfo,
  StringMap,
  Trigger,
  TriggerMode,
  UnorphanMemberInfo,
} from "./model.ts";

/**
 * Group triggers are definitions whose conditions use dataId tokens; members are ordinary
 * triggers that evaluate, with each token replaced through the member's `dataIdMap`. These pure
 * functions derive and update members; storing them is the caller's business.
 */

/** A group operation that cannot be done with the given input (the HTTP layer answers 400). */
export class GroupDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GroupDefinitionError";
  }
}

export function isGroupTrigger(t: { type?: Trigger["type"] }): boolean {
  return t.type === "GROUP" || t.type === "DATA_DRIVEN_GROUP";
}

/** The tokens a condition set uses: every dataId, and data2Id of compare conditions. */
export function groupDataIdTokens(conditions: readonly Condition[]): Set<string> {
  const tokens = new Set<string>();
  for (const c of conditions) {
    tokens.add(c.dataId);
    if (c.type === "COMPARE") tokens.add(c.data2Id);
  }
  return tokens;
}

/** A member's map must name exactly the group's tokens, each mapped to a non-empty dataId. */
export function checkDataIdMap(groupConditions: readonly Condition[], dataIdMap: StringMap): void {
  const expected = groupDataIdTokens(groupConditions);
  const given = Object.keys(dataIdMap);
  const same = given.length === expected.size && given.every((k) => expected.has(k));
  if (!same) {
    throw new GroupDefinitionError(
      `dataIdMap must contain exactly the dataId tokens of the group conditions. Expected: [${[...expected].sort().join(", ")}], dataIdMap: [${given.sort().join(", ")}]`,
    );
  }
  for (const [token, dataId] of Object.entries(dataIdMap)) {
    if (dataId.trim().length === 0) throw new GroupDefinitionError(`dataIdMap maps token ${token} to an empty dataId`);
  }
}

function mapToken(dataIdMap: StringMap, token: string): string {
  const v = dataIdMap[token];
  if (v === undefined) throw new GroupDefinitionError(`no dataIdMap entry for dataId token [${token}]`);
  return v;
}

/**
 * One group condition made concrete for a member: tokens replaced by the member's dataIds, and
 * in external conditions every occurrence of the condition's token inside the expression too.
 * Set positions and ids are recomputed by `completeConditions`.
 */
export function memberConditionInput(groupCondition: Condition, dataIdMap: StringMap): Condition {
  const token = groupCondition.dataId;
  const dataId = mapToken(dataIdMap, token);
  const c = { ...groupCondition, dataId } as Condition;
  if (c.type === "COMPARE") c.data2Id = mapToken(dataIdMap, (groupCondition as typeof c).data2Id);
  if (c.type === "EXTERNAL" && c.expression) c.expression = c.expression.replaceAll(token, dataId);
  return c;
}

/** The member's conditions for one mode, or for all modes when `mode` is not given. */
export function memberConditions(member: Trigger, groupConditions: readonly Condition[], dataIdMap: StringMap, mode?: TriggerMode): Condition[] {
  const selected = mode ? groupConditions.filter((c) => c.triggerMode === mode) : groupConditions;
  return completeConditions(
    member.tenantId,
    member.id,
    selected.map((c) => memberConditionInput(c, dataIdMap)),
    mode,
  );
}

export function memberDampening(member: Pick<Trigger, "tenantId" | "id">, groupDampening: Dampening): Dampening {
  return {
    ...groupDampening,
    tenantId: member.tenantId,
    triggerId: member.id,
    dampeningId: dampeningId(member.tenantId, member.id, groupDampening.triggerMode),
  };
}

/** Fields a member always takes from its group. */
function groupManaged(group: Trigger): Partial<Trigger> {
  const t: Partial<Trigger> = {
    actions: group.actions,
    autoDisable: group.autoDisable,
    autoEnable: group.autoEnable,
    autoResolve: group.autoResolve,
    autoResolveAlerts: group.autoResolveAlerts,
    autoResolveMatch: group.autoResolveMatch,
    enabled: group.enabled,
    eventType: group.eventType,
    eventCategory: group.eventCategory,
    eventText: group.eventText,
    firingMatch: group.firingMatch,
    severity: group.severity,
    source: group.source,
    memberOf: group.id,
    type: "MEMBER",
  };
  for (const k of Object.keys(t) as (keyof Trigger)[]) if (t[k] === undefined) delete t[k];
  return t;
}

function merged(base: StringMap | undefined, over: StringMap | undefined): StringMap | undefined {
  if (!base && !over) return undefined;
  return { ...base, ...over };
}

/** A new member trigger of `group` (not yet with conditions or dampenings). */
export function memberTrigger(group: Trigger, info: Omit<GroupMemberInfo, "groupId">, newId: () => string = () => crypto.randomUUID()): Trigger {
  const id = info.memberId && info.memberId.length > 0 ? info.memberId : newId();
  const t: Trigger = {
    ...groupManaged(group),
    tenantId: group.tenantId,
    id,
    name: info.memberName && info.memberName.length > 0 ? info.memberName : group.name,
    description: info.memberDescription && info.memberDescription.length > 0 ? info.memberDescription : group.description,
    context: merged(group.context, info.memberContext),
    tags: merged(group.tags, info.memberTags),
    dataIdMap: { ...info.dataIdMap },
  } as Trigger;
  for (const k of Object.keys(t) as (keyof Trigger)[]) if (t[k] === undefined) delete t[k];
  return t;
}

/** The complete member of a group: trigger, concrete conditions of both modes, copied dampenings. */
export function deriveMember(group: FullTrigger, info: Omit<GroupMemberInfo, "groupId">, newId?: () => string): FullTrigger {
  if (!isGroupTrigger(group.trigger)) throw new GroupDefinitionError(`Trigger [${group.trigger.id}] is not a group trigger`);
  checkDataIdMap(group.conditions, info.dataIdMap);
  const trigger = memberTrigger(group.trigger, info, newId);
  const byMode = (m: TriggerMode) => memberConditions(trigger, group.conditions, info.dataIdMap, m);
  return {
    trigger,
    conditions: [...byMode("FIRING"), ...byMode("AUTORESOLVE")],
    dampenings: group.dampenings.map((d) => memberDampening(trigger, d)),
  };
}

/**
 * A group trigger's update carried to an existing non-orphan member: managed fields are
 * overwritten; group context and tags are added without replacing the member's own keys.
 */
export function applyGroupUpdate(group: Trigger, member: Trigger): Trigger {
  const addMissing = (own: StringMap | undefined, fromGroup: StringMap | undefined) => {
    if (!fromGroup || Object.keys(fromGroup).length === 0) return own;
    return { ...fromGroup, ...own };
  };
  const t = {
    ...member,
    ...groupManaged(group),
    context: addMissing(member.context, group.context),
    tags: addMissing(member.tags, group.tags),
  } as Trigger;
  for (const k of Object.keys(t) as (keyof Trigger)[]) if (t[k] === undefined) delete t[k];
  return t;
}

export interface MemberConditionsUpdate {
  /** The member with its dataIdMap updated to the mappings used. */
  trigger: Trigger;
  /** The member's new conditions of the mode. */
  conditions: Condition[];
}

/**
 * New group conditions for one mode, distributed to the non-orphan members. Mappings not given
 * in `dataIdMemberMap` (token → member id → dataId) are taken from each member's stored
 * dataIdMap; every token of the new conditions must end up mapped for every member.
 */
export function distributeGroupConditions(
  mode: TriggerMode,
  groupConditions: readonly Condition[],
  members: readonly Trigger[],
  dataIdMemberMap: Readonly<Record<string, StringMap>> = {},
): MemberConditionsUpdate[] {
  const tokens = groupDataIdTokens(groupConditions);
  return members.map((member) => {
    const map: StringMap = { ...member.dataIdMap };
    for (const [token, perMember] of Object.entries(dataIdMemberMap)) {
      const v = perMember[member.id];
      if (v !== undefined) map[token] = v;
    }
    for (const token of tokens) {
      const v = map[token];
      if (v === undefined || v.trim().length === 0) {
        throw new GroupDefinitionError(`Missing dataIdMap entry for dataId token [${token}] of member [${member.id}]`);
      }
    }
    const trigger: Trigger = { ...member, dataIdMap: map };
    const conditions = memberConditions(
      trigger,
      groupConditions.map((c) => ({ ...c, triggerMode: mode })),
      map,
      mode,
    );
    return { trigger, conditions };
  });
}

/** A member that stops following its group; it keeps its own definition. */
export function orphanMember(member: Trigger): Trigger {
  if (member.type !== "MEMBER") throw new GroupDefinitionError(`Trigger [${member.id}] is not a member trigger`);
  return { ...member, type: "ORPHAN" };
}

/** An orphan made a member again: rebuilt from the group, keeping its id, name and description. */
export function unorphanMember(group: FullTrigger, orphan: Trigger, info: UnorphanMemberInfo, newId?: () => string): FullTrigger {
  if (orphan.type !== "ORPHAN") throw new GroupDefinitionError(`Trigger [${orphan.id}] is not an orphan`);
  if (orphan.memberOf !== group.trigger.id) throw new GroupDefinitionError(`Trigger [${orphan.id}] is not a member of [${group.trigger.id}]`);
  return deriveMember(
    group,
    {
      memberId: orphan.id,
      memberName: orphan.name,
      memberDescription: orphan.description,
      memberContext: info.memberContext,
      memberTags: info.memberTags,
      dataIdMap: info.dataIdMap,
    },
    newId,
  );
}

/** A member kept when its group is deleted becomes a standalone trigger. */
export function detachMember(member: Trigger): Trigger {
  const { memberOf: _memberOf, ...rest } = member;
  return { ...rest, type: "STANDARD" };
}

/** The id of the member a data-driven group creates for data from `source`. */
export function dataDrivenMemberId(groupId: string, source: string): string {
  return `${groupId}_${source}`;
}

/**
 * The member a DATA_DRIVEN_GROUP creates when data arrives from a source it has no member for
 * (upstream's data-driven groups): named like the group, evaluating only that source's data
 * (`source`, also added as a tag), with the group's own dataIds (the source tells the members
 * apart, not the dataIds), the group's context, tags, conditions and dampenings.
 */
export function dataDrivenMember(group: FullTrigger, source: string): FullTrigger {
  if (group.trigger.type !== "DATA_DRIVEN_GROUP") throw new GroupDefinitionError(`Trigger [${group.trigger.id}] is not a data-driven group trigger`);
  if (source.length === 0) throw new GroupDefinitionError("A data-driven member needs a data source");
  const dataIdMap: StringMap = {};
  for (const token of groupDataIdTokens(group.conditions)) dataIdMap[token] = token;
  const member = deriveMember(group, { memberId: dataDrivenMemberId(group.trigger.id, source), dataIdMap });
  return { ...member, trigger: { ...member.trigger, source, tags: { ...member.trigger.tags, source } } };
}
