/**
 * The console's "New trigger" form as data: a threshold on one metric, and how it fires. A
 * trigger with neither auto-resolve nor dampening fires a new alert at every point that matches
 * (Hawkular's semantics, kept for API clients: docs/operations.md, "How a trigger fires"), which
 * a newcomer reads as a flood. The form offers three modes and starts on the first.
 */

export type Operator = "GT" | "GTE" | "LT" | "LTE";
export type FiringMode = "auto-resolve" | "sustained" | "every-point";

export interface TriggerForm {
  name: string;
  dataId: string;
  operator: Operator;
  threshold: number;
  severity: "LOW" | "MEDIUM" | "HIGH" | "CRITICAL";
  mode: FiringMode;
  /** Consecutive matching points before firing, in the "sustained" mode. */
  consecutive: number;
}

export const DEFAULT_FORM: TriggerForm = { name: "", dataId: "", operator: "GT", threshold: 0, severity: "MEDIUM", mode: "auto-resolve", consecutive: 3 };

export const OPERATORS: { op: Operator; label: string }[] = [
  { op: "GT", label: ">" },
  { op: "GTE", label: "≥" },
  { op: "LT", label: "<" },
  { op: "LTE", label: "≤" },
];

/** The condition that says the value is back: the threshold's other side. */
export const BACK_TO_NORMAL: Record<Operator, Operator> = { GT: "LTE", GTE: "LT", LT: "GTE", LTE: "GT" };

const label = (op: Operator) => OPERATORS.find((o) => o.op === op)!.label;

/** The modes, the first the default, each with what it does in words that name the form's values. */
export const FIRING_MODES: { mode: FiringMode; title: string; explain(f: TriggerForm): string }[] = [
  {
    mode: "auto-resolve",
    title: "One alert, resolved when the value is back (recommended)",
    explain: (f) =>
      `Fires once when ${f.dataId || "the metric"} ${label(f.operator)} ${f.threshold}, then only watches for ${label(BACK_TO_NORMAL[f.operator])} ${f.threshold}: that resolves the alert by itself and re-arms the trigger. One alert per episode.`,
  },
  {
    mode: "sustained",
    title: "Only when it lasts, then resolved when back",
    explain: (f) =>
      `As above, but fires only after ${f.consecutive} points in a row match (a dampening): a single spike does not alert. At one point every 10 s that is ${f.consecutive * 10} s.`,
  },
  {
    mode: "every-point",
    title: "An alert for every matching point",
    explain: () =>
      "Hawkular's plain mode: every point that matches opens another alert, until someone disables the trigger. With host metrics every 10 s that is six alerts a minute; for data that arrives rarely.",
  },
];

/** A trigger id from its name: lower case, dashes, at most 64 characters. */
export function triggerId(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 64) || "trigger"
  );
}

/** What is wrong with the form, or undefined when it can be sent. */
export function formProblem(f: TriggerForm): string | undefined {
  if (f.name.trim() === "") return "Give the trigger a name.";
  if (f.dataId.trim() === "") return "Name the metric to watch.";
  if (!Number.isFinite(f.threshold)) return "The threshold must be a number.";
  if (f.mode === "sustained" && !(Number.isInteger(f.consecutive) && f.consecutive >= 2 && f.consecutive <= 1000)) return "Points in a row: a whole number from 2 to 1000.";
  return undefined;
}

/** The body of POST svc/alerts/triggers/trigger (a full trigger: definition, conditions, dampenings). */
export function triggerDefinition(f: TriggerForm): Record<string, unknown> {
  const dataId = f.dataId.trim();
  const resolves = f.mode !== "every-point";
  const condition = (triggerMode: "FIRING" | "AUTORESOLVE", operator: Operator) => ({ triggerMode, type: "THRESHOLD", dataId, operator, threshold: f.threshold });
  return {
    trigger: {
      id: triggerId(f.name),
      name: f.name.trim(),
      severity: f.severity,
      enabled: true,
      ...(resolves ? { autoResolve: true, autoResolveAlerts: true } : {}),
    },
    conditions: [condition("FIRING", f.operator), ...(resolves ? [condition("AUTORESOLVE", BACK_TO_NORMAL[f.operator])] : [])],
    ...(f.mode === "sustained" ? { dampenings: [{ triggerMode: "FIRING", type: "STRICT", evalTrueSetting: f.consecutive }] } : {}),
  };
}
