import type { TaggedBucketPoint } from "./bucket-points.ts";
import type { Tags } from "./model.ts";
import { summarize } from "./numeric-summary.ts";
import type { PercentileRequest } from "./percentiles-param.ts";
import type { Order } from "./series.ts";
import { compileTagFilter } from "./tag-filter.ts";

/** An ascending series whose points may carry their own tags (absent: no point has tags). */
export interface TaggedSeries {
  ts: ArrayLike<number>;
  values: ArrayLike<number>;
  tags?: ArrayLike<Tags | undefined>;
}

export interface TaggedStatsOptions {
  percentiles?: readonly PercentileRequest[];
  /** "desc" for gauges, "asc" for counters (upstream's read orders). */
  feedOrder: Order;
}

/**
 * GET /{gauges|counters}/{id}/stats/tags/{tags}: keeps the points whose own tags pass the
 * filters (tag-filter rules; a point lacking a named tag is dropped), groups them by their
 * values of the named tags, and computes stats per group over the whole range (no buckets).
 * Keys are "name:value" joined by commas, names in the order of the filter list.
 */
export function taggedStats(
  series: TaggedSeries,
  filters: ReadonlyMap<string, string>,
  opts: TaggedStatsOptions,
): Record<string, TaggedBucketPoint> {
  const accept = compileTagFilter(filters);
  const names = [...filters.keys()];
  const groups = new Map<string, { tags: Tags; indices: number[] }>();
  const pointTags = series.tags ?? [];
  for (let i = 0; i < series.ts.length; i++) {
    const tags = pointTags[i];
    if (!accept(tags)) continue;
    const key = names.map((name) => `${name}:${tags![name]}`).join(",");
    let group = groups.get(key);
    if (group === undefined) {
      group = { tags: Object.fromEntries(names.map((name) => [name, tags![name]!])), indices: [] };
      groups.set(key, group);
    }
    group.indices.push(i);
  }
  const out: Record<string, TaggedBucketPoint> = {};
  for (const [key, { tags, indices }] of groups) {
    const values = Float64Array.from(indices, (i) => series.values[i]!);
    const stats = summarize(values, 0, values.length, opts.feedOrder, opts.percentiles ?? []);
    // defineProperty: a key can never be mistaken for the prototype setter.
    Object.defineProperty(out, key, { value: { tags, ...stats }, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
