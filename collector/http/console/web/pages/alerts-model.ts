/** Alerts as the alerting interface answers them, and how the console lists and merges them. */

export const STATUSES = ["OPEN", "ACKNOWLEDGED", "RESOLVED"] as const;
export type AlertStatus = (typeof STATUSES)[number];
export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW"] as const;

export interface Trigger {
  id: string;
  name?: string;
  description?: string;
  severity?: string;
  type?: string;
  eventType?: string;
  enabled?: boolean;
  memberOf?: string;
  tags?: Record<string, string>;
  autoResolve?: boolean;
  autoDisable?: boolean;
}

export interface Lifecycle {
  status: string;
  user?: string;
  stime: number;
}

export interface Note {
  user?: string;
  ctime: number;
  text?: string;
}

export interface EvalItem {
  displayString?: string;
  value?: unknown;
  dataTimestamp?: number;
}

export interface Alert {
  id: string;
  ctime: number;
  severity?: string;
  status: AlertStatus;
  text?: string;
  trigger?: Trigger;
  lifecycle?: Lifecycle[];
  notes?: Note[];
  evalSets?: EvalItem[][];
  tags?: Record<string, string>;
}

export interface AlertEvent {
  id: string;
  ctime: number;
  category?: string;
  text?: string;
  dataId?: string;
  trigger?: Trigger;
  tags?: Record<string, string>;
}

/** When the alert last changed state (its lifecycle's latest entry). */
export function lastChange(a: Alert): number {
  const l = a.lifecycle;
  return l && l.length > 0 ? l[l.length - 1]!.stime : a.ctime;
}

/** Who moved it to its current state, when a person did. */
export function changedBy(a: Alert): string | undefined {
  const l = a.lifecycle;
  const last = l && l.length > 0 ? l[l.length - 1] : undefined;
  return last && last.user !== "system" ? last.user : undefined;
}

export interface AlertFilter {
  statuses: ReadonlySet<string>;
  severity: string;
  text: string;
}

export function filterAlerts(alerts: Iterable<Alert>, f: AlertFilter): Alert[] {
  const needle = f.text.trim().toLowerCase();
  const out: Alert[] = [];
  for (const a of alerts) {
    if (!f.statuses.has(a.status)) continue;
    if (f.severity && (a.severity ?? a.trigger?.severity) !== f.severity) continue;
    if (needle) {
      const hay = `${a.trigger?.name ?? ""} ${a.trigger?.id ?? ""} ${a.text ?? ""} ${a.id}`.toLowerCase();
      if (!hay.includes(needle)) continue;
    }
    out.push(a);
  }
  // Newest activity first.
  return out.sort((x, y) => lastChange(y) - lastChange(x) || y.ctime - x.ctime);
}

/**
 * The list after one item of the watch stream: the stream sends each alert again whenever its
 * lifecycle changes, so the newest copy replaces the older one. Notes are not streamed: a copy
 * without notes keeps those already known.
 */
export function mergeAlert(list: ReadonlyMap<string, Alert>, a: Alert): Map<string, Alert> {
  const next = new Map(list);
  const old = list.get(a.id);
  next.set(a.id, old?.notes && !a.notes ? { ...a, notes: old.notes } : a);
  return next;
}

export interface HistoryEntry {
  at: number;
  what: string;
  who?: string;
  alertId?: string;
  detail?: string;
  kind: "fired" | "acknowledged" | "resolved" | "note" | "event";
}

/** A trigger's history: every lifecycle change and note of its alerts, and its events, newest first. */
export function triggerHistory(alerts: readonly Alert[], events: readonly AlertEvent[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  for (const a of alerts) {
    for (const l of a.lifecycle ?? []) {
      const kind = l.status === "OPEN" ? "fired" : l.status === "ACKNOWLEDGED" ? "acknowledged" : "resolved";
      const what = kind === "fired" ? `Fired (${(a.severity ?? "").toLowerCase()})` : kind === "acknowledged" ? "Acknowledged" : "Resolved";
      out.push({ at: l.stime, what, who: l.user === "system" ? undefined : l.user, alertId: a.id, kind, detail: kind === "fired" ? evalText(a) : undefined });
    }
    for (const n of a.notes ?? []) out.push({ at: n.ctime, what: "Note", who: n.user, alertId: a.id, kind: "note", detail: n.text });
  }
  for (const e of events) out.push({ at: e.ctime, what: `Event${e.category ? ` (${e.category})` : ""}`, kind: "event", detail: e.text });
  return out.sort((x, y) => y.at - x.at);
}

/** What made the alert fire, as the engine wrote it ("Threshold: cpu[97.50] GT 90.00"). */
export function evalText(a: Alert): string | undefined {
  const items = (a.evalSets ?? []).flat();
  const texts = items.map((e) => e.displayString).filter((s): s is string => !!s);
  return texts.length ? texts.join("; ") : undefined;
}
