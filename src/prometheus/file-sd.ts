/**
 * Target files in the shape of Prometheus' file-based discovery (`file_sd_configs`): a list of
 * groups `{targets: ["host:port", ...], labels: {name: value}}`, in JSON (`.json`) or YAML
 * (`.yml`, `.yaml`). Labels starting with `__` set the scrape itself, as in Prometheus
 * (`__scheme__`, `__metrics_path__`, `__param_<name>`); other `__` labels are dropped.
 */

export interface TargetGroup {
  targets: string[];
  labels: Record<string, string>;
}

export class TargetFileError extends Error {}

export function targetFileFormat(path: string): "json" | "yaml" | undefined {
  if (/\.json$/i.test(path)) return "json";
  if (/\.ya?ml$/i.test(path)) return "yaml";
  return undefined;
}

/** Parses and checks a target file's text. */
export function parseTargetFile(text: string, format: "json" | "yaml"): TargetGroup[] {
  let doc: unknown;
  try {
    doc = format === "json" ? JSON.parse(text) : Bun.YAML.parse(text);
  } catch (e) {
    throw new TargetFileError(`not valid ${format === "json" ? "JSON" : "YAML"}: ${(e as Error).message.split("\n")[0]}`);
  }
  if (doc === null || doc === undefined) return [];
  if (!Array.isArray(doc)) throw new TargetFileError("expected a list of target groups");
  return doc.map((g: unknown, i) => {
    if (typeof g !== "object" || g === null || Array.isArray(g)) throw new TargetFileError(`group ${i + 1}: expected {targets, labels}`);
    const { targets, labels = {}, ...rest } = g as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) throw new TargetFileError(`group ${i + 1}: unknown field ${JSON.stringify(extra[0])}`);
    if (!Array.isArray(targets) || targets.some((t) => typeof t !== "string")) throw new TargetFileError(`group ${i + 1}: targets must be a list of strings`);
    if (typeof labels !== "object" || labels === null || Array.isArray(labels)) throw new TargetFileError(`group ${i + 1}: labels must be a map`);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(labels)) {
      if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(k)) throw new TargetFileError(`group ${i + 1}: "${k}" is not a label name`);
      if (typeof v !== "string") throw new TargetFileError(`group ${i + 1}: the value of label ${k} must be a string`);
      out[k] = v;
    }
    return { targets: targets as string[], labels: out };
  });
}
