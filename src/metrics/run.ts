import type { Tags } from "./model.ts";
import { lowerBound } from "./series.ts";

/** Points of one series sorted by timestamp, without duplicates, in column form. */
export interface Run {
  ts: Float64Array;
  /** Values of numeric series (gauge, counter, availability codes). */
  nums?: Float64Array;
  /** Values of string series. */
  strs?: string[];
  tags?: (Tags | undefined)[];
}

export const emptyRun = (numeric: boolean): Run =>
  numeric ? { ts: new Float64Array(0), nums: new Float64Array(0) } : { ts: new Float64Array(0), strs: [] };

/** The points of `r` with start <= ts < end (views, no copy of numeric columns). */
export function sliceRun(r: Run, start: number, end: number): Run {
  const a = lowerBound(r.ts, start);
  const b = lowerBound(r.ts, end, a);
  if (a === 0 && b === r.ts.length) return r;
  return {
    ts: r.ts.subarray(a, b),
    nums: r.nums?.subarray(a, b),
    strs: r.strs?.slice(a, b),
    tags: r.tags?.slice(a, b),
  };
}

/** Where merged numeric columns are made: fresh arrays unless the caller reuses memory (the roller). */
export type FloatAlloc = (n: number) => Float64Array;
export const freshFloats: FloatAlloc = (n) => new Float64Array(n);

/**
 * Merges runs given in write order (oldest first) into one run; for a timestamp present in
 * several runs the value of the latest run wins, which makes repeated writes idempotent.
 */
export function mergeRuns(runs: Run[], numeric: boolean, alloc = freshFloats): Run {
  const nonEmpty = runs.filter((r) => r.ts.length > 0);
  if (nonEmpty.length === 0) return emptyRun(numeric);
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  const byStart = nonEmpty.map((r, i) => ({ r, i })).sort((a, b) => a.r.ts[0]! - b.r.ts[0]! || a.i - b.i);
  let disjoint = true;
  for (let k = 1; k < byStart.length; k++) {
    const prev = byStart[k - 1]!.r;
    if (prev.ts[prev.ts.length - 1]! >= byStart[k]!.r.ts[0]!) {
      disjoint = false;
      break;
    }
  }
  return disjoint ? concatRuns(byStart.map((x) => x.r), numeric, alloc) : mergeOverlapping(nonEmpty, numeric, alloc);
}

function concatRuns(runs: Run[], numeric: boolean, alloc: FloatAlloc): Run {
  let n = 0;
  for (const r of runs) n += r.ts.length;
  const ts = alloc(n);
  const nums = numeric ? alloc(n) : undefined;
  const strs: string[] | undefined = numeric ? undefined : [];
  const anyTags = runs.some((r) => r.tags);
  const tags: (Tags | undefined)[] | undefined = anyTags ? [] : undefined;
  let o = 0;
  for (const r of runs) {
    ts.set(r.ts, o);
    if (nums) nums.set(r.nums!, o);
    if (strs) for (const s of r.strs!) strs.push(s);
    if (tags) for (let i = 0; i < r.ts.length; i++) tags.push(r.tags?.[i]);
    o += r.ts.length;
  }
  return { ts, nums, strs, tags };
}

function mergeOverlapping(runs: Run[], numeric: boolean, alloc: FloatAlloc): Run {
  const all = concatRuns(runs, numeric, alloc);
  const n = all.ts.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const ts = all.ts;
  // Runs were concatenated in write order, so the index breaks ties in favour of later writes.
  order.sort((a, b) => ts[a]! - ts[b]! || a - b);
  const out: Run = {
    ts: alloc(n),
    nums: numeric ? alloc(n) : undefined,
    strs: numeric ? undefined : [],
    tags: all.tags ? [] : undefined,
  };
  let k = 0;
  for (let j = 0; j < n; j++) {
    const src = order[j]!;
    const t = ts[src]!;
    if (k > 0 && out.ts[k - 1] === t) k--;
    out.ts[k] = t;
    if (out.nums) out.nums[k] = all.nums![src]!;
    if (out.strs) out.strs[k] = all.strs![src]!;
    if (out.tags) out.tags[k] = all.tags![src];
    k++;
  }
  out.ts = out.ts.subarray(0, k);
  if (out.nums) out.nums = out.nums.subarray(0, k);
  if (out.strs) out.strs.length = k;
  if (out.tags) out.tags.length = k;
  return out;
}
