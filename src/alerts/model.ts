/**
 * The vocabulary of the alerting interface, shared by the collector and the agent.
 * JSON field names are exactly those of the spec (and of Hawkular Alerts, which it describes).
 */
import type {
  AvailabilityCondition,
  CompareCondition,
  Condition,
  EventCondition,
  ExternalCondition,
  MissingCondition,
  NelsonCondition,
  NelsonRule,
  RateCondition,
  StringCondition,
  ThresholdCondition,
  ThresholdRangeCondition,
} from "./conditions-model.ts";
import type { AlertStatus, EventType, Match, Severity, StringMap, TriggerMode, TriggerType } from "./vocabulary.ts";

export * from "./conditions-model.ts";
export * from "./vocabulary.ts";

// ---------------------------------------------------------------- actions

/** Restricts when an action runs; fields as Hawkular's TimeConstraint (the spec does not show them). */
export interface TimeConstraint {
  startTime: string;
  endTime: string;
  relative?: boolean;
  inRange?: boolean;
  timeZoneName?: string;
}

/** A trigger's link to an action definition; its constraints override the definition's. */
export interface TriggerAction {
  tenantId?: string;
  actionPlugin: string;
  actionId: string;
  states?: AlertStatus[];
  calendar?: TimeConstraint;
}

export interface ActionDefinition {
  tenantId?: string;
  actionPlugin: string;
  actionId: string;
  global?: boolean;
  properties: StringMap;
  states?: AlertStatus[];
  calendar?: TimeConstraint;
}

/** Results an action goes through: queued, then done or failed by its plugin. */
export const ACTION_RESULTS = ["WAITING", "PROCESSED", "FAILED"] as const;
export type ActionResult = (typeof ACTION_RESULTS)[number];

/** One run of an action for an alert or event (the action history). */
export interface Action extends ActionDefinition {
  eventId: string;
  /** When the action was sent to its plugin, ms. */
  ctime: number;
  /** The alert or event, omitted when thin. */
  event?: Event;
  result: string;
  /**
   * Actions an agent ran (plugin `agent`, docs/local-triggers.md): what came of it in one line
   * (exit status, HTTP status, why it was refused or not run).
   */
  resultMessage?: string;
  /** Their output: a command's standard output and error, truncated. */
  output?: string;
  /** When it ended, ms (agent clock; `ctime` is when it started). */
  endTime?: number;
}

// ---------------------------------------------------------------- triggers

export interface Trigger {
  tenantId: string;
  id: string;
  name?: string;
  description?: string;
  type: TriggerType;
  eventType: EventType;
  eventCategory?: string;
  eventText?: string;
  severity: Severity;
  context?: StringMap;
  tags?: StringMap;
  actions?: TriggerAction[];
  autoDisable: boolean;
  autoEnable: boolean;
  autoResolve: boolean;
  autoResolveAlerts: boolean;
  autoResolveMatch: Match;
  firingMatch: Match;
  enabled: boolean;
  dataIdMap?: StringMap;
  memberOf?: string;
  source?: string;
}

export interface FullTrigger {
  trigger: Trigger;
  dampenings: Dampening[];
  conditions: Condition[];
}

// ---------------------------------------------------------------- dampening

export const DAMPENING_TYPES = ["STRICT", "RELAXED_COUNT", "RELAXED_TIME", "STRICT_TIME", "STRICT_TIMEOUT"] as const;
export type DampeningType = (typeof DAMPENING_TYPES)[number];

export interface Dampening {
  tenantId: string;
  triggerId: string;
  triggerMode: TriggerMode;
  type: DampeningType;
  evalTrueSetting: number;
  evalTotalSetting: number;
  /** Milliseconds. */
  evalTimeSetting: number;
  dampeningId: string;
}

// ---------------------------------------------------------------- data and events

export interface Data {
  tenantId: string;
  source?: string;
  id: string;
  timestamp: number;
  value: string;
  context?: StringMap;
}

export interface Event {
  eventType: EventType;
  tenantId: string;
  id: string;
  ctime: number;
  dataSource?: string;
  dataId?: string;
  category: string;
  text: string;
  context?: StringMap;
  tags?: StringMap;
  trigger?: Trigger;
  dampening?: Dampening;
  evalSets?: ConditionEval[][];
}

export interface LifeCycle {
  status: AlertStatus;
  user: string;
  stime: number;
}

export interface Note {
  user: string;
  ctime: number;
  text: string;
}

export interface Alert extends Event {
  eventType: "ALERT";
  severity: Severity;
  status: AlertStatus;
  notes?: Note[];
  lifecycle: LifeCycle[];
  resolvedEvalSets?: ConditionEval[][];
}

// ---------------------------------------------------------------- evaluations

export const AVAILABILITY_VALUES = ["UP", "DOWN", "UNAVAILABLE"] as const;
export type AvailabilityValue = (typeof AVAILABILITY_VALUES)[number];

export interface ConditionEvalBase {
  evalTimestamp: number;
  dataTimestamp: number;
  context?: StringMap;
  displayString?: string;
}

export interface AvailabilityConditionEval extends ConditionEvalBase {
  type: "AVAILABILITY";
  condition: AvailabilityCondition;
  value: AvailabilityValue;
}

export interface CompareConditionEval extends ConditionEvalBase {
  type: "COMPARE";
  condition: CompareCondition;
  value1: number;
  value2: number;
  context2?: StringMap;
}

export interface StringConditionEval extends ConditionEvalBase {
  type: "STRING";
  condition: StringCondition;
  value: string;
}

export interface ThresholdConditionEval extends ConditionEvalBase {
  type: "THRESHOLD";
  condition: ThresholdCondition;
  value: number;
}

export interface ThresholdRangeConditionEval extends ConditionEvalBase {
  type: "RANGE";
  condition: ThresholdRangeCondition;
  value: number;
}

export interface ExternalConditionEval extends ConditionEvalBase {
  type: "EXTERNAL";
  condition: ExternalCondition;
  value?: string;
  event?: Event;
}

export interface EventConditionEval extends ConditionEvalBase {
  type: "EVENT";
  condition: EventCondition;
  value: Event;
}

export interface RateConditionEval extends ConditionEvalBase {
  type: "RATE";
  condition: RateCondition;
  previousValue: number;
  value: number;
  previousTime: number;
  time: number;
  rate: number;
}

export interface MissingConditionEval extends ConditionEvalBase {
  type: "MISSING";
  condition: MissingCondition;
  previousTime: number;
  time: number;
}

export interface NelsonConditionEval extends ConditionEvalBase {
  type: "NELSON";
  condition: NelsonCondition;
  value: number;
  violations: NelsonRule[];
  mean?: number;
  standardDeviation?: number;
  /** The latest (at most 15) numeric data the rules looked at, newest first. */
  violationsData: Data[];
}

export type ConditionEval =
  | AvailabilityConditionEval
  | CompareConditionEval
  | StringConditionEval
  | ThresholdConditionEval
  | ThresholdRangeConditionEval
  | ExternalConditionEval
  | EventConditionEval
  | RateConditionEval
  | MissingConditionEval
  | NelsonConditionEval;

// ---------------------------------------------------------------- groups

export interface GroupMemberInfo {
  groupId: string;
  memberId?: string;
  memberName?: string;
  memberDescription?: string;
  memberContext?: StringMap;
  memberTags?: StringMap;
  /** Group dataId token → member dataId. */
  dataIdMap: StringMap;
}

export interface GroupConditionsInfo {
  conditions: Condition[];
  /** Group dataId token → (member trigger id → member dataId). */
  dataIdMemberMap?: Record<string, StringMap>;
}

export interface UnorphanMemberInfo {
  memberContext?: StringMap;
  memberTags?: StringMap;
  dataIdMap: StringMap;
}

export interface Definitions {
  triggers?: FullTrigger[];
  groupMembersInfo?: GroupMemberInfo[];
  actions?: ActionDefinition[];
}
