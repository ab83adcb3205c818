import { firedEventId } from "../ids.ts";
import type { Alert, ConditionEval, Dampening, Event, Trigger } from "../model.ts";

/**
 * The alert or event a trigger fires (spec "Event and Alert"): dataId is the trigger id so other
 * triggers can chain on it; category and text fall back as the spec says.
 */
export function firedEvent(
  trigger: Trigger,
  source: string,
  dampening: Dampening,
  evalSets: ConditionEval[][],
  ctime: number,
  unique: string,
): Event | Alert {
  const isAlert = trigger.eventType === "ALERT";
  const ev: Event = {
    eventType: trigger.eventType,
    tenantId: trigger.tenantId,
    id: firedEventId(trigger.id, ctime, unique),
    ctime,
    dataSource: source,
    dataId: trigger.id,
    category: nonEmpty(trigger.eventCategory) ?? (isAlert ? "ALERT" : "TRIGGER"),
    text: nonEmpty(trigger.eventText) ?? nonEmpty(trigger.description) ?? nonEmpty(trigger.name) ?? trigger.id,
    trigger: { ...trigger },
    dampening,
    evalSets,
  };
  if (trigger.context) ev.context = trigger.context;
  if (trigger.tags) ev.tags = trigger.tags;
  if (!isAlert) return ev;
  return {
    ...ev,
    eventType: "ALERT",
    severity: trigger.severity,
    status: "OPEN",
    lifecycle: [{ status: "OPEN", user: "system", stime: ctime }],
  };
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.length > 0 ? s : undefined;
}
