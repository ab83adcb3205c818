import type { Alert, ConditionEval } from "./model.ts";

/**
 * Alert status changes (spec "Alert status"), as pure functions over stored alerts. Each adds a
 * lifecycle entry; resolving an already resolved alert changes nothing.
 */

export function ackAlert(alert: Alert, user: string, time: number, notes?: string): Alert {
  if (alert.status !== "OPEN") return alert;
  const out: Alert = { ...alert, status: "ACKNOWLEDGED", lifecycle: [...alert.lifecycle, { status: "ACKNOWLEDGED", user, stime: time }] };
  return notes ? addNote(out, user, notes, time) : out;
}

export function resolveAlert(alert: Alert, user: string, time: number, notes?: string, resolvedEvalSets?: ConditionEval[][]): Alert {
  if (alert.status === "RESOLVED") return alert;
  const out: Alert = { ...alert, status: "RESOLVED", lifecycle: [...alert.lifecycle, { status: "RESOLVED", user, stime: time }] };
  if (resolvedEvalSets) out.resolvedEvalSets = resolvedEvalSets;
  return notes ? addNote(out, user, notes, time) : out;
}

export function addNote(alert: Alert, user: string, text: string, time: number): Alert {
  return { ...alert, notes: [...(alert.notes ?? []), { user, ctime: time, text }] };
}
