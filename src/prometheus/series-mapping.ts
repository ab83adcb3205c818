/**
 * How Prometheus series and Outpost metrics map onto each other (docs/prometheus.md):
 * a metric's labels are its definition tags, `__name__` is its `metric` tag or else its id.
 * A series written in from the Prometheus world gets the id `name{a="1",b="2"}` (labels
 * sorted, as the text format writes them) and the tags of its labels plus `metric`.
 */

export const NAME_TAG = "metric";
/** A Prometheus label that is itself called `metric` is kept under this tag (Prometheus' honor_labels rule). */
export const EXPORTED_NAME_TAG = "exported_metric";

function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** The Outpost metric id of a Prometheus series. */
export function seriesId(name: string, labels: Record<string, string>): string {
  const names = Object.keys(labels)
    .filter((k) => k !== "__name__" && labels[k] !== "")
    .sort();
  if (names.length === 0) return name;
  return `${name}{${names.map((k) => `${k}="${escapeLabelValue(labels[k]!)}"`).join(",")}}`;
}

/** The definition tags of a Prometheus series. */
export function seriesTags(name: string, labels: Record<string, string>): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) {
    if (k === "__name__" || v === "") continue;
    tags[k === NAME_TAG ? EXPORTED_NAME_TAG : k] = v;
  }
  tags[NAME_TAG] = name;
  return tags;
}

/** The labels of an Outpost metric, `__name__` included. */
export function metricLabels(id: string, tags: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (tags) {
    for (const [k, v] of Object.entries(tags)) if (k !== NAME_TAG && k !== "__name__" && v !== "") out[k] = v;
  }
  out.__name__ = tags?.[NAME_TAG] || id;
  return out;
}
