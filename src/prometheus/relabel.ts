/**
 * Metric relabelling as a scraper applies it to every scraped series (Prometheus'
 * `metric_relabel_configs`), for the actions that keep or drop: `keep` and `drop` match the
 * source labels' values joined by the separator; `labelkeep` and `labeldrop` match label
 * names. Patterns are RE2 (linear time, docs/regular-expressions.md), anchored at both ends
 * as Prometheus anchors them; a missing label reads as "".
 */
import { UserPattern } from "../regex/user-pattern.ts";

export type RelabelAction = "keep" | "drop" | "labelkeep" | "labeldrop";

export interface RelabelRule {
  sourceLabels: string[];
  separator: string;
  regex: string;
  action: RelabelAction;
}

export interface CompiledRule extends RelabelRule {
  pattern: UserPattern;
}

/** Compiles the rules; a bad pattern or a keep/drop without source labels throws an Error naming the rule. */
export function parseRelabelRules(rules: readonly RelabelRule[]): CompiledRule[] {
  return rules.map((r, i) => {
    if ((r.action === "keep" || r.action === "drop") && r.sourceLabels.length === 0) throw new Error(`rule ${i + 1}: ${r.action} needs source_labels`);
    let pattern: UserPattern;
    try {
      pattern = UserPattern.compile(r.regex);
    } catch (e) {
      throw new Error(`rule ${i + 1}: ${(e as Error).message}`);
    }
    return { ...r, pattern };
  });
}

/**
 * Applies the rules to a series' labels (`__name__` included). Returns undefined when the
 * series is dropped, else its labels (a new object when a rule removed some).
 */
export function relabel(labels: Record<string, string>, rules: readonly RelabelRule[]): Record<string, string> | undefined {
  let out = labels;
  for (const rule of rules) {
    const r = rule as CompiledRule;
    const pattern = r.pattern ?? UserPattern.compile(r.regex);
    if (r.action === "keep" || r.action === "drop") {
      const value = r.sourceLabels.map((l) => out[l] ?? "").join(r.separator);
      if (pattern.test(value) !== (r.action === "keep")) return undefined;
      continue;
    }
    const keepMatching = r.action === "labelkeep";
    let copied = false;
    for (const name of Object.keys(out)) {
      if (name === "__name__" || pattern.test(name) === keepMatching) continue;
      if (!copied) {
        out = { ...out };
        copied = true;
      }
      delete out[name];
    }
  }
  return out;
}
