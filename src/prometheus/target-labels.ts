/**
 * How a scraper joins a target's labels (job, instance, the target's own, the agent's feed) to
 * the labels a series is exposed with, as Prometheus does: without `honor_labels` the target's
 * win and a clashing exposed label is kept as `exported_<name>`; with it the exposed ones win.
 * Labels with empty values are dropped, as Prometheus drops them.
 */
export function joinTargetLabels(name: string, exposed: readonly (readonly [string, string])[], target: Readonly<Record<string, string>>, honorLabels: boolean): Record<string, string> {
  const out: Record<string, string> = { __name__: name };
  for (const [k, v] of exposed) out[k] = v;
  for (const [k, v] of Object.entries(target)) {
    if (honorLabels) {
      if (out[k] === undefined || out[k] === "") out[k] = v;
      continue;
    }
    const clash = out[k];
    if (clash !== undefined && clash !== "") {
      let renamed = `exported_${k}`;
      while (out[renamed] !== undefined && out[renamed] !== "") renamed = `exported_${renamed}`;
      out[renamed] = clash;
    }
    out[k] = v;
  }
  for (const k of Object.keys(out)) if (out[k] === "") delete out[k];
  return out;
}
