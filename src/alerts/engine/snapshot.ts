import type { AvailabilityValue, ConditionEval, ConditionEvalBase, Data, Event } from "../model.ts";
import { nelsonRulesOf } from "../nelson.ts";
import type { ConditionRt } from "./runtime.ts";

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

/** The evaluation record of a condition's latest evaluation, as it goes into evalSets. */
export function snapshotEval(c: ConditionRt): ConditionEval {
  const base: ConditionEvalBase = { evalTimestamp: c.evalTimestamp, dataTimestamp: c.dataTimestamp };
  if (c.context) base.context = c.context;
  const def = c.def;
  const cond = def.displayString ?? def.dataId;
  switch (def.type) {
    case "THRESHOLD":
    case "RANGE": {
      const value = c.value as number;
      return { ...base, type: def.type, condition: def, value, displayString: `${cond}: ${fmt(value)}` } as ConditionEval;
    }
    case "AVAILABILITY":
      return { ...base, type: def.type, condition: def, value: c.value as AvailabilityValue, displayString: `${cond}: ${c.value}` };
    case "STRING":
      return { ...base, type: def.type, condition: def, value: c.value as string, displayString: `${cond}: [${c.value}]` };
    case "COMPARE": {
      const v1 = c.value as number;
      const out: ConditionEval = {
        ...base,
        type: def.type,
        condition: def,
        value1: v1,
        value2: c.value2,
        displayString: `${cond}: ${fmt(v1)} vs ${fmt(c.value2)}`,
      };
      if (c.context2) out.context2 = c.context2;
      return out;
    }
    case "EXTERNAL": {
      const out: ConditionEval = { ...base, type: def.type, condition: def, displayString: `${cond}: external` };
      if (c.event) out.event = c.event;
      else out.value = c.value as string;
      return out;
    }
    case "EVENT":
      return { ...base, type: def.type, condition: def, value: c.event as Event, displayString: `${cond}: ${(c.event as Event).id}` };
    case "RATE":
      return {
        ...base,
        type: def.type,
        condition: def,
        previousValue: c.previousValue,
        value: c.value as number,
        previousTime: c.previousTime,
        time: c.time,
        rate: c.rate,
        displayString: `${cond}: rate ${fmt(c.rate)}`,
      };
    case "MISSING":
      return {
        ...base,
        type: def.type,
        condition: def,
        previousTime: c.previousTime,
        time: c.time,
        displayString: `${cond}: nothing for ${c.time - c.previousTime}ms`,
      };
    case "NELSON": {
      const n = c.nelson!;
      const violations = nelsonRulesOf(c.nelsonViolations);
      const violationsData: Data[] = n.recentValues.map((v, i) => ({
        tenantId: def.tenantId,
        id: def.dataId,
        timestamp: n.recentTimes[i]!,
        value: String(v),
      }));
      const out: ConditionEval = {
        ...base,
        type: def.type,
        condition: def,
        value: c.value as number,
        violations,
        violationsData,
        displayString: `${cond}: ${violations.length > 0 ? violations.join(", ") : "no violations"}`,
      };
      if (Number.isFinite(c.nelsonMean)) out.mean = c.nelsonMean;
      if (Number.isFinite(c.nelsonSigma)) out.standardDeviation = c.nelsonSigma;
      return out;
    }
  }
}

/** The evaluation set of a trigger mode: the latest evaluation of each condition that has one. */
export function snapshotSet(conditions: readonly ConditionRt[]): ConditionEval[] {
  const out: ConditionEval[] = [];
  for (const c of conditions) if (c.hasEval) out.push(snapshotEval(c));
  return out;
}
