import { AVAILABILITY_VALUES, type MetricType, type Tags } from "../../../src/metrics/model.ts";
import type { Run } from "./run.ts";
import type { PointColumns, RawQuery } from "./types.ts";

/** A merged run as the raw-read answer: in the requested order, limited, availability as words. */
export function runColumns(run: Run, type: MetricType, q: RawQuery): PointColumns {
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
