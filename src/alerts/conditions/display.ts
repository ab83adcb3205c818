/**
 * The `displayString` of conditions and of condition evaluations, in Hawkular Alerting's
 * formats (its conditions' and evaluations' `updateDisplayString`), as its clients' recorded
 * answers show them: `data-x LT 5.00`, `Threshold: data-x[4.00] LT 5.00`.
 */
import type { Condition, ConditionEval, Data, Event, RangeOperator } from "../model.ts";
import { fixed2, javaDate, javaDouble, javaList, javaMap, javaValue } from "./java-text.ts";

const low = (op: RangeOperator) => (op === "INCLUSIVE" ? "[" : "(");
const high = (op: RangeOperator) => (op === "INCLUSIVE" ? "]" : ")");

/** The condition's display (the `displayString` field of a condition). */
export function conditionDisplay(c: Condition): string {
  switch (c.type) {
    case "AVAILABILITY":
      return `${c.dataId} is ${c.operator}`;
    case "COMPARE":
      return `${c.dataId} ${c.operator} ${fixed2(100 * c.data2Multiplier)}% ${c.data2Id}`;
    case "STRING":
      return `${c.dataId} ${c.operator} [${c.pattern}]${c.ignoreCase ? " Ignoring Case" : ""}`;
    case "THRESHOLD":
      return `${c.dataId} ${c.operator} ${fixed2(c.threshold)}`;
    case "RANGE":
      return `${c.dataId} ${c.inRange ? "in" : "not in"} ${low(c.operatorLow)}${fixed2(c.thresholdLow)} , ${fixed2(c.thresholdHigh)}${high(c.operatorHigh)}`;
    case "EXTERNAL":
      return `${javaValue(c.alerterId)}: ${c.dataId} matches [${javaValue(c.expression)}]`;
    case "EVENT":
      return `${c.dataId} matches [${javaValue(c.expression)}]`;
    case "RATE":
      return `${c.dataId} ${c.direction} ${c.operator} ${fixed2(c.threshold)} per ${c.period}`;
    case "MISSING":
      return `${c.dataId} missing GTE ${c.interval}ms`;
    case "NELSON":
      return `${c.dataId} activeNelsonRules=${javaList(javaHashSetOrder(c.activeRules))} sampleSize=${c.sampleSize}`;
  }
}

/** An evaluation's display: what was seen against the condition. */
export function evalDisplay(e: ConditionEval): string {
  switch (e.type) {
    case "THRESHOLD": {
      const c = e.condition;
      return `Threshold: ${c.dataId}[${fixed2(e.value)}] ${c.operator} ${fixed2(c.threshold)}`;
    }
    case "RANGE": {
      const c = e.condition;
      return `Range: ${c.dataId}[${fixed2(e.value)}] ${c.inRange ? "in" : "not in"} ${low(c.operatorLow)}${fixed2(c.thresholdLow)} , ${fixed2(c.thresholdHigh)}${high(c.operatorHigh)}`;
    }
    case "AVAILABILITY":
      return `Avail: ${e.condition.dataId}[${e.value}] is ${e.condition.operator}`;
    case "STRING": {
      const c = e.condition;
      return `String: ${c.dataId}[${e.value}] ${c.operator} [${c.pattern}]${c.ignoreCase ? " Ignoring Case" : ""}`;
    }
    case "COMPARE": {
      const c = e.condition;
      return `Compare: ${c.dataId}[${fixed2(e.value1)}] ${c.operator} ${fixed2(100 * c.data2Multiplier)}% ${c.data2Id}[${fixed2(e.value2)}]`;
    }
    case "EXTERNAL": {
      const c = e.condition;
      return `External[${javaValue(c.alerterId)}]: ${c.dataId}[${e.value ?? (e.event ? eventText(e.event) : "null")}] matches [${javaValue(c.expression)}]`;
    }
    case "EVENT":
      return `Event: ${e.condition.dataId}[${eventText(e.value)}] matches [${javaValue(e.condition.expression)}]`;
    case "RATE": {
      const c = e.condition;
      return `Rate: ${c.dataId}[${fixed2(e.rate)}] ${c.direction} ${c.operator} ${javaDouble(c.threshold)} per ${c.period}`;
    }
    case "MISSING":
      return `Missing: ${e.condition.dataId}[${javaDate(e.time)}] ${e.time - e.previousTime}ms GTE ${e.condition.interval}ms`;
    case "NELSON": {
      const c = e.condition;
      const num = (x: number | undefined) => (x === undefined ? "null" : fixed2(x));
      return `Nelson: ${c.dataId} violations=${javaList(e.violations)} mean=${num(e.mean)}, standardDeviation=${num(e.standardDeviation)}, sampleSize=${c.sampleSize}, violationsData=${javaList(e.violationsData.map(dataText))}`;
    }
  }
}

/** Hawkular's `Data.toString`. */
function dataText(d: Data): string {
  return `Data [tenantId=${d.tenantId}, id=${d.id}, timestamp=${d.timestamp}, value=${d.value}, context=${javaMap(d.context)}]`;
}

/** Hawkular's `Event.toString`; the trigger, written by Java as its whole definition, as its id. */
function eventText(ev: Event): string {
  return `Event [tenantId=${javaValue(ev.tenantId)}, id=${ev.id}, ctime=${ev.ctime}, category=${javaValue(ev.category)}, dataId=${javaValue(ev.dataId)}, dataSource=${javaValue(ev.dataSource)}, text=${javaValue(ev.text)}, context=${javaMap(ev.context)}, tags=${javaMap(ev.tags)}, trigger=${ev.trigger ? ev.trigger.id : "null"}]`;
}

/** Java's `String.hashCode`. */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The iteration order of a small Java `HashSet<String>` (16 buckets, up to 12 entries): by the
 * bucket of each string's spread hash, in insertion order within a bucket. Upstream writes the
 * Nelson rules of a condition from such a set.
 */
function javaHashSetOrder(items: readonly string[]): string[] {
  const bucket = (s: string) => {
    const h = javaHash(s);
    return (h ^ (h >>> 16)) & 15;
  };
  return [...new Set(items)].map((s, i) => ({ s, i, b: bucket(s) })).sort((x, y) => x.b - y.b || x.i - y.i).map((x) => x.s);
}
