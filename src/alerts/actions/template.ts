import type { Action, Alert } from "../model.ts";

/**
 * The fields of an action's alert or event as text: what templates may use as `${name}` (the
 * email plugin's templates, the agent's system-log messages) and what a local command gets
 * in its environment (docs/local-triggers.md).
 */
export function templateValues(action: Action, baseUrl?: string): Record<string, string> {
  const e = action.event as Partial<Alert> | undefined;
  return {
    id: e?.id ?? action.eventId,
    tenantId: action.tenantId ?? "",
    eventType: e?.eventType ?? "",
    status: e?.status ?? "",
    severity: e?.severity ?? "",
    category: e?.category ?? "",
    text: e?.text ?? "",
    ctime: e?.ctime !== undefined ? new Date(e.ctime).toISOString() : "",
    triggerId: e?.trigger?.id ?? "",
    triggerName: e?.trigger?.name ?? e?.trigger?.id ?? "",
    triggerDescription: e?.trigger?.description ?? "",
    url: baseUrl ?? "",
  };
}

/** Replaces `${name}` by its value; unknown names stay as written. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{(\w+)\}/g, (all, k: string) => values[k] ?? all);
}

/** One line naming the alert or event: `[OPEN] HIGH alert: disk almost full`. */
export function headline(v: Record<string, string>): string {
  return v.eventType === "ALERT" ? `[${v.status}] ${v.severity} alert: ${v.triggerName}` : `Event: ${v.triggerName || v.category}`;
}
