import { conditionDisplay } from "./conditions/display.ts";
import { conditionId, dampeningId } from "./ids.ts";
import { type Condition, type Dampening, type Data, type Event, type FullTrigger, SOURCE_NONE, type Trigger, type TriggerMode } from "./model.ts";
import type { ConditionInput, DampeningInput, DataInput, EventInput, FullTriggerInput, TriggerInput } from "./schemas.ts";

/**
 * The fields the server owns, filled in after validation (src/alerts/schemas.ts): tenant,
 * generated ids, condition set positions, defaults. These cannot fail.
 */
export function completeTrigger(input: TriggerInput, tenantId: string, newId: () => string = () => crypto.randomUUID()): Trigger {
  const { id, ...rest } = input;
  return dropUndefined({
    ...rest,
    // Upstream's defaults, which its clients see on every trigger: a name, and the source of data without one.
    name: rest.name ?? DEFAULT_TRIGGER_NAME,
    source: rest.source && rest.source.length > 0 ? rest.source : SOURCE_NONE,
    type: rest.type ?? "STANDARD",
    tenantId,
    id: id && id.length > 0 ? id : newId(),
  });
}

/** The name of a trigger created without one (Hawkular Alerting's Trigger default). */
export const DEFAULT_TRIGGER_NAME = "defaultName";

/**
 * Conditions as stored: tenant, trigger, and per mode the set size, the 1-based index in list
 * order, the composed id and the display string. With `mode`, every condition is of that mode.
 */
export function completeConditions(tenantId: string, triggerId: string, inputs: readonly ConditionInput[], mode?: TriggerMode): Condition[] {
  const withMode = inputs.map((c) => (mode ? { ...c, triggerMode: mode } : c));
  const size: Record<TriggerMode, number> = { FIRING: 0, AUTORESOLVE: 0 };
  for (const c of withMode) size[c.triggerMode]++;
  const index: Record<TriggerMode, number> = { FIRING: 0, AUTORESOLVE: 0 };
  return withMode.map((c) => {
    const m = c.triggerMode;
    const setIndex = ++index[m];
    const out = dropUndefined({
      ...c,
      tenantId,
      triggerId,
      conditionSetSize: size[m],
      conditionSetIndex: setIndex,
      conditionId: conditionId(tenantId, triggerId, m, size[m], setIndex),
    }) as Condition;
    out.displayString = conditionDisplay(out);
    return out;
  });
}

export function completeDampening(tenantId: string, triggerId: string, input: DampeningInput): Dampening {
  return {
    tenantId,
    triggerId,
    triggerMode: input.triggerMode,
    type: input.type,
    evalTrueSetting: input.evalTrueSetting,
    evalTotalSetting: input.evalTotalSetting,
    evalTimeSetting: input.evalTimeSetting,
    dampeningId: dampeningId(tenantId, triggerId, input.triggerMode),
  };
}

export function completeFullTrigger(input: FullTriggerInput, tenantId: string, newId?: () => string): FullTrigger {
  const trigger = completeTrigger(input.trigger, tenantId, newId);
  return {
    trigger,
    dampenings: input.dampenings.map((d) => completeDampening(tenantId, trigger.id, d)),
    conditions: completeConditions(tenantId, trigger.id, input.conditions),
  };
}

export function completeData(input: DataInput, tenantId: string, now: number): Data {
  return dropUndefined({ ...input, tenantId, timestamp: input.timestamp ?? now });
}

/** An API event: system-set eventType, tenant from the header, ctime now when absent. */
export function completeEvent(input: EventInput, tenantId: string, now: number): Event {
  return dropUndefined({
    ...input,
    eventType: "EVENT" as const,
    tenantId,
    // Upstream's default: an event without a source has the source of data without one.
    dataSource: input.dataSource && input.dataSource.length > 0 ? input.dataSource : SOURCE_NONE,
    ctime: input.ctime ?? now,
    category: input.category ?? "",
    text: input.text ?? "",
  });
}

/** Optional fields are absent rather than undefined, so JSON and deep equality stay clean. */
function dropUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
