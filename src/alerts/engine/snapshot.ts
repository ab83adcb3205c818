import type { AvailabilityValue, ConditionEval, Data, Event } from "../model.ts";
import { nelsonRulesOf } from "../nelson.ts";
import { evalDisplay } from "../conditions/display.ts";
import type { ConditionRt } from "./runtime.ts";

/**
 * The evaluation record of a condition's latest evaluation, as it goes into evalSets. Built on
 * every true dampening step, most of which never fire, so it is kept cheap: plain literals,
 * no display string (see `describeEvals`, applied to the sets that do fire).
 */
export function snapshotEval(c: ConditionRt): ConditionEval {
  const def = c.def;
  const evalTimestamp = c.evalTimestamp;
  const dataTimestamp = c.dataTimestamp;
  let out: ConditionEval;
  switch (def.type) {
    case "THRESHOLD":
      out = { type: "THRESHOLD", evalTimestamp, dataTimestamp, condition: def, value: c.value as number };
      break;
    case "RANGE":
      out = { type: "RANGE", evalTimestamp, dataTimestamp, condition: def, value: c.value as number };
      break;
    case "AVAILABILITY":
      out = { type: "AVAILABILITY", evalTimestamp, dataTimestamp, condition: def, value: c.value as AvailabilityValue };
      break;
    case "STRING":
      out = { type: "STRING", evalTimestamp, dataTimestamp, condition: def, value: c.value as string };
      break;
    case "COMPARE":
      out = { type: "COMPARE", evalTimestamp, dataTimestamp, condition: def, value1: c.value as number, value2: c.value2 };
      if (c.context2) out.context2 = c.context2;
      break;
    case "EXTERNAL":
      out = { type: "EXTERNAL", evalTimestamp, dataTimestamp, condition: def };
      if (c.event) out.event = c.event;
      else out.value = c.value as string;
      break;
    case "EVENT":
      out = { type: "EVENT", evalTimestamp, dataTimestamp, condition: def, value: c.event as Event };
      break;
    case "RATE":
      out = {
        type: "RATE",
        evalTimestamp,
        dataTimestamp,
        condition: def,
        previousValue: c.previousValue,
        value: c.value as number,
        previousTime: c.previousTime,
        time: c.time,
        rate: c.rate,
      };
      break;
    case "MISSING":
      out = { type: "MISSING", evalTimestamp, dataTimestamp, condition: def, previousTime: c.previousTime, time: c.time };
      break;
    case "NELSON": {
      const n = c.nelson!;
      const violationsData: Data[] = n.recentValues.map((v, i) => ({
        tenantId: def.tenantId,
        id: def.dataId,
        timestamp: n.recentTimes[i]!,
        value: String(v),
      }));
      out = {
        type: "NELSON",
        evalTimestamp,
        dataTimestamp,
        condition: def,
        value: c.value as number,
        violations: nelsonRulesOf(c.nelsonViolations),
        violationsData,
      };
      if (Number.isFinite(c.nelsonMean)) out.mean = c.nelsonMean;
      if (Number.isFinite(c.nelsonSigma)) out.standardDeviation = c.nelsonSigma;
      break;
    }
  }
  if (c.context) out.context = c.context;
  return out;
}

/** The evaluation set of a trigger mode: the latest evaluation of each condition that has one. */
export function snapshotSet(conditions: readonly ConditionRt[]): ConditionEval[] {
  const out: ConditionEval[] = [];
  for (const c of conditions) if (c.hasEval) out.push(snapshotEval(c));
  return out;
}

/** Fills the display strings of evaluation sets that are about to be reported. */
export function describeEvals(sets: ConditionEval[][]): ConditionEval[][] {
  for (const set of sets) for (const e of set) if (e.displayString === undefined) e.displayString = evalDisplay(e);
  return sets;
}
