import type { TriggerMode } from "./model.ts";

/** Composed ids of Hawkular Alerts (research §2.3); clients rely on their shape. */

export function dampeningId(tenantId: string, triggerId: string, mode: TriggerMode): string {
  return `${tenantId}-${triggerId}-${mode}`;
}

export function conditionId(tenantId: string, triggerId: string, mode: TriggerMode, setSize: number, setIndex: number): string {
  return `${tenantId}-${triggerId}-${mode}-${setSize}-${setIndex}`;
}

/** Id of an alert or event fired by a trigger: `<triggerId>-<ctime>-<unique>`. */
export function firedEventId(triggerId: string, ctime: number, unique: string): string {
  return `${triggerId}-${ctime}-${unique}`;
}
