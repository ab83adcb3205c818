// Namespace import: under vitest on Bun the named export `z` of zod 4.6 comes through undefined.
import * as z from "zod";
import { jsonBoolean, jsonInteger, jsonNumber } from "../http/json-scalars.ts";
import { tryCompileUserPattern } from "../regex/user-pattern.ts";
import {
  ALERT_STATUSES,
  AVAILABILITY_OPERATORS,
  COMPARE_OPERATORS,
  type Condition,
  DAMPENING_TYPES,
  type Dampening,
  type Data,
  EVENT_TYPES,
  type Event,
  MATCHES,
  NELSON_RULES,
  RANGE_OPERATORS,
  RATE_DIRECTIONS,
  RATE_PERIODS,
  SEVERITIES,
  STRING_OPERATORS,
  TRIGGER_MODES,
  TRIGGER_TYPES,
  type Trigger,
  type TriggerMode,
} from "./model.ts";

/**
 * Validation of incoming alerting JSON, with the bounds of the spec, and helpers that fill the
 * fields the server owns (tenant, generated ids, condition set positions). The HTTP layer parses
 * with these schemas (failures become 400s), then calls the `complete*` helpers, which cannot fail.
 *
 * Leniency follows Hawkular's JSON reader: nulls read as absent, numbers may come as numeric
 * strings, condition `type` is case-insensitive; other enum values are upper case, exactly.
 */

// ---------------------------------------------------------------- building blocks

/** An optional field that also accepts null (read as absent). */
function opt<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v): z.output<T> | undefined => v ?? undefined);
}

const finiteNumber = jsonNumber;
const integer = jsonInteger;
const boolean = jsonBoolean;
const nonEmpty = z.string().trim().min(1, "must not be empty");
const mapValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

/** A map of string to string (context, dataIdMap): keys must not be empty. */
export const stringMapSchema = z.record(z.string(), mapValue).superRefine((m, ctx) => {
  for (const k of Object.keys(m)) if (k.trim().length === 0) ctx.addIssue({ code: "custom", message: "keys must not be empty" });
});

/** Tags: neither keys nor values may be empty (values are never null). */
export const tagsSchema = z.record(z.string(), mapValue).superRefine((m, ctx) => {
  for (const [k, v] of Object.entries(m)) {
    if (k.trim().length === 0) ctx.addIssue({ code: "custom", message: "tag names must not be empty" });
    else if (v.length === 0) ctx.addIssue({ code: "custom", message: `tag ${k} has an empty value` });
  }
});

const triggerModeSchema = z.enum(TRIGGER_MODES);

/** Trigger modes in paths are case-insensitive. */
export function parseTriggerMode(s: string): TriggerMode | undefined {
  const u = s.toUpperCase();
  return (TRIGGER_MODES as readonly string[]).includes(u) ? (u as TriggerMode) : undefined;
}

// ---------------------------------------------------------------- conditions

const conditionBase = {
  tenantId: opt(z.string()),
  triggerId: opt(z.string()),
  triggerMode: opt(triggerModeSchema).transform((m) => m ?? "FIRING"),
  dataId: nonEmpty,
  context: opt(stringMapSchema),
};

const compareOperator = z.enum(COMPARE_OPERATORS);

const availabilityCondition = z.object({
  ...conditionBase,
  type: z.literal("AVAILABILITY"),
  operator: z.enum(AVAILABILITY_OPERATORS),
});

const compareCondition = z.object({
  ...conditionBase,
  type: z.literal("COMPARE"),
  operator: compareOperator,
  data2Id: nonEmpty,
  data2Multiplier: opt(finiteNumber).transform((v) => v ?? 1),
});

const stringCondition = z
  .object({
    ...conditionBase,
    type: z.literal("STRING"),
    operator: z.enum(STRING_OPERATORS),
    pattern: z.string(),
    ignoreCase: opt(boolean).transform((v) => v ?? false),
  })
  .superRefine((c, ctx) => {
    if (c.operator !== "MATCH") return;
    const re = tryCompileUserPattern(c.pattern, { ignoreCase: c.ignoreCase });
    if (re instanceof Error) ctx.addIssue({ code: "custom", path: ["pattern"], message: re.message });
  });

const thresholdCondition = z.object({
  ...conditionBase,
  type: z.literal("THRESHOLD"),
  operator: compareOperator,
  threshold: finiteNumber,
});

const rangeOperator = z.enum(RANGE_OPERATORS);
const rangeCondition = z.object({
  ...conditionBase,
  type: z.literal("RANGE"),
  operatorLow: rangeOperator,
  operatorHigh: rangeOperator,
  thresholdLow: finiteNumber,
  thresholdHigh: finiteNumber,
  inRange: opt(boolean).transform((v) => v ?? false),
});

const externalCondition = z.object({
  ...conditionBase,
  type: z.literal("EXTERNAL"),
  alerterId: opt(z.string()),
  expression: opt(z.string()),
});

// An invalid event expression is accepted: it evaluates to false (spec).
const eventCondition = z.object({
  ...conditionBase,
  type: z.literal("EVENT"),
  expression: opt(z.string()),
});

const rateCondition = z.object({
  ...conditionBase,
  type: z.literal("RATE"),
  direction: opt(z.enum(RATE_DIRECTIONS)).transform((v) => v ?? "INCREASING"),
  period: opt(z.enum(RATE_PERIODS)).transform((v) => v ?? "MINUTE"),
  operator: compareOperator,
  // rates are absolute values, so a negative threshold could never mean anything
  threshold: finiteNumber.pipe(z.number().min(0, "must be at least 0 (rates are absolute values)")),
});

const missingCondition = z.object({
  ...conditionBase,
  type: z.literal("MISSING"),
  interval: integer.pipe(z.number().min(1, "must be at least 1 ms")),
});

const nelsonCondition = z.object({
  ...conditionBase,
  type: z.literal("NELSON"),
  activeRules: opt(z.array(z.enum(NELSON_RULES))).transform((r) =>
    r && r.length > 0 ? NELSON_RULES.filter((x) => r.includes(x)) : [...NELSON_RULES],
  ),
  sampleSize: opt(integer.pipe(z.number().min(1, "must be at least 1"))).transform((v) => v ?? 50),
});

const upperCaseType = (v: unknown) =>
  v !== null && typeof v === "object" && typeof (v as { type?: unknown }).type === "string"
    ? { ...v, type: (v as { type: string }).type.toUpperCase() }
    : v;

/** One incoming condition. Read-only fields (ids, set size and index, displayString) are ignored. */
export const conditionSchema = z.preprocess(
  upperCaseType,
  z.discriminatedUnion("type", [
    availabilityCondition,
    compareCondition,
    stringCondition,
    thresholdCondition,
    rangeCondition,
    externalCondition,
    eventCondition,
    rateCondition,
    missingCondition,
    nelsonCondition,
  ]),
);
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A condition before the server fills tenant, trigger, set positions, id and display. */
export type ConditionInput = DistributiveOmit<
  Condition,
  "tenantId" | "triggerId" | "conditionSetSize" | "conditionSetIndex" | "conditionId" | "displayString"
> & { tenantId?: string; triggerId?: string; displayString?: string };

export const conditionsSchema = z.array(conditionSchema);

// ---------------------------------------------------------------- dampening

/**
 * One incoming dampening, cleaned to the settings its type uses (Hawkular's factories). Fields
 * left out get Hawkular's defaults (type STRICT, evalTrueSetting 1, evalTotalSetting 1): its
 * clients send dampenings with only a type and a mode. The spec's bounds hold for the settings
 * sent; a RELAXED_COUNT whose evalTotalSetting was left out keeps the default 1 (it then acts as
 * STRICT). A time setting has no usable default: the time types need one.
 */
export const dampeningSchema = z
  .object({
    tenantId: opt(z.string()),
    triggerId: opt(z.string()),
    triggerMode: opt(triggerModeSchema).transform((m) => m ?? "FIRING"),
    type: opt(z.enum(DAMPENING_TYPES)).transform((t) => t ?? "STRICT"),
    evalTrueSetting: opt(integer),
    evalTotalSetting: opt(integer),
    evalTimeSetting: opt(integer),
  })
  .superRefine((d, ctx) => {
    const bad = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    const needsTrue = d.type === "STRICT" || d.type === "RELAXED_COUNT" || d.type === "RELAXED_TIME";
    const needsTime = d.type === "RELAXED_TIME" || d.type === "STRICT_TIME" || d.type === "STRICT_TIMEOUT";
    const evalTrue = d.evalTrueSetting ?? 1;
    if (needsTrue && evalTrue < 1) bad("evalTrueSetting", `must be at least 1 for ${d.type}`);
    if (d.type === "RELAXED_COUNT" && d.evalTotalSetting !== undefined && d.evalTotalSetting <= evalTrue) {
      bad("evalTotalSetting", "must be greater than evalTrueSetting");
    }
    if (needsTime && (d.evalTimeSetting ?? 0) < 1) bad("evalTimeSetting", `must be greater than 0 ms for ${d.type}`);
  })
  .transform((d) => ({ ...d, evalTrueSetting: d.evalTrueSetting ?? 1, evalTotalSetting: d.evalTotalSetting ?? 1, evalTimeSetting: d.evalTimeSetting ?? 0 }))
  .transform((d) => {
    switch (d.type) {
      case "STRICT":
        return { ...d, evalTotalSetting: d.evalTrueSetting, evalTimeSetting: 0 };
      case "RELAXED_COUNT":
        return { ...d, evalTimeSetting: 0 };
      case "RELAXED_TIME":
        return { ...d, evalTotalSetting: 0 };
      default:
        return { ...d, evalTrueSetting: 0, evalTotalSetting: 0 };
    }
  });
/** A dampening before the server fills tenant, trigger and id. */
export type DampeningInput = Omit<Dampening, "tenantId" | "triggerId" | "dampeningId"> & { tenantId?: string; triggerId?: string };

// ---------------------------------------------------------------- triggers and actions

export const timeConstraintSchema = z.object({
  startTime: z.string(),
  endTime: z.string(),
  relative: opt(boolean),
  inRange: opt(boolean),
  timeZoneName: opt(z.string()),
});

const alertStatuses = z.array(z.enum(ALERT_STATUSES));

export const triggerActionSchema = z.object({
  tenantId: opt(z.string()),
  actionPlugin: nonEmpty,
  actionId: nonEmpty,
  states: opt(alertStatuses),
  calendar: opt(timeConstraintSchema),
});

export const actionDefinitionSchema = z.object({
  tenantId: opt(z.string()),
  actionPlugin: nonEmpty,
  actionId: nonEmpty,
  global: opt(boolean),
  properties: stringMapSchema,
  states: opt(alertStatuses),
  calendar: opt(timeConstraintSchema),
});

const flag = opt(boolean).transform((v) => v ?? false);
const matchSchema = opt(z.enum(MATCHES)).transform((v) => v ?? "ALL");

/** One incoming trigger; defaults are the spec's (note: autoResolveAlerts defaults to false). */
export const triggerSchema = z.object({
  tenantId: opt(z.string()),
  id: opt(z.string().trim()),
  name: opt(z.string()),
  description: opt(z.string()),
  /** Absent reads as STANDARD on create; an update keeps the stored type (and refuses another one). */
  type: opt(z.enum(TRIGGER_TYPES)),
  eventType: opt(z.enum(EVENT_TYPES)).transform((v) => v ?? "ALERT"),
  eventCategory: opt(z.string()),
  eventText: opt(z.string()),
  severity: opt(z.enum(SEVERITIES)).transform((v) => v ?? "MEDIUM"),
  context: opt(stringMapSchema),
  tags: opt(tagsSchema),
  actions: opt(z.array(triggerActionSchema)),
  autoDisable: flag,
  autoEnable: flag,
  autoResolve: flag,
  autoResolveAlerts: flag,
  autoResolveMatch: matchSchema,
  firingMatch: matchSchema,
  enabled: flag,
  dataIdMap: opt(stringMapSchema),
  memberOf: opt(z.string()),
  source: opt(z.string()),
});
/** A trigger before the server fills the tenant and, when absent, the id and type. */
export type TriggerInput = Omit<Trigger, "tenantId" | "id" | "type"> & { tenantId?: string; id?: string; type?: Trigger["type"] };

export const fullTriggerSchema = z
  .object({
    trigger: triggerSchema,
    dampenings: opt(z.array(dampeningSchema)).transform((v) => v ?? []),
    conditions: opt(conditionsSchema).transform((v) => v ?? []),
  })
  .superRefine((f, ctx) => {
    const seen = new Set<TriggerMode>();
    f.dampenings.forEach((d, i) => {
      if (seen.has(d.triggerMode)) {
        ctx.addIssue({ code: "custom", path: ["dampenings", i], message: `more than one dampening for mode ${d.triggerMode}` });
      }
      seen.add(d.triggerMode);
    });
  });
export interface FullTriggerInput {
  trigger: TriggerInput;
  dampenings: DampeningInput[];
  conditions: ConditionInput[];
}

// ---------------------------------------------------------------- groups

export const groupMemberInfoSchema = z.object({
  groupId: nonEmpty,
  memberId: opt(z.string().trim()),
  memberName: opt(z.string()),
  memberDescription: opt(z.string()),
  memberContext: opt(stringMapSchema),
  memberTags: opt(tagsSchema),
  dataIdMap: stringMapSchema,
});

export const groupConditionsInfoSchema = z.object({
  conditions: conditionsSchema,
  dataIdMemberMap: opt(z.record(z.string(), stringMapSchema)),
});

export const unorphanMemberInfoSchema = z.object({
  memberContext: opt(stringMapSchema),
  memberTags: opt(tagsSchema),
  dataIdMap: stringMapSchema,
});

// ---------------------------------------------------------------- data and events

const textValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

export const dataSchema = z.object({
  tenantId: opt(z.string()),
  source: opt(z.string()),
  id: nonEmpty,
  timestamp: opt(integer),
  value: textValue,
  context: opt(stringMapSchema),
});
export type DataInput = Omit<Data, "tenantId" | "timestamp"> & { tenantId?: string; timestamp?: number };
export const dataListSchema = z.array(dataSchema);

const eventFields = {
  tenantId: opt(z.string()),
  id: nonEmpty,
  ctime: opt(integer),
  dataSource: opt(z.string()),
  dataId: opt(z.string()),
  context: opt(stringMapSchema),
  tags: opt(tagsSchema),
};

/** An event created through POST /events: id, category and text are required (research §2.11). */
export const eventSchema = z.object({ ...eventFields, category: nonEmpty, text: nonEmpty });

/** An external event sent for evaluation only (POST /events/data). */
export const externalEventSchema = z.object({ ...eventFields, category: opt(z.string()), text: opt(z.string()) });
export type EventInput = Omit<Event, "eventType" | "tenantId" | "ctime" | "category" | "text"> & {
  tenantId?: string;
  ctime?: number;
  category?: string;
  text?: string;
};
