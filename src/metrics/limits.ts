/**
 * What the metrics interfaces accept, in one place: the collector's HTTP and MQTT ingest and
 * the agent's local write API check every write against these (through the write schemas and
 * the fast path for normalized points alike). Each refusal is a 4xx whose message names the
 * limit. Documented in docs/limits.md.
 */
export const LIMITS = {
  /** Characters of a metric id. */
  metricIdLength: 1024,
  /** Characters of a tag name. */
  tagNameLength: 256,
  /** Characters of a tag value. */
  tagValueLength: 1024,
  /** Tags on one metric definition. */
  tagsPerMetric: 128,
  /** Tags on one data point. */
  tagsPerPoint: 32,
  /** Earliest timestamp: 1970-01-01T00:00:00Z, in ms. */
  minTimestamp: 0,
  /** Latest timestamp: 9999-12-31T23:59:59.999Z, in ms (what dates can still show). */
  maxTimestamp: 253_402_300_799_999,
} as const;

export function metricIdProblem(id: string): string | undefined {
  if (id.length > LIMITS.metricIdLength) return `metric id is ${id.length} characters long; at most ${LIMITS.metricIdLength} are accepted`;
  return undefined;
}

/** True when `t` (an integer) lies in the accepted range; cheap, for the fast path. */
export function timestampInRange(t: number): boolean {
  return t >= LIMITS.minTimestamp && t <= LIMITS.maxTimestamp;
}

export function timestampProblem(t: number): string | undefined {
  if (timestampInRange(t)) return undefined;
  return `timestamp ${t} is outside the accepted range ${LIMITS.minTimestamp} (1970-01-01T00:00:00Z) to ${LIMITS.maxTimestamp} (9999-12-31T23:59:59.999Z)`;
}

const shorten = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** What is wrong with the tags of a metric definition or of a data point, if anything. */
export function tagsProblem(tags: Readonly<Record<string, string>>, on: "metric" | "point"): string | undefined {
  const max = on === "metric" ? LIMITS.tagsPerMetric : LIMITS.tagsPerPoint;
  let n = 0;
  for (const name in tags) {
    n++;
    if (name.length > LIMITS.tagNameLength) return `tag name "${shorten(name)}" is ${name.length} characters long; at most ${LIMITS.tagNameLength} are accepted`;
    const v = tags[name]!;
    if (v.length > LIMITS.tagValueLength) return `value of tag "${shorten(name)}" is ${v.length} characters long; at most ${LIMITS.tagValueLength} are accepted`;
  }
  if (n > max) return `${n} tags on a ${on === "metric" ? "metric" : "data point"}; at most ${max} are accepted`;
  return undefined;
}

/** True when the point tags are within the limits; cheap, for the fast path (values already known to be strings). */
export function pointTagsWithinLimits(tags: Readonly<Record<string, unknown>>): boolean {
  let n = 0;
  for (const name in tags) {
    if (++n > LIMITS.tagsPerPoint || name.length > LIMITS.tagNameLength || (tags[name] as string).length > LIMITS.tagValueLength) return false;
  }
  return true;
}
