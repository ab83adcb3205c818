/**
 * How Prometheus series and Outpost metrics map onto each other (docs/prometheus.md):
 * a metric's labels are its definition tags, `__name__` is its `metric` tag or else its id.
 * A series written in from the Prometheus world gets the id `name{a="1",b="2"}` (labels
 * sorted, as the text format writes them) and the tags of its labels plus `metric`.
 */

export const NAME_TAG = "metric";
/** A Prometheus label that is itself called `metric` is kept under this tag (Prometheus' honor_labels rule). */
export const EXPORTED_NAME_TAG = "exported_metric";

// Hoisted: a regular expression literal makes a new object each time it is evaluated (a
// mapping of 50,000 new remote-write series made 180,000 of them, issue 28).
const NEEDS_ESCAPE = /[\\"\n]/;
const BACKSLASHES = /\\/g;
const QUOTES = /"/g;
const NEWLINES = /\n/g;

function escapeLabelValue(v: string): string {
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(BACKSLASHES, "\\\\").replace(QUOTES, '\\"').replace(NEWLINES, "\\n");
}

/** The Outpost metric id of a Prometheus series. */
export function seriesId(name: string, labels: Record<string, string>): string {
  // A loop and one join rather than keys, filter, map and join, or appends to a string: each
  // series mapped made a handful of arrays, and appending made about 20 strings (the engine's
  // ropes), garbage at once; 50,000 series mapped after a restart grew the heap by 55 MB
  // (issue 28, docs/prometheus.md).
  const names: string[] = [];
  for (const k in labels) if (k !== "__name__" && labels[k] !== "") names.push(k);
  if (names.length === 0) return name;
  names.sort();
  const parts: string[] = [name, "{"];
  for (let i = 0; i < names.length; i++) {
    if (i > 0) parts.push(",");
    parts.push(names[i]!, '="', escapeLabelValue(labels[names[i]!]!), '"');
  }
  parts.push("}");
  return parts.join("");
}

/**
 * Whether `id` is what seriesId gives for metric `name` and the labels names[i] = values[i],
 * i < n (names sorted as seriesId sorts them, none with an empty value, `__name__` not among
 * them), compared in place: no string is made unless a value needs escaping.
 */
export function isSeriesIdOf(id: string, name: string, names: readonly string[], values: readonly string[], n: number): boolean {
  if (n === 0) return id === name;
  if (!id.startsWith(name) || id.charCodeAt(name.length) !== 0x7b) return false; // {
  let at = name.length + 1;
  for (let i = 0; i < n; i++) {
    if (i > 0 && id.charCodeAt(at++) !== 0x2c) return false; // ,
    const k = names[i]!;
    if (!id.startsWith(k, at)) return false;
    at += k.length;
    if (id.charCodeAt(at) !== 0x3d || id.charCodeAt(at + 1) !== 0x22) return false; // ="
    at += 2;
    const v = escapeLabelValue(values[i]!);
    if (!id.startsWith(v, at)) return false;
    at += v.length;
    if (id.charCodeAt(at++) !== 0x22) return false; // "
  }
  return id.charCodeAt(at) === 0x7d && at + 1 === id.length; // }
}

/** The definition tags of a Prometheus series. */
export function seriesTags(name: string, labels: Record<string, string>): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const k in labels) {
    const v = labels[k]!;
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
