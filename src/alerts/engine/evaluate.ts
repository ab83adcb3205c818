import { availabilityMatches, parseAvailability } from "../conditions/availability.ts";
import { compareMatches } from "../conditions/compare.ts";
import { externalMatches } from "../conditions/external.ts";
import { nelsonMatches } from "../conditions/nelson.ts";
import { rangeMatches } from "../conditions/range.ts";
import { rateMatches, rateOf } from "../conditions/rate.ts";
import { thresholdMatches } from "../conditions/threshold.ts";
import type { Event, StringMap } from "../model.ts";
import type { IndexEntry } from "./data-index.ts";
import type { ConditionRt } from "./runtime.ts";

/** A data point as the engine takes it; `value` may already be a number (the agent's own data). */
export interface EngineData {
  tenantId: string;
  id: string;
  timestamp: number;
  value: string | number;
  source?: string;
  context?: StringMap;
}

function record(c: ConditionRt, match: boolean, now: number, dataTimestamp: number, context: StringMap | undefined): true {
  c.hasEval = true;
  c.match = match;
  c.evalTimestamp = now;
  c.dataTimestamp = dataTimestamp;
  c.context = context;
  return true;
}

/**
 * Evaluates a condition on the current datum of `e` (prepared by the round). Returns whether an
 * evaluation was recorded: data a condition cannot read (a word for a threshold, an out-of-order
 * point for a rate) leave it unevaluated.
 */
export function evaluateDatum(c: ConditionRt, e: IndexEntry, d: EngineData, now: number, roundSeq: number): boolean {
  const def = c.def;
  switch (def.type) {
    case "THRESHOLD": {
      const x = e.curNum;
      if (Number.isNaN(x)) return false;
      c.value = x;
      return record(c, thresholdMatches(def.operator, def.threshold, x), now, d.timestamp, d.context);
    }
    case "RANGE": {
      const x = e.curNum;
      if (Number.isNaN(x)) return false;
      c.value = x;
      return record(c, rangeMatches(def, x), now, d.timestamp, d.context);
    }
    case "AVAILABILITY": {
      const a = parseAvailability(d.value);
      if (a === undefined) return false;
      c.value = a;
      return record(c, availabilityMatches(def.operator, a), now, d.timestamp, d.context);
    }
    case "STRING": {
      const v = typeof d.value === "string" ? d.value : String(d.value);
      c.value = v;
      return record(c, c.stringMatcher!(v), now, d.timestamp, d.context);
    }
    case "EXTERNAL": {
      c.value = typeof d.value === "string" ? d.value : String(d.value);
      c.event = undefined;
      return record(c, externalMatches(), now, d.timestamp, d.context);
    }
    case "COMPARE": {
      if (c.roundSeq === roundSeq) return false;
      const e1 = c.entry1!;
      const e2 = c.entry2!;
      if (!e1.hasLatest || !e2.hasLatest || Number.isNaN(e1.latestNum) || Number.isNaN(e2.latestNum)) return false;
      c.roundSeq = roundSeq;
      c.value = e1.latestNum;
      c.value2 = e2.latestNum;
      c.context2 = e2.latestContext;
      return record(c, compareMatches(def.operator, def.data2Multiplier, e1.latestNum, e2.latestNum), now, e1.latestTs, e1.latestContext);
    }
    case "RATE": {
      if (!e.curNewest || !e.prevHas || Number.isNaN(e.curNum) || Number.isNaN(e.prevNum)) return false;
      const rate = rateOf(def.direction, def.period, e.prevTs, e.prevNum, d.timestamp, e.curNum);
      if (rate === undefined) return false;
      c.previousValue = e.prevNum;
      c.previousTime = e.prevTs;
      c.value = e.curNum;
      c.time = d.timestamp;
      c.rate = rate;
      return record(c, rateMatches(def.operator, def.threshold, rate), now, d.timestamp, d.context);
    }
    case "MISSING":
      return arrival(c, now, d.timestamp, d.context);
    case "NELSON": {
      const x = e.curNum;
      if (!Number.isFinite(x)) return false;
      const nelson = c.nelson!;
      const v = nelson.add(x, d.timestamp);
      c.value = x;
      c.nelsonViolations = v;
      c.nelsonMean = nelson.mean;
      c.nelsonSigma = nelson.sigma;
      return record(c, nelsonMatches(c.nelsonMask, v), now, d.timestamp, d.context);
    }
    case "EVENT":
      return false;
  }
}

/** Evaluates an event, external or missing condition on an event. */
export function evaluateEvent(c: ConditionRt, ev: Event, now: number): boolean {
  const def = c.def;
  switch (def.type) {
    case "EVENT":
      c.event = ev;
      return record(c, c.eventMatcher!(ev), now, ev.ctime, ev.context);
    case "EXTERNAL":
      c.event = ev;
      c.value = undefined;
      return record(c, externalMatches(), now, ev.ctime, ev.context);
    case "MISSING":
      return arrival(c, now, ev.ctime, ev.context);
    default:
      return false;
  }
}

/** Something arrived for a missing condition: a false evaluation, and the interval starts over. */
function arrival(c: ConditionRt, now: number, dataTimestamp: number, context: StringMap | undefined): true {
  c.previousTime = c.lastArrival;
  c.time = now;
  c.lastArrival = now;
  return record(c, false, now, dataTimestamp, context);
}

/** A missing condition's interval ran out: a true evaluation, and the next interval starts now. */
export function evaluateMissingTimeout(c: ConditionRt, now: number): void {
  c.previousTime = c.lastArrival;
  c.time = now;
  c.lastArrival = now;
  record(c, true, now, now, undefined);
}
