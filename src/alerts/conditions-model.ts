/** Trigger conditions, as the alerting interface's JSON carries them. */
import type { StringMap, TriggerMode } from "./vocabulary.ts";


export const CONDITION_TYPES = [
  "AVAILABILITY",
  "COMPARE",
  "STRING",
  "THRESHOLD",
  "RANGE",
  "EXTERNAL",
  "EVENT",
  "RATE",
  "MISSING",
  "NELSON",
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export const AVAILABILITY_OPERATORS = ["DOWN", "NOT_UP", "UP"] as const;
export type AvailabilityOperator = (typeof AVAILABILITY_OPERATORS)[number];

export const COMPARE_OPERATORS = ["LT", "GT", "LTE", "GTE"] as const;
export type CompareOperator = (typeof COMPARE_OPERATORS)[number];

export const STRING_OPERATORS = ["EQUAL", "NOT_EQUAL", "STARTS_WITH", "ENDS_WITH", "CONTAINS", "MATCH"] as const;
export type StringOperator = (typeof STRING_OPERATORS)[number];

export const RANGE_OPERATORS = ["INCLUSIVE", "EXCLUSIVE"] as const;
export type RangeOperator = (typeof RANGE_OPERATORS)[number];

export const RATE_DIRECTIONS = ["DECREASING", "INCREASING", "NA"] as const;
export type RateDirection = (typeof RATE_DIRECTIONS)[number];

export const RATE_PERIODS = ["SECOND", "MINUTE", "HOUR", "DAY", "WEEK"] as const;
export type RatePeriod = (typeof RATE_PERIODS)[number];

export const RATE_PERIOD_MS: Record<RatePeriod, number> = {
  SECOND: 1_000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
  WEEK: 604_800_000,
};

export const NELSON_RULES = ["Rule1", "Rule2", "Rule3", "Rule4", "Rule5", "Rule6", "Rule7", "Rule8"] as const;
export type NelsonRule = (typeof NELSON_RULES)[number];

/** Fields every condition carries. The last three are read-only, computed from the trigger's condition set. */
export interface ConditionBase {
  tenantId: string;
  triggerId: string;
  triggerMode: TriggerMode;
  dataId: string;
  context?: StringMap;
  displayString?: string;
  conditionSetSize: number;
  conditionSetIndex: number;
  conditionId: string;
}

export interface AvailabilityCondition extends ConditionBase {
  type: "AVAILABILITY";
  operator: AvailabilityOperator;
}

/** Reads: dataId operator data2Multiplier × data2Id. */
export interface CompareCondition extends ConditionBase {
  type: "COMPARE";
  operator: CompareOperator;
  data2Id: string;
  data2Multiplier: number;
}

export interface StringCondition extends ConditionBase {
  type: "STRING";
  operator: StringOperator;
  pattern: string;
  ignoreCase: boolean;
}

export interface ThresholdCondition extends ConditionBase {
  type: "THRESHOLD";
  operator: CompareOperator;
  threshold: number;
}

/** `inRange` true matches values inside the interval, false values outside it (Hawkular's field). */
export interface ThresholdRangeCondition extends ConditionBase {
  type: "RANGE";
  operatorLow: RangeOperator;
  operatorHigh: RangeOperator;
  thresholdLow: number;
  thresholdHigh: number;
  inRange: boolean;
}

export interface ExternalCondition extends ConditionBase {
  type: "EXTERNAL";
  alerterId?: string;
  expression?: string;
}

export interface EventCondition extends ConditionBase {
  type: "EVENT";
  expression?: string;
}

export interface RateCondition extends ConditionBase {
  type: "RATE";
  direction: RateDirection;
  period: RatePeriod;
  operator: CompareOperator;
  threshold: number;
}

export interface MissingCondition extends ConditionBase {
  type: "MISSING";
  /** Milliseconds without data or events after which the condition is true. */
  interval: number;
}

export interface NelsonCondition extends ConditionBase {
  type: "NELSON";
  activeRules: NelsonRule[];
  sampleSize: number;
}

export type Condition =
  | AvailabilityCondition
  | CompareCondition
  | StringCondition
  | ThresholdCondition
  | ThresholdRangeCondition
  | ExternalCondition
  | EventCondition
  | RateCondition
  | MissingCondition
  | NelsonCondition;
