import { AVAILABILITY_VALUES, type MetricType, type Tags } from "./model.ts";
import { hasStaleMarkers } from "../prometheus/staleness.ts";
import type { Run } from "./run.ts";
import type { PointColumns, RawQuery } from "./reader.ts";

/**
 * A merged run as the raw-read answer: in the requested order, limited, availability as words.
 * Staleness markers are not points of the Hawkular reads: they are left out before the limit.
 */
export function runColumns(stored: Run, type: MetricType, q: RawQuery): PointColumns {
  const run = stored.nums && hasStaleMarkers(stored.nums) ? withoutMarkers(stored) : stored;
  const n = run.ts.length;
  const limit = q.limit && q.limit > 0 ? Math.min(q.limit, n) : n;
  const ts = new Array<number>(limit);
  const values = new Array<number | string>(limit);
  const anyTags = run.tags?.some((t) => t !== undefined) ?? false;
  const tags = anyTags ? new Array<Tags | undefined>(limit) : undefined;
  const avail = type === "availability";
  for (let k = 0; k < limit; k++) {
    const i = q.order === "asc" ? k : n - 1 - k;
    ts[k] = run.ts[i]!;
    values[k] = run.nums ? (avail ? AVAILABILITY_VALUES[run.nums[i]!]! : run.nums[i]!) : run.strs![i]!;
    if (tags) tags[k] = run.tags![i];
  }
  return tags ? { ts, values, tags } : { ts, values };
}

function withoutMarkers(r: Run): Run {
  const keep: number[] = [];
  const nums = r.nums!;
  for (let i = 0; i < nums.length; i++) if (!Number.isNaN(nums[i]!)) keep.push(i);
  return {
    ts: Float64Array.from(keep, (i) => r.ts[i]!),
    nums: Float64Array.from(keep, (i) => nums[i]!),
    tags: r.tags ? keep.map((i) => r.tags![i]) : undefined,
  };
}
