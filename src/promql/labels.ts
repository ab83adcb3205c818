/** Label sets as the evaluator handles them: [name, value] pairs sorted by name, no empty values. */

export type Labels = readonly (readonly [string, string])[];

export const METRIC_NAME = "__name__";

export function labelsFromRecord(r: Record<string, string>): Labels {
  return Object.keys(r)
    .filter((k) => r[k] !== "")
    .sort()
    .map((k) => [k, r[k]!] as const);
}

export function labelsToRecord(l: Labels): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of l) out[k] = v;
  return out;
}

/** The value of a label; "" when absent, as Prometheus treats it. */
export function labelValue(l: Labels, name: string): string {
  for (const [k, v] of l) if (k === name) return v;
  return "";
}

/** A copy with `name` set to `value` ("" removes it). */
export function withLabel(l: Labels, name: string, value: string): Labels {
  const out = l.filter(([k]) => k !== name);
  if (value !== "") {
    out.push([name, value]);
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
  return out;
}

export function dropName(l: Labels): Labels {
  return l.some(([k]) => k === METRIC_NAME) ? l.filter(([k]) => k !== METRIC_NAME) : l;
}

export function keepOnly(l: Labels, names: ReadonlySet<string>): Labels {
  return l.filter(([k]) => names.has(k));
}

export function dropLabels(l: Labels, names: ReadonlySet<string>): Labels {
  return l.filter(([k]) => !names.has(k));
}

/** A string that identifies the label set (same labels ⇔ same key). */
export function labelsKey(l: Labels): string {
  let s = "";
  for (const [k, v] of l) s += `${k}\u0001${v}\u0000`;
  return s;
}

/** Matching signature: the `on` labels, or all but the `ignoring` labels and the metric name. */
export function matchKey(l: Labels, on: boolean, names: ReadonlySet<string>): string {
  let s = "";
  for (const [k, v] of l) {
    const use = on ? names.has(k) : k !== METRIC_NAME && !names.has(k);
    if (use) s += `${k}\u0001${v}\u0000`;
  }
  return s;
}

/** Prometheus' order of label sets: pairwise by name then value, shorter first on a tie. */
export function compareLabels(a: Labels, b: Labels): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const [an, av] = a[i]!;
    const [bn, bv] = b[i]!;
    if (an !== bn) return an < bn ? -1 : 1;
    if (av !== bv) return av < bv ? -1 : 1;
  }
  return a.length - b.length;
}

/** `{a="1", b="2"}` as Prometheus prints a label set in messages. */
export function formatLabels(l: Labels): string {
  return `{${l.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")}}`;
}
